"""Issue 31: after `kill -9` of `gpuwatch run`, its command ran on unrecorded and unannounced.
Monitoring never stops a training run, so the job must outlive its monitor; `history --jobs`
then marks the job "monitor lost", and the next `record` or `run` on the database says so once."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
ENV = dict(os.environ, GPUWATCH_SIM_SCENARIO="idle")

# The job: writes its pid, then sleeps (bounded: it ends by itself within 60 s if a test fails).
JOB = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(60)"


def gpuwatch(args, timeout=60):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=ENV, capture_output=True, text=True,
                          timeout=timeout)


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is not alive: it is gone but not reaped yet (its parent died, init reaps it).
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def start_and_kill_monitor(db, tmp_path, name):
    """Starts `gpuwatch run` of JOB, kill -9s it once the job runs; the job's pid."""
    pid_file = tmp_path / f"{name}.pid"
    monitor = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "run", "--db", str(db), "--name", name, "--interval",
                                "200ms", "--", sys.executable, "-c", JOB, str(pid_file)],
                               env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not (pid_file.exists() and pid_file.read_text()):
        assert monitor.poll() is None, monitor.stderr.read().decode()
        assert time.monotonic() < deadline, "the job never started"
        time.sleep(0.05)
    job_pid = int(pid_file.read_text())
    monitor.send_signal(signal.SIGKILL)
    monitor.wait(timeout=10)
    monitor.stderr.close()
    return job_pid


@pytest.fixture
def jobs_to_end():
    pids = []
    yield pids
    for pid in pids:  # only the jobs this test started
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_killed_monitor_leaves_the_job_running_marked_and_announced_once(tmp_path, jobs_to_end):
    db = tmp_path / "h.db"
    job_pid = start_and_kill_monitor(db, tmp_path, "lost-one")
    jobs_to_end.append(job_pid)
    time.sleep(0.3)
    assert alive(job_pid), "the job died with its monitor"

    r = gpuwatch(["history", "--jobs", "--db", str(db)])
    assert r.returncode == 0, r.stderr
    row = next(line for line in r.stdout.splitlines() if "lost-one" in line)
    assert "monitor lost" in row, r.stdout
    r = gpuwatch(["history", "--jobs", "--format", "json", "--db", str(db)])
    assert json.loads(r.stdout)[0]["status"] == "monitor lost"

    r = gpuwatch(["record", "--db", str(db), "--interval", "100ms", "--count", "1"])
    assert r.returncode == 0, r.stderr
    notices = [line for line in r.stderr.splitlines() if "monitor lost" in line]
    assert len(notices) == 1 and "lost-one" in notices[0] and "job 1" in notices[0], r.stderr
    r = gpuwatch(["record", "--db", str(db), "--interval", "100ms", "--count", "1"])
    assert "monitor lost" not in r.stderr, r.stderr  # said once
    r = gpuwatch(["history", "--jobs", "--db", str(db)])
    assert "monitor lost" in next(line for line in r.stdout.splitlines() if "lost-one" in line)  # still marked

    # The next `run` says so too, for a job lost since; its own job is recorded as usual.
    second_pid = start_and_kill_monitor(db, tmp_path, "lost-two")
    jobs_to_end.append(second_pid)
    r = gpuwatch(["run", "--db", str(db), "--name", "after", "--", "true"])
    assert r.returncode == 0, r.stderr
    notices = [line for line in r.stderr.splitlines() if "monitor lost" in line]
    assert len(notices) == 1 and "lost-two" in notices[0], r.stderr
    r = gpuwatch(["history", "--jobs", "--format", "json", "--db", str(db)])
    by_name = {job["name"]: job for job in json.loads(r.stdout)}
    assert by_name["after"]["exit_status"] == 0 and "status" not in by_name["after"]
    assert by_name["lost-two"]["status"] == "monitor lost"


def test_a_running_job_whose_monitor_lives_is_not_lost(tmp_path):
    db = tmp_path / "h.db"
    pid_file = tmp_path / "live.pid"
    monitor = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "run", "--db", str(db), "--name", "live", "--",
                                sys.executable, "-c", JOB.replace("time.sleep(60)", "time.sleep(3)"), str(pid_file)],
                               env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not (pid_file.exists() and pid_file.read_text()):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        r = gpuwatch(["history", "--jobs", "--db", str(db)])
        assert r.returncode == 0, r.stderr
        assert "monitor lost" not in r.stdout, r.stdout
        r = gpuwatch(["record", "--db", str(db), "--interval", "100ms", "--count", "1"])
        assert "monitor lost" not in r.stderr, r.stderr
    finally:
        monitor.wait(timeout=30)
    assert monitor.returncode == 0
