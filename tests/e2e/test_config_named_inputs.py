"""Issue 31 (security), part B: what a config names. token_file / url_file of a notify
channel and password_file of `top --connect-config` go through the bounded regular-file read
(/dev/zero or a FIFO: a clear error naming the file, at once); the exec channel's command gets
a scrubbed environment (never another channel's token_env secret); and `top --connect` keeps at
most 64 GPUs and 1,024 processes a GPU of one host, saying so on screen."""
import http.server
import json
import os
import re
import subprocess
import threading
import time

import pytest

from test_top import Top

BIN = os.environ["GPUWATCH_BIN"]


def run(*args, env=None, timeout=30):
    started = time.monotonic()
    out = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)
    return out, time.monotonic() - started


@pytest.fixture(params=["devzero", "fifo"])
def hostile_file(request, tmp_path):
    if request.param == "devzero":
        return "/dev/zero", "a device"
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return str(path), "a FIFO"


@pytest.mark.parametrize("key", ["token_file", "url_file"])
def test_a_notify_secret_file_that_is_a_device_or_fifo_is_refused_at_once(tmp_path, hostile_file, key):
    path, what = hostile_file
    config = tmp_path / "notify.yaml"
    url = "" if key == "url_file" else "    url: http://127.0.0.1:9/topic\n"
    config.write_text(f"channels:\n  pager:\n    type: ntfy\n{url}    {key}: {path}\n")
    out, elapsed = run("alerts", "test", "--notify-config", str(config), "pager")
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert elapsed < 3, f"took {elapsed:.1f} s"
    line = 5 if key == "token_file" else 4
    assert f"notify.yaml:{line}: channels.pager.{key}: {key} '{path}' is {what}" in out.stderr, out.stderr


def test_a_connect_password_file_that_is_a_device_or_fifo_is_refused_at_once(tmp_path, hostile_file):
    path, what = hostile_file
    config = tmp_path / "hosts.yaml"
    config.write_text(f"hosts:\n  - url: http://127.0.0.1:9\n    basic_auth:\n      username: a\n      password_file: {path}\n")
    out, elapsed = run("top", "--connect-config", str(config))
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert elapsed < 3, f"took {elapsed:.1f} s"
    assert f"hosts.yaml:5: hosts[0].basic_auth.password_file: password_file '{path}' is {what}" in out.stderr, out.stderr


def test_the_exec_channel_never_sees_another_channels_secret(tmp_path):
    config = tmp_path / "notify.yaml"
    got = tmp_path / "env.txt"
    config.write_text("channels:\n"
                      "  pager:\n    type: ntfy\n    url: http://127.0.0.1:9/topic\n    token_env: SECRET_TOKEN\n"
                      f"  runner:\n    type: exec\n    command: env > {got}\n    env: [RUNBOOK_URL]\n")
    env = dict(os.environ, SECRET_TOKEN="tk_do_not_leak", SERVE_ONLY_THING="also-private",
               RUNBOOK_URL="https://wiki.example/runbook")
    out, _ = run("alerts", "test", "--notify-config", str(config), "runner", env=env)
    assert out.returncode == 0, out.stderr
    seen = dict(line.split("=", 1) for line in got.read_text().splitlines() if "=" in line)
    assert "tk_do_not_leak" not in got.read_text()
    assert "SECRET_TOKEN" not in seen and "SERVE_ONLY_THING" not in seen, seen
    assert seen.get("RUNBOOK_URL") == "https://wiki.example/runbook"  # what the channel names
    assert seen.get("PATH") == os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin")


def hostile_snapshot(gpus, processes):
    gpu_fields = {"name": "NVIDIA H100", "uuid": "GPU-0", "up": True, "state": "ok", "sample_age_seconds": 0.1,
                  "utilization_gpu_ratio": 0.5, "memory_used_bytes": 1 << 30, "memory_total_bytes": 80 << 30,
                  "power_draw_w": 300.0, "temperature_gpu_c": 60, "findings": []}
    out = []
    for i in range(gpus):
        gpu = dict(gpu_fields, index=i, uuid=f"GPU-{i:08d}")
        gpu["processes"] = [{"pid": 10000 + i * processes + p, "name": "python", "type": "C",
                             "used_memory_bytes": 1 << 28} for p in range(processes)]
        out.append(gpu)
    return json.dumps({"driver_version": "550.54.15", "gpus": out}).encode()


class HostileServer:
    """A loopback stand-in for a `gpuwatch serve` that reports 5,000 GPUs x 3 processes."""

    def __init__(self, body):
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802
                if self.path.startswith("/api/v1/snapshot"):
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:  # no event stream: top polls
                    self.send_response(404)
                    self.send_header("Content-Length", "0")
                    self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def peak_rss_mib(pane_pid):
    """VmHWM of the gpuwatch process under the tmux pane's shell."""
    children = subprocess.run(["pgrep", "-P", str(pane_pid)], capture_output=True, text=True).stdout.split()
    for child in children:
        try:
            status = open(f"/proc/{child}/status").read()
            exe = os.readlink(f"/proc/{child}/exe")
        except OSError:
            continue
        if os.path.basename(exe) == os.path.basename(BIN):
            return int(re.search(r"VmHWM:\s+(\d+) kB", status).group(1)) / 1024
    return None


def test_top_connect_caps_a_hosts_gpus_and_says_so(tmp_path):
    server = HostileServer(hostile_snapshot(5000, 3))
    try:
        with Top(tmp_path, [], 220, 40, top_args=["--connect", server.url, "-d", "500ms", "--layout", "lines"]) as top:
            screen = top.wait_for(lambda s: "showing 64 of 5000 GPUs" in s, seconds=20, what="the cap message")
            assert "cap: 64 GPUs" in screen
            time.sleep(1.5)  # a few more polls of the same 5,000 GPUs
            pane = int(top.tmux("display", "-p", "-t", "t", "#{pane_pid}").stdout.strip())
            peak = peak_rss_mib(pane)
            assert peak is not None, "gpuwatch top not found under the pane"
            assert peak < 150, f"top's peak RSS was {peak:.0f} MiB"
            assert top.quit() == 0
    finally:
        server.close()


def test_an_alerts_rules_file_that_is_a_device_or_fifo_is_refused_at_once(hostile_file):
    """`alerts rules --alert-rules` reads its file as serve does: bounded, never blocking."""
    path, what = hostile_file
    out, elapsed = run("alerts", "rules", "--alert-rules", path, timeout=10)
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert elapsed < 3, f"took {elapsed:.1f} s"
    assert f"gpuwatch alerts rules: --alert-rules '{path}' is {what}" in out.stderr, out.stderr
    assert out.stdout == ""


def test_an_alerts_rules_file_over_one_mib_is_refused_unread(tmp_path):
    rules = tmp_path / "rules.yaml"
    rules.write_text("# padding\n" * 150_000)  # 1.4 MB of comments: valid YAML, over the 1 MiB limit
    out, _ = run("alerts", "rules", "--alert-rules", str(rules))
    assert out.returncode == 2, (out.returncode, out.stderr)
    assert "bytes: the limit is 1 MiB" in out.stderr, out.stderr
