"""`gpuwatch run` prints every finding, and `--simulate` puts its command on the simulated
driver (issue 23), end to end on the built binary.

- A job that uses no GPU but writes a steps file showing 75 % of its step time waiting for data:
  the printed summary says the job used no GPU *and* prints that warning with its advice
  ("try: ..."), as --summary-json carries it.
- `gpuwatch --simulate demo run -- CMD`: CMD reads NVML through ctypes (as pynvml does) and sees
  the demo node's 8 simulated H100s; a `gpuwatch status` run as the job sees them too.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
FAST = ["--interval", "200ms"]


def run(args, env=None, timeout=30):
    full_env = dict(os.environ, **(env or {}))
    # The test's own environment must not already point at a simulated driver.
    for name in ("LD_LIBRARY_PATH", "GPUWATCH_NVML_LIBRARY", "GPUWATCH_SIM_SCENARIO"):
        if env is None or name not in env:
            full_env.pop(name, None)
    return subprocess.run([GPUWATCH, *args], capture_output=True, text=True, timeout=timeout, env=full_env)


# A stand-in for the Python package's Monitor: 40 steps, 75 % of each waiting for data.
STARVED_STEPS = """
import json, os, time
with open(os.environ["GPUWATCH_STEPS_FILE"], "a") as f:
    for step in range(40):
        f.write(json.dumps({"step": step, "time": time.time(), "data_wait_s": 0.075, "compute_s": 0.025}) + "\\n")
"""


def test_a_job_without_a_gpu_prints_its_measured_data_wait_and_what_to_try(tmp_path):
    (tmp_path / "steps.py").write_text(STARVED_STEPS)
    r = run(["--simulate", "idle", "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "s.json"),
             "--", sys.executable, str(tmp_path / "steps.py")])
    assert r.returncode == 0, r.stderr
    err = r.stderr
    assert "this job used no GPU" in err
    assert "steps: 40 recorded by the job, 75 % of step time waiting for data" in err
    line = "    warning input_starved (no GPU): measured from inside the job: 75 % of step time waiting for data\n"
    assert line in err, err
    advice = err[err.index(line) + len(line):].splitlines()
    tries = [a for a in advice if a.startswith("      try: ")]
    assert tries and "num_workers" in " ".join(tries), err
    assert "findings: none" not in err
    # The printed findings are the summary JSON's, one for one.
    summary = json.loads((tmp_path / "s.json").read_text())
    assert summary["uses_gpu"] is False
    kinds = [(f["kind"], f["severity"]) for f in summary["findings"]]
    assert kinds == [("input_starved", "warning")]
    for f in summary["findings"]:
        for a in f["advice"]:
            assert f"      try: {a}\n" in err


NVML_READER = """
import ctypes
lib = ctypes.CDLL("libnvidia-ml.so.1")
assert lib.nvmlInit_v2() == 0
count = ctypes.c_uint()
assert lib.nvmlDeviceGetCount_v2(ctypes.byref(count)) == 0
handle = ctypes.c_void_p()
assert lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(handle)) == 0
name = ctypes.create_string_buffer(96)
assert lib.nvmlDeviceGetName(handle, name, 96) == 0
print("gpus", count.value, name.value.decode())
"""


def test_simulate_runs_the_command_on_the_simulated_driver(tmp_path):
    (tmp_path / "nvml.py").write_text(NVML_READER)
    r = run(["--simulate", "demo", "run", "--no-record", *FAST, "--", sys.executable, str(tmp_path / "nvml.py")])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "gpus 8 " in r.stdout and "H100" in r.stdout, r.stdout + r.stderr


def test_simulate_runs_gpuwatch_status_as_the_job_on_the_same_gpus(tmp_path):
    r = run(["--simulate", "demo", "run", "--no-record", *FAST, "--", GPUWATCH, "status", "--json"])
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    gpus = doc["gpus"] if isinstance(doc, dict) else doc
    assert len(gpus) == 8, r.stdout[:2000]
    assert "H100" in json.dumps(gpus[0])
