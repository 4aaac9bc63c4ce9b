"""`gpuwatch sim list|show|run|import` and `--simulate`, end to end on the built binary."""
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
import yaml

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
REALDATA = Path(os.environ.get("GPUWATCH_REALDATA_DIR", SOURCE_DIR.parent / "shared" / "realdata"))
SCENARIOS = SOURCE_DIR / "sim" / "scenarios"


def gw(*args, timeout=30, **kwargs):
    return subprocess.run([GPUWATCH, *args], capture_output=True, text=True, timeout=timeout, **kwargs)


def builtin_names():
    return sorted(p.stem for p in SCENARIOS.glob("*.yaml"))


def scenario_commands(name):
    """Command lines of the processes that get stand-ins (no fixed pid, no pid_env)."""
    doc = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text())
    commands = set()
    for gpu in doc.get("gpus", []):
        for proc in gpu.get("processes", []) or []:
            if "pid" not in proc and "pid_env" not in proc:
                commands.add(" ".join(str(proc["command"]).split()))
        for mig in gpu.get("mig", []) or []:
            for proc in mig.get("processes", []) or []:
                if "pid" not in proc and "pid_env" not in proc:
                    commands.add(" ".join(str(proc["command"]).split()))
    return commands


def scenario_with_standins():
    for name in ("demo", "training"):
        if (SCENARIOS / f"{name}.yaml").exists() and scenario_commands(name):
            return name
    for name in builtin_names():
        if scenario_commands(name):
            return name
    pytest.skip("no built-in scenario has processes")


def parse_pids(value):
    """GPUWATCH_SIM_PIDS "gpu:proc=pid,..." -> [pid, ...]"""
    pids = []
    for item in filter(None, value.strip().split(",")):
        key, pid = item.split("=")
        assert re.fullmatch(r"\d+:\d+", key), value
        pids.append(int(pid))
    return pids


def alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def cmdline(pid):
    return " ".join(Path(f"/proc/{pid}/cmdline").read_bytes().rstrip(b"\0").decode().split("\0"))


def wait_gone(pids, seconds=3.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(alive(p) for p in pids):
        time.sleep(0.02)
    return [p for p in pids if alive(p)]


# --- sim list / show -------------------------------------------------------------------

def test_list_names_every_builtin_with_a_description():
    result = gw("sim", "list")
    assert result.returncode == 0, result.stderr
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    names = builtin_names()
    assert names, "no scenario files found"
    assert sorted(lines) == names
    for name, line in lines.items():
        assert len(line.split(None, 1)) == 2, f"{name} has no description: {line!r}"


def test_show_every_builtin():
    for name in builtin_names():
        result = gw("sim", "show", name)
        assert result.returncode == 0, f"{name}: {result.stderr}"
        assert result.stdout.strip(), name


def test_show_demo_names_its_gpus():
    if not (SCENARIOS / "demo.yaml").exists():
        pytest.skip("no demo scenario yet")
    doc = yaml.safe_load((SCENARIOS / "demo.yaml").read_text())
    result = gw("sim", "show", "demo")
    assert result.returncode == 0, result.stderr
    for gpu in doc["gpus"]:
        assert str(gpu["model"]).lower() in result.stdout.lower(), gpu["model"]


def test_show_accepts_a_relative_file(tmp_path):
    (tmp_path / "one.yaml").write_text("name: one\ndescription: one GPU\ngpus:\n  - model: T4\n")
    result = gw("sim", "show", "one.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "T4" in result.stdout


# --- bad input ---------------------------------------------------------------------------

def test_unknown_key_is_exit_2_naming_file_line_and_key(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\ngpus:\n  - model: T4\n    colour: red\n")
    for args in (["sim", "show", str(bad)], ["sim", "run", str(bad), "--", "true"], ["--simulate", str(bad), "sim", "list"]):
        result = gw(*args)
        assert result.returncode == 2, (args, result.stderr)
        assert str(bad) in result.stderr, result.stderr
        assert ":4:" in result.stderr or "line 4" in result.stderr, result.stderr
        assert "colour" in result.stderr, result.stderr
        assert result.stdout == "", args


def test_unknown_model_lists_the_catalog(tmp_path):
    bad = tmp_path / "model.yaml"
    bad.write_text("gpus:\n  - model: Voodoo 5 6000\n")
    result = gw("sim", "show", str(bad))
    assert result.returncode == 2
    assert "Voodoo 5 6000" in result.stderr
    for model in ("H100", "A100", "T4", "V100", "4090"):
        assert model in result.stderr, result.stderr


def test_unknown_scenario_name_is_exit_2():
    result = gw("sim", "run", "no-such-scenario-xyz", "--", "true")
    assert result.returncode == 2
    assert "no-such-scenario-xyz" in result.stderr


def test_missing_driver_is_a_clear_error(tmp_path):
    env = dict(os.environ, GPUWATCH_SIM_DRIVER_DIR=str(tmp_path))
    result = gw("sim", "run", "idle", "--", "true", env=env)
    assert result.returncode == 1
    assert "simulated driver not found" in result.stderr and str(tmp_path) in result.stderr


# --- sim run -----------------------------------------------------------------------------

def test_run_passes_the_exit_status_through():
    assert gw("sim", "run", "idle", "--", "sh", "-c", "exit 7").returncode == 7
    assert gw("sim", "run", "idle", "--", "true").returncode == 0
    result = gw("sim", "run", "idle", "--", "no-such-command-xyz")
    assert result.returncode == 127 and "no-such-command-xyz" in result.stderr


def test_run_sets_the_simulation_environment(tmp_path):
    (tmp_path / "mine.yaml").write_text("name: mine\ngpus:\n  - model: L4\n")
    env = dict(os.environ, LD_LIBRARY_PATH="/opt/keep")
    env.pop("GPUWATCH_SIM_EPOCH_MS", None)
    before = time.time() * 1000
    script = 'printf "%s\\n" "$LD_LIBRARY_PATH" "$GPUWATCH_SIM_SCENARIO" "$GPUWATCH_SIM_EPOCH_MS" "$GPUWATCH_NVML_LIBRARY"'
    result = gw("sim", "run", "mine.yaml", "--", "sh", "-c", script, cwd=tmp_path, env=env)
    assert result.returncode == 0, result.stderr
    ld_path, scenario, epoch, library = result.stdout.splitlines()
    driver_dir, rest = ld_path.split(":", 1)
    assert rest == "/opt/keep"
    assert Path(driver_dir, "libnvidia-ml.so.1").is_file()
    assert Path(driver_dir, "libnvidia-ml.so").exists()  # nvtop dlopens this name first
    if DRIVER_DIR:
        assert Path(driver_dir).resolve() == Path(DRIVER_DIR).resolve()
    assert library == str(Path(driver_dir, "libnvidia-ml.so.1"))
    assert scenario == str(tmp_path / "mine.yaml")  # absolute, so it works from any directory
    assert before - 1000 <= int(epoch) <= time.time() * 1000 + 1000


def test_legacy_scenarios_run_on_the_legacy_driver():
    legacy = [p.stem for p in SCENARIOS.glob("*.yaml")
              if ((yaml.safe_load(p.read_text()) or {}).get("driver") or {}).get("symbols") == "legacy"]
    if not legacy:
        pytest.skip("no legacy-driver scenario")
    result = gw("sim", "run", legacy[0], "--", "sh", "-c", 'echo "$LD_LIBRARY_PATH"; echo "$GPUWATCH_NVML_LIBRARY"')
    assert result.returncode == 0, result.stderr
    ld_path, library = result.stdout.splitlines()
    assert Path(ld_path.split(":")[0]).name == "sim-driver-legacy"
    assert Path(library).parent.name == "sim-driver-legacy" and Path(library).is_file()
    normal = gw("sim", "run", "idle", "--", "sh", "-c", 'echo "$LD_LIBRARY_PATH"').stdout
    assert Path(normal.split(":")[0].strip()).name == "sim-driver"


def test_run_keeps_a_given_epoch():
    env = dict(os.environ, GPUWATCH_SIM_EPOCH_MS="1234")
    result = gw("sim", "run", "idle", "--", "sh", "-c", 'echo "$GPUWATCH_SIM_EPOCH_MS $GPUWATCH_SIM_SCENARIO"', env=env)
    assert result.stdout.split() == ["1234", "idle"]


def test_standins_show_the_scenario_commands_and_go_away():
    name = scenario_with_standins()
    expected = scenario_commands(name)
    # The child prints the stand-ins' PIDs and their command lines as it sees them.
    script = ('echo "$GPUWATCH_SIM_PIDS"; for p in $(echo "$GPUWATCH_SIM_PIDS" | tr "," "\\n" | cut -d= -f2); do '
              'tr "\\0" " " < /proc/$p/cmdline; echo; done')
    result = gw("sim", "run", name, "--", "sh", "-c", script)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    pids = parse_pids(lines[0])
    assert pids, f"{name} has processes but no stand-ins were started"
    shown = {line.strip() for line in lines[1:]}
    assert shown <= expected, (shown, expected)
    assert len(lines) - 1 == len(pids)
    assert wait_gone(pids, 1.0) == [], "stand-ins outlived `sim run`"


def test_standins_die_when_gpuwatch_is_killed():
    name = scenario_with_standins()
    proc = subprocess.Popen([GPUWATCH, "sim", "run", name, "--", "sh", "-c", 'echo "$$ $GPUWATCH_SIM_PIDS"; exec sleep 30'],
                            stdout=subprocess.PIPE, text=True)
    child = None
    try:
        first = proc.stdout.readline().split()
        child, pids = int(first[0]), parse_pids(first[1])
        assert pids and all(alive(p) for p in pids)
        for pid in pids:
            assert cmdline(pid) in scenario_commands(name)
        proc.kill()  # SIGKILL: no chance to clean up; the kernel must take the stand-ins
        proc.wait(timeout=5)
        assert wait_gone(pids) == [], "stand-ins outlived a killed gpuwatch"
    finally:
        if proc.poll() is None:
            proc.kill()
        if child is not None and alive(child):
            os.kill(child, signal.SIGKILL)


def test_sigterm_is_forwarded_to_the_command():
    proc = subprocess.Popen([GPUWATCH, "sim", "run", "idle", "--", "sh", "-c",
                             'trap "exit 42" TERM; echo ready; i=0; while [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done'],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=5) == 42
    finally:
        if proc.poll() is None:
            proc.kill()


def test_run_needs_a_command():
    result = gw("sim", "run", "idle")
    assert result.returncode == 2


# --- --simulate ------------------------------------------------------------------------

def test_simulate_prints_nothing_of_its_own():
    plain = gw("sim", "list")
    simulated = gw("--simulate", "idle", "sim", "list")
    assert simulated.returncode == 0, simulated.stderr
    assert simulated.stdout == plain.stdout


def test_simulate_serves_gpuwatch_commands_with_standins():
    result = gw("--simulate", "training", "status")
    assert result.returncode == 0, result.stderr
    assert "A100" in result.stdout
    lines = [line for line in result.stdout.splitlines() if "train.py" in line]
    assert lines, f"the stand-ins' command lines are not shown:\n{result.stdout}"
    # The PIDs shown were the stand-ins': real while gpuwatch ran, gone once it exited.
    shown_pids = {int(n) for line in lines for n in re.findall(r"\b\d{2,}\b", line)}
    leftovers = [p for p in shown_pids if alive(p) and "train.py" in cmdline(p)]
    assert leftovers == []


def test_simulate_overrides_the_library_variable_but_not_the_flag():
    missing = "/nonexistent/libnvidia-ml.so.1"
    env = dict(os.environ, GPUWATCH_NVML_LIBRARY=missing)  # as inherited from a `sim run`, say
    assert gw("--simulate", "training", "status", env=env).returncode == 0
    explicit = gw("--simulate", "training", "--nvml-library", missing, "status")
    assert explicit.returncode == 3, explicit.stderr  # NVML unavailable: the flag was obeyed
    assert missing in explicit.stderr


# --- sim import ------------------------------------------------------------------------

def capture(kind, state="load"):
    files = sorted((REALDATA / "nvidia-smi" / "extracted").glob(f"*__{state}__{kind}"))
    if not files:
        pytest.skip(f"no {kind} capture in {REALDATA}")
    return files[0]


def capture_sets():
    return sorted((REALDATA / "nvidia-smi" / "extracted").glob("*__query-gpu.csv"))


@pytest.mark.parametrize("query_gpu", capture_sets(), ids=lambda p: p.name.split("__", 1)[1].rsplit("__", 1)[0])
def test_import_writes_a_scenario_that_show_accepts(tmp_path, query_gpu):
    out = tmp_path / "imported.yaml"
    inputs = [str(query_gpu)]
    q_text = query_gpu.with_name(query_gpu.name.replace("query-gpu.csv", "q.txt"))
    apps = query_gpu.with_name(query_gpu.name.replace("query-gpu.csv", "compute-apps.csv"))
    inputs += [str(p) for p in (q_text, apps) if p.exists()]
    result = gw("sim", "import", *inputs, "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    yaml.safe_load(out.read_text())
    shown = gw("sim", "show", str(out))
    assert shown.returncode == 0, shown.stderr
    header, first = (line.split(",") for line in query_gpu.read_text().splitlines()[:2])
    gpu_name = first[[h.strip() for h in header].index("name")].strip()
    assert gpu_name in shown.stdout, gpu_name


def test_import_to_stdout():
    result = gw("sim", "import", str(capture("query-gpu.csv")), "-o", "-")
    assert result.returncode == 0, result.stderr
    assert isinstance(yaml.safe_load(result.stdout), dict)


def test_import_needs_a_query_gpu_csv():
    result = gw("sim", "import", str(capture("q.txt")), "-o", "-")
    assert result.returncode == 2
    assert "query-gpu" in result.stderr


def test_import_of_an_unreadable_file_is_exit_2(tmp_path):
    missing = tmp_path / "nope.csv"
    result = gw("sim", "import", str(missing), "-o", str(tmp_path / "out.yaml"))
    assert result.returncode == 2
    assert str(missing) in result.stderr
    assert not (tmp_path / "out.yaml").exists()


# --- pynvml through `sim run` ------------------------------------------------------------

PYNVML_SMOKE = r"""
import json, pynvml as n
n.nvmlInit()
out = {"driver": n.nvmlSystemGetDriverVersion(), "gpus": []}
for i in range(n.nvmlDeviceGetCount()):
    h = n.nvmlDeviceGetHandleByIndex(i)
    mem = n.nvmlDeviceGetMemoryInfo(h)
    procs = n.nvmlDeviceGetComputeRunningProcesses(h)
    out["gpus"].append({"name": n.nvmlDeviceGetName(h), "uuid": n.nvmlDeviceGetUUID(h), "total": mem.total,
                        "procs": [[p.pid, p.usedGpuMemory] for p in procs]})
n.nvmlShutdown()
print(json.dumps(out))
"""


def test_pynvml_script_through_sim_run():
    import json
    doc = yaml.safe_load((SCENARIOS / "training.yaml").read_text())
    wrapper = ('/usr/bin/python3 -c "$0" > "$1" && for p in $(echo "$GPUWATCH_SIM_PIDS" | tr "," "\\n" | cut -d= -f2); '
               'do tr "\\0" " " < /proc/$p/cmdline; echo; done')
    import tempfile
    with tempfile.NamedTemporaryFile("r", suffix=".json") as result_file:
        result = gw("sim", "run", "training", "--", "sh", "-c", wrapper, PYNVML_SMOKE, result_file.name)
        assert result.returncode == 0, result.stderr
        out = json.loads(Path(result_file.name).read_text())
    standin_commands = [line.strip() for line in result.stdout.splitlines() if line.strip()]
    shown = gw("sim", "show", "training").stdout
    assert len(out["gpus"]) == gpu_count_of(doc)
    assert out["driver"] == str(doc["driver"]["version"])
    process = doc["gpus"][0]["processes"][0]
    for gpu in out["gpus"]:
        assert gpu["uuid"] in shown
        assert gpu["name"] in shown
        assert gpu["total"] % (1024 * 1024) == 0 and gpu["total"] > 0
        assert len(gpu["procs"]) == 1
        pid, used = gpu["procs"][0]
        assert used == int(process["memory"]) * 1024 * 1024  # MiB in the scenario, bytes in NVML
        assert pid > 0
    # Each GPU's process is a stand-in that showed the scenario's command line while it ran.
    assert standin_commands == [" ".join(process["command"].split())] * len(out["gpus"])


def gpu_count_of(doc):
    return sum(int(g.get("count", 1)) for g in doc.get("gpus", []))


def test_import_without_uuid_keeps_two_gpus_apart(tmp_path):
    """issue 9: the README's own field list (index, name, ...) merged 2 GPUs into one replay."""
    q = tmp_path / "q.csv"
    q.write_text("index, name, memory.used [MiB], utilization.gpu [%]\n"
                 "0, NVIDIA H100 80GB HBM3, 62315 MiB, 99 %\n"
                 "1, NVIDIA H100 80GB HBM3, 1 MiB, 0 %\n")
    out = tmp_path / "node.yaml"
    result = gw("sim", "import", str(q), "-o", str(out))
    assert result.returncode == 0, result.stderr
    scenario = yaml.safe_load(out.read_text())
    assert len(scenario["gpus"]) == 2 and not any("phases" in g for g in scenario["gpus"])
    apps = tmp_path / "apps.csv"  # no GPU column: which GPU each process is on is not known
    apps.write_text("pid, process_name, used_memory [MiB]\n4242, python, 62314 MiB\n4243, python, 100 MiB\n")
    refused = gw("sim", "import", str(q), str(apps), "-o", str(tmp_path / "x.yaml"))
    assert refused.returncode == 2 and "gpu_bus_id" in refused.stderr, refused.stderr


def test_recorded_process_memory_round_trips_through_import(tmp_path):
    """issue 9: a process recorded at 61440 MiB was served back as 19645 MiB. record ->
    history --format csv + the processes (query --query-compute-apps) -> sim import -> the
    simulated driver serves the same memory, to the MiB."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUWATCH_SIM")}
    env["GPUWATCH_SIM_EPOCH_MS"] = str(int(time.time() * 1000) - 120_000)  # training, past its idle start
    env["XDG_STATE_HOME"] = str(tmp_path / "state")
    db = tmp_path / "h.db"
    r = gw("--simulate", "training", "record", "--db", str(db), "--interval", "100ms", "--count", "3", env=env)
    assert r.returncode == 0, r.stderr
    (tmp_path / "h.csv").write_text(gw("history", "--db", str(db), "--since", "all", "--format", "csv").stdout)
    apps = gw("--simulate", "training", "query", "--query-compute-apps=gpu_uuid,pid,process_name,used_memory",
              "--format=csv", env=env)
    assert apps.returncode == 0 and "61440 MiB" in apps.stdout, apps.stdout + apps.stderr
    (tmp_path / "apps.csv").write_text(apps.stdout)
    out = tmp_path / "replayed.yaml"
    imported = gw("sim", "import", str(tmp_path / "h.csv"), str(tmp_path / "apps.csv"), "-o", str(out))
    assert imported.returncode == 0, imported.stderr
    served = gw("--simulate", str(out), "query", "--query-compute-apps=pid,used_memory", "--format=csv,noheader",
                env=env)
    assert served.returncode == 0, served.stderr
    memory = [line.split(", ")[1] for line in served.stdout.splitlines()]
    assert memory == ["61440 MiB", "61440 MiB"], served.stdout
