"""serve --remote-write (issue 29) into Debian's real Prometheus (2.42) with its remote-write
receiver on: PromQL answers over the pushed series with the configured external labels; then the
receiver is stopped for a few seconds and started again, and the samples of the outage arrive
afterwards, from the on-disk buffer, in order (Prometheus refuses out-of-order samples)."""
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from test_serve import Server, sim_env
from test_serve_prometheus import free_port

PROMETHEUS = shutil.which("prometheus")
pytestmark = pytest.mark.skipif(PROMETHEUS is None,
                                reason="prometheus missing: scripts/install-deps installs it (Debian package)")
INTERVAL_S = 0.5


class Receiver:
    """Prometheus as a remote-write receiver only (it scrapes nothing)."""

    def __init__(self, tmp_path, port):
        self.port = port
        config = tmp_path / "receiver.yml"
        config.write_text("global:\n  evaluation_interval: 1m\n")
        self.log = open(tmp_path / "receiver.log", "a")
        self.proc = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                                      f"--web.listen-address=127.0.0.1:{port}", "--web.enable-remote-write-receiver"],
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def query(self, promql, at=None):
        import json
        import urllib.parse
        params = {"query": promql}
        if at is not None:
            params["time"] = f"{at:.3f}"
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return body["data"]["result"]

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=20)
        self.log.close()


def wait_for(what, check, timeout=20.0):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            result = check()
            if result:
                return result
        except OSError as e:  # not listening yet
            last = e
        time.sleep(0.25)
    pytest.fail(f"{what} not seen within {timeout} s (last error: {last})")


def push_health(server):
    text = urllib.request.urlopen(f"{server.url}/metrics", timeout=5).read().decode()
    return {m.group(1): float(m.group(2))
            for m in re.finditer(r"^gpuwatch_remote_write_samples_(\w+) (\S+)$", text, re.M)}


def test_pushed_series_reach_prometheus_and_an_outage_loses_nothing(tmp_path):
    port = free_port()
    receiver = Receiver(tmp_path, port)
    push_config = tmp_path / "push.yaml"
    push_config.write_text(f"external_labels: {{cluster: e2e-push, site: lab}}\n"
                           f"buffer: {{dir: {tmp_path / 'buffer'}, max_size: 64MiB, max_age: 1h}}\n")
    server = Server(sim_env("demo"), "--no-record", "--interval", f"{int(INTERVAL_S * 1000)}ms",
                    "--remote-write", f"http://127.0.0.1:{port}/api/v1/write", "--remote-write-config", str(push_config))
    try:
        # The first push may precede the first sample (gpuwatch_up 0, as /metrics says then).
        up = wait_for("gpuwatch_up 1 pushed with the external labels",
                      lambda: receiver.query('gpuwatch_up{cluster="e2e-push",site="lab",job="gpuwatch"} == 1'))
        assert {r["metric"].get("gpu") for r in up} >= {"0"}, up
        assert all(r["metric"]["instance"] for r in up), up
        # The push's own health is on /metrics, and itself pushed.
        wait_for("sent samples counted", lambda: push_health(server).get("sent_total", 0) > 0)
        wait_for("the health series pushed",
                 lambda: receiver.query('gpuwatch_remote_write_samples_sent_total{cluster="e2e-push"} > 0'))

        # The outage: the receiver stops; serve keeps sampling into its buffer.
        receiver.stop()
        down_from = time.time()
        time.sleep(4.0)
        health = push_health(server)
        assert health["pending"] > 0, health
        assert health["failed_total"] > 0, health
        down_to = time.time()
        receiver = Receiver(tmp_path, port)  # the same storage: what came before is kept
        wait_for("the buffer drained", lambda: push_health(server)["pending"] == 0, timeout=30)
        assert push_health(server)["dropped_total"] == 0

        # Every tick of the outage is now in Prometheus: one sample per 0.5 s for GPU 0.
        span = down_to - down_from
        got = receiver.query(f'max(count_over_time(gpuwatch_up{{cluster="e2e-push",gpu="0"}}[{int(span * 1000)}ms]))', at=down_to)
        assert got, "no outage samples at all"
        expected = span / INTERVAL_S
        assert float(got[0]["value"][1]) >= expected - 2, (got, expected)
    finally:
        server.proc.send_signal(signal.SIGTERM)
        try:
            server.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.proc.kill()
        if receiver.proc.poll() is None:
            receiver.stop()


def test_record_pushes_its_samples(tmp_path):
    port = free_port()
    receiver = Receiver(tmp_path, port)
    push_config = tmp_path / "push.yaml"
    push_config.write_text(f"external_labels: {{cluster: e2e-record}}\nbuffer: {{dir: {tmp_path / 'buffer'}}}\n")
    try:
        wait_for("the receiver ready", lambda: receiver.query("vector(1)"))
        env = sim_env("demo")
        done = subprocess.run([os.environ["GPUWATCH_BIN"], "--simulate", "demo", "record", "--db", str(tmp_path / "h.db"),
                               "--interval", "500ms", "-c", "8", "--remote-write", f"http://127.0.0.1:{port}/api/v1/write",
                               "--remote-write-config", str(push_config)],
                              env=env, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        got = wait_for("record's samples pushed", lambda: receiver.query(
            'max(count_over_time(gpuwatch_up{cluster="e2e-record",gpu="0",job="gpuwatch"}[1m]))'))
        assert float(got[0]["value"][1]) >= 5, got  # of the 8 ticks, the last may stay buffered at exit
    finally:
        receiver.stop()


def test_pushes_reuse_one_connection(tmp_path):
    """The push thread keeps its connection to the receiver (curl's handle per thread, reset
    between requests): one TCP (and TLS) handshake for many pushes, not one a second."""
    import http.server
    import threading

    peers = []

    class Count(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as Prometheus's receiver

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            peers.append(self.client_address)
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Count)
    thread = threading.Thread(target=receiver.serve_forever, daemon=True)
    thread.start()
    push_config = tmp_path / "push.yaml"
    push_config.write_text(f"buffer: {{dir: {tmp_path / 'buffer'}}}\n")
    server = Server(sim_env("demo"), "--no-record", "--interval", "200ms", "--remote-write",
                    f"http://127.0.0.1:{receiver.server_port}/api/v1/write", "--remote-write-config", str(push_config))
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and len(peers) < 8:
            time.sleep(0.1)
    finally:
        server.stop()
        receiver.shutdown()
        receiver.server_close()
    assert len(peers) >= 8, f"{len(peers)} pushes arrived"
    assert len(set(peers)) == 1, f"{len(set(peers))} connections for {len(peers)} pushes: {sorted(set(peers))}"
