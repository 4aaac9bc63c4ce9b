"""Issue 9, "One consistent command line", on the built binary and the simulated driver:
one duration grammar for every interval flag, `-i` in both of its meanings with `--interval`
and `--id` everywhere, "did you mean" for commands, options, `sim` commands, query fields and
scenario names, examples at the end of every --help, and a no-driver error that points to
`--simulate demo`."""
import json
import os
import re
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]


def gw(*args, timeout=30, env=None):
    run_env = dict(os.environ)
    run_env.pop("GPUWATCH_SIM_SCENARIO", None)
    run_env.update(env or {})
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=run_env)


def sim(*args, scenario="idle", **kwargs):
    return gw("--simulate", scenario, *args, **kwargs)


# --- durations: one grammar ----------------------------------------------------------------

@pytest.mark.parametrize("interval", ["1s", "1", "500ms", "0.5"])
def test_issue_9_status_interval_takes_the_duration_grammar(interval):
    r = sim("status", "-i", interval, "-c", "2", "--jsonl")
    assert r.returncode == 0, r.stderr
    assert len([json.loads(line) for line in r.stdout.splitlines()]) == 2


@pytest.mark.parametrize("command", [["status", "-i", "1x"], ["status", "--interval", "soon"],
                                     ["dmon", "-d", "1x", "-c", "1"], ["pmon", "--interval", "1x", "-c", "1"],
                                     ["query", "--query-gpu=name", "--format=csv", "-l", "1x"],
                                     ["record", "--interval", "1x", "--count", "1", "--db", "/nonexistent/h.db"],
                                     ["serve", "--interval", "1x", "--no-record"]])
def test_issue_9_a_bad_duration_names_the_flag_and_shows_the_grammar(command):
    r = sim(*command)
    assert r.returncode == 2, r.stderr
    flag = next(a for a in command if a in ("-i", "--interval", "-d", "-l"))
    assert flag in r.stderr, r.stderr
    assert "500ms, 1s, 2m, 1h" in r.stderr, r.stderr
    assert not re.search(r"\d{20}", r.stderr), r.stderr  # no 300-digit range


@pytest.mark.parametrize("command", [["dmon", "-d", "1s"], ["dmon", "--interval", "1"], ["dmon", "--delay", "1"],
                                     ["pmon", "-d", "1s"], ["pmon", "--interval", "1"]])
def test_issue_9_dmon_and_pmon_take_durations_and_interval(command):
    r = sim(*command, "-c", "2", scenario="training")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("#"), r.stdout


def test_issue_9_dmon_delay_keeps_nvidia_smi_bounds():
    r = sim("dmon", "-d", "500ms", "-c", "1")
    assert r.returncode == 2
    assert "-d/--delay/--interval: 500ms is out of range: give 1s to 24h" in r.stderr, r.stderr


@pytest.mark.parametrize("loop", [["-l", "500ms"], ["--interval", "0.5"], ["-l", "1"], ["-lms", "500"],
                                  ["--loop-ms", "500ms"]])
def test_issue_9_query_loop_takes_durations_and_count(loop):
    r = sim("query", "--query-gpu=index", "--format=csv,noheader", *loop, "-c", "2")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["0", "0"]


def test_issue_9_record_takes_a_bare_number_of_seconds_and_short_count(tmp_path):
    r = sim("record", "--db", str(tmp_path / "h.db"), "--interval", "1", "-c", "1")
    assert r.returncode == 0, r.stderr
    assert "every 1 " in r.stderr


# --- -i and --id -----------------------------------------------------------------------------

def test_issue_9_status_has_id_too():
    r = sim("status", "--id", "1,3", "--json", scenario="demo")
    assert r.returncode == 0, r.stderr
    assert [gpu["index"] for gpu in json.loads(r.stdout)["gpus"]] == [1, 3]
    r = sim("status", "--id", "42", scenario="demo")
    assert r.returncode == 4, r.stderr


def test_issue_9_status_minus_i_is_the_interval_and_says_so():
    r = sim("status", "-i", "0")  # "GPU 0", as nvidia-smi's -i would mean
    assert r.returncode == 2
    assert "-i is the interval" in r.stderr and "--id" in r.stderr, r.stderr


@pytest.mark.parametrize("command", [["dmon", "-c", "1"], ["pmon", "-c", "1"],
                                     ["query", "--query-gpu=index", "--format=csv"]])
def test_issue_9_minus_i_is_the_gpu_in_nvidia_smi_commands(command):
    r = sim(*command, "-i", "1", scenario="demo")
    assert r.returncode == 0, r.stderr
    r = sim(*command, "--id", "1", scenario="demo")
    assert r.returncode == 0, r.stderr
    r = sim(*command, "-i", "2s", scenario="demo")  # meant as an interval
    assert r.returncode == 4
    assert "-i is the GPU here" in r.stderr, r.stderr


# --- did you mean ----------------------------------------------------------------------------

@pytest.mark.parametrize("args,expected", [
    (["stauts"], "unknown command 'stauts'. Did you mean 'status'?"),
    (["sim", "lst"], "gpuwatch sim: unknown command 'lst'. Did you mean 'list'?"),
    (["status", "--jsn"], "gpuwatch status: unknown option '--jsn'. Did you mean '--json'?"),
    (["--jsn"], "unknown option '--jsn'. Did you mean '--json'?"),
    (["dmon", "--delya", "1"], "Did you mean '--delay'?"),
    (["--simulate", "idle", "--no-colour"], "Did you mean '--no-color'?"),
])
def test_issue_9_did_you_mean_for_commands_and_flags(args, expected):
    r = gw(*args)
    assert r.returncode == 2, r.stderr
    assert expected in r.stderr, r.stderr
    assert "--help" in r.stderr


def test_issue_9_did_you_mean_for_query_fields():
    r = sim("query", "--query-gpu=index,utilisation.gpu", "--format=csv")
    assert r.returncode == 2
    assert 'Field "utilisation.gpu" is not a valid field to query.' in r.stderr  # nvidia-smi's words first
    assert "Did you mean 'utilization.gpu'?" in r.stderr, r.stderr
    assert "--help-query-gpu" in r.stderr, r.stderr


@pytest.mark.parametrize("args", [["--simulate", "demoo", "status"], ["sim", "run", "demoo", "--", "true"],
                                  ["sim", "show", "demoo"]])
def test_issue_9_did_you_mean_for_scenarios(args):
    r = gw(*args)
    assert r.returncode == 2, r.stderr
    assert "Did you mean 'demo'?" in r.stderr, r.stderr
    assert "gpuwatch sim list" in r.stderr, r.stderr


# --- help ------------------------------------------------------------------------------------

HELP_COMMANDS = [[], ["status"], ["query"], ["dmon"], ["pmon"], ["sim"], ["sim", "list"], ["sim", "show"],
                 ["sim", "run"], ["sim", "import"], ["record"], ["import"], ["history"], ["report"], ["serve"]]


@pytest.mark.parametrize("command", HELP_COMMANDS, ids=lambda c: " ".join(c) or "gpuwatch")
def test_issue_9_every_help_ends_with_examples(command):
    r = gw(*command, "--help")
    assert r.returncode == 0, r.stderr
    tail = r.stdout.rstrip().split("Examples:\n")
    assert len(tail) == 2, f"no 'Examples:' in {' '.join(command)} --help:\n{r.stdout}"
    examples = [line for line in tail[1].splitlines() if re.match(r"\s+(gpuwatch|nvidia-smi) ", line)]
    assert 2 <= len(examples) <= 4, tail[1]
    if command:  # examples of this command
        assert any(command[-1] in line.split() for line in examples), tail[1]


def test_issue_9_top_level_and_serve_help_mention_the_dashboard():
    for command in ([], ["serve"]):
        out = gw(*command, "--help").stdout
        assert "dashboard" in out and "http://127.0.0.1:9835/" in out, out


# --- no driver -------------------------------------------------------------------------------

def test_issue_9_no_driver_suggests_the_simulated_demo():
    r = gw("--nvml-library", "/nonexistent/libnvidia-ml.so.1", "dmon", "-c", "1")
    assert r.returncode == 3
    assert "gpuwatch --simulate demo dmon" in r.stderr, r.stderr
    r = gw("--nvml-library", "/nonexistent/libnvidia-ml.so.1")
    assert r.returncode == 3
    assert "gpuwatch --simulate demo status" in r.stderr, r.stderr
