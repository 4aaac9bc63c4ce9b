"""Helpers of the VictoriaMetrics remote-write tests (issue 29): Debian's `victoria-metrics` as a
receiver on 127.0.0.1 with its own storage folder, and `gpuwatch serve` pushing to it with its
log in a file (a pipe would fill during a long outage and block serve)."""
import json
import os
import re
import shutil
import signal
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from test_remote_write import wait_for

VICTORIA = shutil.which("victoria-metrics")
skip_without_victoria = pytest.mark.skipif(
    VICTORIA is None, reason="victoria-metrics missing: scripts/install-deps installs it (Debian package victoria-metrics)")
LISTENING = re.compile(r"listening on (https?://[^/\s]+)/metrics")


class VictoriaMetrics:
    """Single-node VictoriaMetrics. -search.latencyOffset=0s: samples are visible to queries at
    once (the default hides the last 30 s); its remote-write endpoint is /api/v1/write."""

    def __init__(self, data_dir, port, *extra):
        self.port = port
        self.data_dir = data_dir
        self.extra = extra
        self.log_path = os.path.join(os.path.dirname(str(data_dir)), f"victoria-{port}.log")
        self.proc = None
        self.start()

    @property
    def write_url(self):
        return f"http://127.0.0.1:{self.port}/api/v1/write"

    def start(self):
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen([VICTORIA, f"-httpListenAddr=127.0.0.1:{self.port}", f"-storageDataPath={self.data_dir}",
                                      "-retentionPeriod=1d", "-search.latencyOffset=0s", *self.extra],
                                     stdout=log, stderr=subprocess.STDOUT)
        log.close()
        wait_for("victoria-metrics /health", self._healthy, timeout=15)

    def _healthy(self):
        if self.proc.poll() is not None:
            pytest.fail(f"victoria-metrics exited {self.proc.returncode}: {open(self.log_path).read()[-2000:]}")
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/health", timeout=2) as r:
            return r.status == 200

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # flushes its in-memory rows to disk
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def flush(self):
        """Makes what was received searchable now: VictoriaMetrics otherwise indexes new series
        in the background, measured ~10 s after their first sample here."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/internal/force_flush", timeout=5) as r:
            assert r.status == 200

    def get_json(self, path, **params):
        self.flush()
        url = f"http://127.0.0.1:{self.port}{path}?" + urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return body["data"]

    def query(self, promql, at=None):
        params = {"query": promql}
        if at is not None:
            params["time"] = f"{at:.3f}"
        return self.get_json("/api/v1/query", **params)["result"]

    def export(self, selector, start, end):
        """Raw samples: [(timestamp ms, value)] per series, as stored (no lookback, no step)."""
        self.flush()
        url = f"http://127.0.0.1:{self.port}/api/v1/export?" + urllib.parse.urlencode(
            {"match[]": selector, "start": f"{start:.3f}", "end": f"{end:.3f}"})
        with urllib.request.urlopen(url, timeout=10) as r:
            lines = [json.loads(line) for line in r.read().decode().splitlines() if line.strip()]
        return [(line["metric"], list(zip(line["timestamps"], line["values"]))) for line in lines]


class PushingServe:
    """`gpuwatch --simulate SCENARIO serve --remote-write URL ...`, its stderr in LOG_PATH."""

    def __init__(self, env, log_path, *extra):
        self.log_path = log_path
        self.log = open(log_path, "w")
        self.proc = subprocess.Popen([os.environ["GPUWATCH_BIN"], "--simulate", env["GPUWATCH_SIM_SCENARIO"], "serve",
                                      "--listen", "127.0.0.1:0", "--no-record", *extra],
                                     env=env, stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()  # the first line says where it listens; nothing else follows on stdout
        match = LISTENING.search(line)
        if not match:
            self.stop()
            pytest.fail(f"serve did not start: {line!r} {self.stderr()!r}")
        self.url = match.group(1)

    def stderr(self):
        with open(self.log_path) as f:
            return f.read()

    def metrics(self):
        with urllib.request.urlopen(f"{self.url}/metrics", timeout=5) as r:
            return r.read().decode()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        return self.proc.returncode


def buffer_bytes(folder):
    """The bytes of the buffer's segment files (what its max_size bounds)."""
    try:
        return sum(e.stat().st_size for e in os.scandir(folder) if e.is_file())
    except FileNotFoundError:
        return 0


def metric_value(metrics_text, name, **labels):
    """The value of NAME{LABELS...} in an exposition body, or None when absent."""
    for line in metrics_text.splitlines():
        if not line.startswith(name + "{") and not line.startswith(name + " "):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            return float(line.rsplit(" ", 1)[1])
    return None
