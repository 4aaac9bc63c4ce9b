"""`make run` (issue 4's "Done when"): scripts/run-dashboard, what the Makefile's run target
calls, shows `gpuwatch status` (on the simulated demo node when there is no NVIDIA driver),
then serves in the foreground and prints the dashboard URL; the URL answers; Ctrl-C (SIGINT
to the whole process group, as a terminal sends it) ends it with exit status 0; a taken port
is said so and replaced by a free one, whose URL is the one printed."""
import os
import re
import signal
import socket
import subprocess
import time
import urllib.request

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SCRIPT = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "scripts", "run-dashboard")
SIMULATED = "No NVIDIA driver here: showing the simulated 8-GPU demo node."
DASHBOARD = re.compile(r"^Dashboard: (http://127\.0\.0\.1:(\d+)/)  \(Ctrl-C to stop\)$", re.M)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_dashboard(port, tmp_path, **extra_env):
    """Starts the script in its own process group; returns (proc, output so far, URL, port)."""
    env = dict(os.environ, BUILD_DIR=os.path.dirname(BIN), RUN_PORT=str(port),
               XDG_STATE_HOME=str(tmp_path), **extra_env)  # serve's default history database goes here
    env.pop("GPUWATCH_SIM_SCENARIO", None)
    proc = subprocess.Popen([SCRIPT], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)
    output = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        output.append(line)
        if "listening on" in line:
            break
    text = "".join(output)
    match = DASHBOARD.search(text)
    if match is None or "listening on" not in text:
        stop(proc)
        pytest.fail(f"no dashboard URL and serve line: {text}")
    return proc, text, match.group(1), int(match.group(2))


def stop(proc):
    """Ctrl-C: SIGINT to the process group; returns the exit status."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
    try:
        proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("run-dashboard did not stop on SIGINT")
    return proc.returncode


def get(url):
    deadline = time.monotonic() + 10
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                return r.status
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_shows_status_then_serves_until_ctrl_c(tmp_path):
    port = free_port()
    proc, text, url, shown = run_dashboard(port, tmp_path)
    try:
        assert shown == port
        assert re.search(r"^\[0\] ", text, re.M), f"no status lines: {text}"  # the GPUs, as `gpuwatch status`
        assert text.index("Dashboard: ") > text.index("[0] ")
        if SIMULATED in text:  # no NVIDIA driver here
            assert "gpuwatch serve: listening on http://127.0.0.1:%d/metrics (8 GPUs" % port in text
        assert get(url) == 200
        assert get(url + "metrics") == 200
    finally:
        rc = stop(proc)
    assert rc == 0
    if SIMULATED in text:  # simulated history beside the build, not in the user's history database
        assert os.path.exists(os.path.join(os.path.dirname(BIN), "demo-history.db"))
        assert not os.path.exists(tmp_path / "gpuwatch" / "history.db")


def test_a_taken_port_falls_back_to_a_free_one(tmp_path):
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        proc, text, url, shown = run_dashboard(taken, tmp_path)
        try:
            assert f"Port {taken} on 127.0.0.1 is taken" in text
            assert shown != taken
            assert f"listening on http://127.0.0.1:{shown}/metrics" in text
            assert get(url + "metrics") == 200
        finally:
            rc = stop(proc)
    assert rc == 0


def test_issue_9_no_driver_first_line_is_calm_not_a_failure(tmp_path):
    """Without a driver the demo follows on purpose: the first line says so, calmly, instead of
    status's "initialisation failed: Driver Not Loaded" / "NVML library not found"."""
    proc, text, url, _ = run_dashboard(free_port(), tmp_path,
                                       GPUWATCH_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
    try:
        assert text.splitlines()[0] == SIMULATED, text
        before_serve = text[: text.index("Dashboard: ")]
        for alarming in ("failed", "not found", "Driver Not Loaded", "NVML"):
            assert alarming not in before_serve, before_serve
        assert "[simulated: demo]" in text
        assert get(url) == 200
    finally:
        rc = stop(proc)
    assert rc == 0
