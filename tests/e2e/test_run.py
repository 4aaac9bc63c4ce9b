"""`gpuwatch run -- CMD` (issue 14), end to end on the built binary and the simulated driver.

The job's child is attached to the simulated GPUs with the scenario key `pid_file:` (the
simulator lists the process with the PID the file holds; docs/simulator.md): the child, or a
worker it forks, writes its own PID there.
"""
import copy
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCENARIOS = SOURCE_DIR / "sim" / "scenarios"
FAST = ["--interval", "200ms"]
# How long a job whose GPUs are checked runs: long enough for a few samples to see its process
# on a loaded CI machine (1.5 s once saw none).
JOB_SECONDS = 3


def run(args, env=None, timeout=30):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([GPUWATCH, *args], capture_output=True, text=True, timeout=timeout, env=full_env)


def scenario_with_job(tmp_path, name, pid_file, gpus=None, mig=None):
    """Built-in scenario NAME with a job process (pid_file) on GPUS (indices; None: every GPU) or
    in the MIG instances MIG ({(gpu, instance index)})."""
    doc = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text())
    expanded = []  # `count: N` entries as N entries, so that one GPU of them can get the job
    for entry in doc["gpus"]:
        for _ in range(int(entry.pop("count", 1))):
            expanded.append(copy.deepcopy(entry))
    doc["gpus"] = expanded
    job = {"command": "python job.py", "memory": 100, "pid_file": str(pid_file)}
    for index, entry in enumerate(expanded):
        if mig is None and (gpus is None or index in gpus):
            entry.setdefault("processes", []).append(dict(job))
        for m, instance in enumerate(entry.get("mig", []) or []):
            if mig and (index, m) in mig:
                instance.setdefault("processes", []).append(dict(job))
    path = tmp_path / f"{name}-job.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def summary_of(path):
    return json.loads(Path(path).read_text())


@pytest.mark.parametrize("script,status", [("exit 0", 0), ("exit 3", 3), ("kill -TERM $$", 128 + 15)])
def test_exit_status_passes_through(tmp_path, script, status):
    r = run(["--simulate", "idle", "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "s.json"),
             "--", "sh", "-c", script])
    assert r.returncode == status, r.stderr
    assert "used no GPU" in r.stderr
    s = summary_of(tmp_path / "s.json")
    assert s["exit_status"] == status
    assert s["signal"] == (15 if status == 143 else None)
    assert s["uses_gpu"] is False and s["gpus"] == []
    assert s["name"] == "sh" and s["id"] is None


def test_a_command_that_is_not_found_is_127():
    r = run(["--simulate", "idle", "run", "--no-record", "--", "gpuwatch-no-such-command"])
    assert r.returncode == 127
    assert "gpuwatch-no-such-command" in r.stderr


@pytest.mark.parametrize("sig,name", [(signal.SIGTERM, "TERM"), (signal.SIGINT, "INT")])
def test_signals_sent_to_run_reach_the_child(tmp_path, sig, name):
    ready, got = tmp_path / "ready", tmp_path / "got"
    script = f'trap "echo {name} > {got}; exit 7" {name}; echo ok > {ready}; while :; do sleep 0.05; done'
    p = subprocess.Popen([GPUWATCH, "--simulate", "idle", "run", "--no-record", *FAST, "--", "sh", "-c", script],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        while not ready.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert ready.exists()
        time.sleep(0.2)
        p.send_signal(sig)
        _, err = p.communicate(timeout=10)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 7, err
    assert got.read_text().strip() == name
    assert "failed (exit 7)" in err


def test_a_forked_worker_on_the_gpu_is_attributed(tmp_path):
    pid_file = tmp_path / "worker.pid"
    scen = scenario_with_job(tmp_path, "training", pid_file, gpus={1})
    # The command (outer sh) is not the GPU process: the worker it forks is, and it says its PID.
    worker = f'sh -c "echo \\$\\$ > {pid_file}; sleep 1.5"; true'
    r = run(["--simulate", str(scen), "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "s.json"),
             "--", "sh", "-c", worker])
    assert r.returncode == 0, r.stderr
    s = summary_of(tmp_path / "s.json")
    worker_pid = int(pid_file.read_text())
    assert [g["index"] for g in s["gpus"]] == [1]
    assert s["gpus"][0]["pids"] == [worker_pid]
    assert s["uses_gpu"] is True and s["gpu_hours"] > 0
    assert s["energy_wh"] > 0 and s["energy_source"] in ("counter", "estimated")
    assert s["gpus"][0]["memory_peak_bytes"] <= s["gpus"][0]["memory_total_bytes"]
    for key in ("id", "name", "command", "user", "host", "start_unix_s", "end_unix_s", "wall_s", "exit_status",
                "signal", "uses_gpu", "gpu_hours", "energy_wh", "energy_source", "utilization_mean_ratio",
                "utilization_p95_ratio", "gpus", "throttle_s", "xids", "steps", "findings"):
        assert key in s, key
    assert "GPU-hours" in r.stderr and "Wh" in r.stderr


def test_cuda_visible_devices_selects_gpus_2_and_3_of_demo(tmp_path):
    pid_file = tmp_path / "job.pid"
    scen = scenario_with_job(tmp_path, "demo", pid_file)  # the job's process on every GPU
    r = run(["--simulate", str(scen), "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "s.json"),
             "--", "sh", "-c", f"echo $$ > {pid_file}; sleep {JOB_SECONDS}"], env={"CUDA_VISIBLE_DEVICES": "2,3"})
    assert r.returncode == 0, r.stderr
    assert [g["index"] for g in summary_of(tmp_path / "s.json")["gpus"]] == [2, 3]


def test_mig_uuids_select_instances_on_mig(tmp_path):
    pid_file = tmp_path / "job.pid"
    scen = scenario_with_job(tmp_path, "mig", pid_file, mig={(0, 0), (2, 1)})
    child = ["--", "sh", "-c", f"echo $$ > {pid_file}; sleep {JOB_SECONDS}"]
    r = run(["--simulate", str(scen), "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "all.json"), *child])
    assert r.returncode == 0, r.stderr
    both = summary_of(tmp_path / "all.json")["gpus"]
    assert [g["index"] for g in both] == [0, 2]
    mig_uuid = both[1]["mig"][0]["uuid"]
    assert mig_uuid.startswith("MIG-") and both[1]["mig"][0]["profile"] == "2g.20gb"
    r = run(["--simulate", str(scen), "run", "--no-record", *FAST, "--summary-json", str(tmp_path / "one.json"), *child],
            env={"CUDA_VISIBLE_DEVICES": mig_uuid})
    assert r.returncode == 0, r.stderr
    one = summary_of(tmp_path / "one.json")["gpus"]
    assert [g["index"] for g in one] == [2]
    assert [m["uuid"] for m in one[0]["mig"]] == [mig_uuid]


# A stand-in for the Python package's Monitor: appends steps to GPUWATCH_STEPS_FILE, 41 % of
# each step waiting for data, plus one line that is not a step.
STEPS_WRITER = """
import json, os, sys, time
path = os.environ["GPUWATCH_STEPS_FILE"]
assert os.path.isabs(path), path
open(sys.argv[1], "w").write(os.environ.get("GPUWATCH_JOB_ID", ""))
open(sys.argv[2], "w").write(str(os.getpid()))
with open(path, "a") as f:
    for step in range(100):
        f.write(json.dumps({"step": step, "time": time.time(), "data_wait_s": 0.041, "compute_s": 0.059,
                            "loss": 2.0 - step / 100 if step % 10 else None,
                            "allocated_bytes": 1 << 30, "reserved_bytes": 3 << 29}) + "\\n")
    f.write("not a step\\n")
time.sleep(1.2)
"""


def test_steps_file_starvation_history_and_report(tmp_path):
    pid_file, job_id_file, db = tmp_path / "job.pid", tmp_path / "job.id", tmp_path / "h.db"
    scen = scenario_with_job(tmp_path, "training", pid_file, gpus={0})
    (tmp_path / "steps.py").write_text(STEPS_WRITER)
    r = run(["--simulate", str(scen), "run", "--db", str(db), *FAST, "--name", "starved",
             "--summary-json", str(tmp_path / "s.json"),
             "--", sys.executable, str(tmp_path / "steps.py"), str(job_id_file), str(pid_file)])
    assert r.returncode == 0, r.stderr
    assert "measured from inside the job: 41 % of step time waiting for data" in r.stderr
    assert "num_workers" in r.stderr and "pin_memory" in r.stderr
    s = summary_of(tmp_path / "s.json")
    assert s["steps"] == {"count": 100, "malformed": 1, "data_wait_ratio": pytest.approx(0.41)}
    starved = [f for f in s["findings"] if f["kind"] == "input_starved"]
    assert starved and starved[0]["severity"] == "warning"
    job_id = s["id"]
    assert job_id_file.read_text() == str(job_id)
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT count(*), sum(loss IS NULL), min(reserved_bytes) FROM job_steps WHERE job_id = ?",
                           (job_id,)).fetchone()
        samples = con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    assert rows == (100, 10, 3 << 29)
    assert samples > 0  # the job's samples are in the history, as `record` writes them
    # The steps file's private folder is gone.
    assert not any(p.name.startswith("gpuwatch-run-") and (p / "steps.jsonl").exists()
                   for p in Path(os.environ.get("TMPDIR", "/tmp")).iterdir() if p.is_dir() and os.access(p, os.R_OK))

    jobs = run(["history", "--db", str(db), "--jobs", "--format", "json"])
    assert jobs.returncode == 0, jobs.stderr
    listed = json.loads(jobs.stdout)
    assert [j["name"] for j in listed] == ["starved"]
    assert listed[0]["exit_status"] == 0 and [g["index"] for g in listed[0]["gpus"]] == [0]
    table = run(["history", "--db", str(db), "--jobs"])
    assert "starved" in table.stdout and str(job_id) in table.stdout

    report = run(["report", "--db", str(db), "--job", str(job_id), "--format", "json"])
    assert report.returncode == 0, report.stderr
    doc = json.loads(report.stdout)
    assert doc["job"]["id"] == job_id and doc["job"]["name"] == "starved"
    assert {g["index"] for g in doc["gpus"]} == {0}
    text = run(["report", "--db", str(db), "--job", str(job_id)])
    assert f"Job {job_id}: starved" in text.stdout
    html = tmp_path / "job.html"
    assert run(["report", "--db", str(db), "--job", str(job_id), "-o", str(html)]).returncode == 0
    assert 'id="job-boundaries"' in html.read_text()
    missing = run(["report", "--db", str(db), "--job", "999"])
    assert missing.returncode == 2 and "no job 999" in missing.stderr
