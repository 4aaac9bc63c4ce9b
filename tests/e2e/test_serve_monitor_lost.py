"""Issue 31: a job whose `gpuwatch run` was killed runs on unrecorded; `serve` recording the same
database says so once at its start, as record and run do (test_run_monitor_lost.py)."""
import os
import select
import signal
import subprocess
import time

from test_run_monitor_lost import BIN, ENV, SIM_LIB, alive, jobs_to_end, start_and_kill_monitor  # noqa: F401


def serve_once(db):
    """Starts `serve --db DB`, stops it once it listens; its stderr."""
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--db", str(db)],
                            env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 10
        line = ""
        while "listening on" not in line:
            assert proc.poll() is None, proc.communicate(timeout=5)
            assert time.monotonic() < deadline, "serve did not start listening within 10 s"
            if select.select([proc.stdout], [], [], 0.2)[0]:
                line = proc.stdout.readline()
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
    return err


def test_serve_announces_a_lost_monitor_once(tmp_path, jobs_to_end):  # noqa: F811
    db = tmp_path / "h.db"
    job_pid = start_and_kill_monitor(db, tmp_path, "lost-to-serve")
    jobs_to_end.append(job_pid)
    assert alive(job_pid), "the job died with its monitor"

    err = serve_once(db)
    notices = [line for line in err.splitlines() if "monitor lost" in line or "is running on unrecorded" in line]
    assert len(notices) == 1, err
    assert notices[0].startswith("gpuwatch serve: ") and "job 1" in notices[0] and "lost-to-serve" in notices[0], err

    err = serve_once(db)  # said once: the next serve is quiet about it
    assert "lost-to-serve" not in err and "unrecorded" not in err, err
