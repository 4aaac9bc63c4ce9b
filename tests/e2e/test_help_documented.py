"""Every flag that `--help` shows is documented in docs/cli.md, and every exit code too.

Runs the built binary's --help for each command and checks each long and short flag
against the document, so that a new flag cannot land undocumented.
"""
import os
import re
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]
DOC = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "docs", "cli.md")

COMMANDS = [[], ["status"], ["query"], ["dmon"], ["pmon"], ["sim"], ["sim", "run"], ["sim", "import"],
            ["sim", "list"], ["sim", "show"], ["sim", "record"], ["record"], ["import"], ["history"], ["report"],
            ["diagnose"], ["serve"], ["top"], ["alerts"], ["alerts", "test"], ["alerts", "rules"], ["run"]]

FLAG = re.compile(r"^\s+((?:-[\w-]+,)*-[\w-]+)", re.M)


def help_flags(command):
    out = subprocess.run([BIN, *command, "--help"], capture_output=True, text=True, timeout=10)
    assert out.returncode == 0, out.stderr
    flags = set()
    for group in FLAG.findall(out.stdout):
        flags.update(group.split(","))
    return flags - {"-h", "--help"}


@pytest.fixture(scope="module")
def doc():
    with open(DOC, encoding="utf-8") as f:
        return f.read()


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "gpuwatch")
def test_every_flag_in_help_is_documented(command, doc):
    flags = help_flags(command)
    if command in ([], ["status"], ["query"], ["record"], ["diagnose"], ["sim", "record"]):
        assert flags, "expected some flags in --help"
    missing = sorted(f for f in flags if f"`{f}" not in doc)
    assert not missing, f"gpuwatch {' '.join(command)}: flags missing from docs/cli.md: {missing}"


def test_every_exit_code_is_documented(doc):
    header = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "src", "core", "exit_codes.hpp")
    with open(header, encoding="utf-8") as f:
        codes = [int(c) for c in re.findall(r"=\s*(\d+),", f.read())]
    assert codes == sorted(codes) and len(codes) >= 6
    for code in codes:
        assert re.search(rf"^\| {code} \|", doc, re.M), f"exit code {code} missing from docs/cli.md"
