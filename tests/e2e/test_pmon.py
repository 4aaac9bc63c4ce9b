"""gpuwatch pmon against real `nvidia-smi pmon -c 5` captures: same header lines,
same column widths, '-' where nvidia-smi prints it, names cut at 15 characters."""
import os
import pathlib
import re
import subprocess
import tempfile

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
CAPTURES = pathlib.Path(os.environ["GPUWATCH_REALDATA_DIR"]) / "nvidia-smi" / "extracted"
H100 = "linux-x86_64__nvidia-h100-80gb-hbm3__590.48.01__{}__pmon.txt"

# One H100 with two processes whose PIDs are real processes started by the test.
SCENARIO = """\
name: pmon_e2e
description: One H100 running a job and a long-named helper.
gpus:
  - model: H100 SXM 80GB
    phases:
      - {kind: training, duration: 1h}
    processes:
      - {command: "gpu_burn 60", user: alice, memory: 40960, pid_env: H3_PMON_PID1}
      - {command: "averyveryverylongprocessname --x", user: bob, memory: 1024, pid_env: H3_PMON_PID2}
"""


def gpuwatch(args, scenario="idle", timeout=30, **extra):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario, **extra)
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def token_ends(line):
    return [m.end() for m in re.finditer(r"\S+", line)]


def test_idle_gpu_matches_idle_capture_exactly():
    r = gpuwatch(["pmon", "-c", "2"])
    assert r.returncode == 0, r.stderr
    captured = (CAPTURES / H100.format("idle")).read_text().splitlines()
    assert r.stdout.splitlines() == captured[:4]


@pytest.fixture
def busy():
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "pmon_e2e.yaml"
        path.write_text(SCENARIO)
        yield str(path), {"H3_PMON_PID1": str(sleepers[0].pid), "H3_PMON_PID2": str(sleepers[1].pid)}, sleepers
    for s in sleepers:
        s.kill()
        s.wait()


def test_process_rows_match_load_capture_format(busy):
    scenario, extra, sleepers = busy
    r = gpuwatch(["pmon", "-c", "1"], scenario, **extra)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    captured = (CAPTURES / H100.format("load")).read_text().splitlines()
    assert lines[:2] == captured[:2]
    rows = lines[2:]
    assert len(rows) == 2
    cap_row = captured[2]  # "    0      11327     C      -  ...    memhog         "
    for row in rows:
        assert len(row) == len(cap_row)
        assert token_ends(row)[:9] == token_ends(cap_row)[:9]
        assert row.split()[2] == "C"
    assert rows[0].split()[1] == str(sleepers[0].pid)
    assert rows[0][68:].rstrip() == "gpu_burn"
    assert rows[1][68:] == "averyveryverylo"  # 15 characters, as nvidia-smi cuts names
    for value in rows[0].split()[5:9]:  # jpg, ofa (and enc, dec of a training job)
        assert value == "-" or value.isdigit()


def test_memory_group_shows_process_memory(busy):
    scenario, extra, sleepers = busy
    r = gpuwatch(["pmon", "-c", "1", "-s", "m"], scenario, **extra)
    assert r.returncode == 0, r.stderr
    header, units, first, second = r.stdout.splitlines()
    assert header == "# gpu         pid   type     fb   ccpm    command "
    assert units == "# Idx           #    C/G     MB     MB    name "
    assert first.split()[3] == "40960" and second.split()[3] == "1024"
    assert first.split()[4] == "-"


def test_usage_errors_and_missing_gpu():
    assert gpuwatch(["pmon", "-c", "1", "-s", "x"]).returncode == 2
    assert gpuwatch(["pmon", "-c", "1", "-i", "3"]).returncode == 4


def test_graphics_process_is_type_g():
    r = subprocess.run([BIN, "--simulate", "consumer_card", "pmon", "-c", "1"], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()[2:]
    types = {row[68:].rstrip(): row.split()[2] for row in rows}
    assert types.get("Xorg") == "G", r.stdout
    assert types.get("python") == "C", r.stdout


PMON_CAPTURES = sorted(str(p) for p in CAPTURES.glob("linux-*__pmon.txt"))


@pytest.mark.parametrize("capture", PMON_CAPTURES, ids=lambda p: pathlib.Path(p).name[len("linux-x86_64__"):-10])
def test_pmon_matches_capture_format(capture):
    """Each capture imported (GPU + its compute apps): same header, same widths;
    a GPU without processes gives nvidia-smi's '-' row byte for byte; the compute
    processes of the capture are listed with their PIDs and names."""
    stem = capture[: -len("__pmon.txt")]
    with tempfile.TemporaryDirectory() as tmp:
        scenario = pathlib.Path(tmp) / "imported.yaml"
        inputs = [stem + "__query-gpu.csv", stem + "__q.txt", stem + "__compute-apps.csv"]
        r = subprocess.run([BIN, "sim", "import", *inputs, "-o", str(scenario)], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        r = gpuwatch(["pmon", "-c", "1"], str(scenario))
    assert r.returncode == 0, r.stderr
    ours = r.stdout.splitlines()
    captured = pathlib.Path(capture).read_text().splitlines()
    assert ours[:2] == captured[:2]
    for row in ours[2:]:
        assert len(row) == len(captured[2])
        assert token_ends(row)[:9] == token_ends(captured[2])[:9] or row.split()[1] == "-"
    if captured[2].split()[1] == "-":  # idle capture
        assert ours[2] == captured[2]
    compute = {line.split()[1]: line[68:].rstrip() for line in captured[2:] if line.split()[2] in ("C", "C+G")}
    listed = {row.split()[1]: row[68:].rstrip() for row in ours[2:]}
    for pid, name in compute.items():
        assert listed.get(pid) == name, (pid, name, r.stdout)
