"""A real Prometheus (Debian's 2.42) scrapes `gpuwatch serve` on the simulator, over
loopback, with deploy/prometheus/gpuwatch-rules.yaml loaded: the target is up, PromQL
sees the native series with the scenario's values, and the GpuLost alert fires for the
GPU that the gpu_lost scenario loses while the other keeps reporting."""
import json
import os
import re
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from test_serve import Server, sim_env

PROMETHEUS = shutil.which("prometheus")
RULES = os.path.join(os.environ["GPUWATCH_SOURCE_DIR"], "deploy", "prometheus", "gpuwatch-rules.yaml")
DCGM_DASHBOARD = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "dcgm-exporter", "dcgm-exporter-dashboard.json")
MIB = 1024 * 1024
pytestmark = pytest.mark.skipif(PROMETHEUS is None,
                                reason="prometheus missing: scripts/install-deps installs it (Debian package)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Prometheus:
    def __init__(self, tmp_path, target):
        """TARGET: "host:port", or a list of them (one job, one instance label each)."""
        targets = [target] if isinstance(target, str) else list(target)
        self.port = free_port()
        config = tmp_path / "prometheus.yml"
        config.write_text(f"""
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {RULES}
scrape_configs:
  - job_name: gpuwatch
    scrape_interval: 1s
    scrape_timeout: 900ms
    static_configs:
      - targets: {json.dumps(targets)}
""")
        self.log = open(tmp_path / "prometheus.log", "w")
        self.proc = subprocess.Popen([PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
                                      f"--web.listen-address=127.0.0.1:{self.port}"],
                                     stdout=self.log, stderr=subprocess.STDOUT)

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=5) as r:
            body = json.loads(r.read())
        assert body["status"] == "success", body
        return body["data"]

    def wait_for(self, what, check, timeout=45.0):
        """Polls CHECK (None/False: not yet) until it gives something, bounded."""
        deadline = time.monotonic() + timeout
        last_error = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"prometheus exited: see {self.log.name}")
            try:
                result = check()
                if result:
                    return result
            except OSError as e:  # not listening yet
                last_error = e
            time.sleep(0.25)
        pytest.fail(f"{what} not seen within {timeout} s (last error: {last_error})")

    def target_up(self):
        targets = self.api("targets")["activeTargets"]
        return [t for t in targets if t["health"] == "up"]

    def query(self, promql):
        return self.api("query", query=promql)["result"]

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def prometheus_on(tmp_path):
    started = []

    def start(target):
        started.append(Prometheus(tmp_path, target))
        return started[-1]

    yield start
    for p in started:
        p.close()


def test_prometheus_scrapes_serve_and_queries_the_scenario(prometheus_on):
    with Server(sim_env("training", seconds_in=120), "--interval", "500ms") as server:
        server.wait_ready()
        prom = prometheus_on(server.url.split("//", 1)[1])
        up = prom.wait_for("the gpuwatch target up", prom.target_up)
        assert up[0]["labels"]["job"] == "gpuwatch"
        totals = prom.wait_for("gpuwatch_memory_total_bytes", lambda: prom.query("gpuwatch_memory_total_bytes"))
        assert sorted(r["metric"]["gpu"] for r in totals) == ["0", "1"]
        assert all(float(r["value"][1]) == 81920 * MIB for r in totals)  # A100 80GB
        busy = prom.query("gpuwatch_utilization_gpu_ratio > 0.5")
        assert len(busy) == 2
        joined = prom.query('gpuwatch_memory_used_bytes * on (gpu, uuid) group_left (name) gpuwatch_gpu_info')
        assert {r["metric"]["name"] for r in joined} == {"NVIDIA A100-SXM4-80GB"}
        assert prom.query("sum(gpuwatch_up)")[0]["value"][1] == "2"
        rules = prom.api("rules")["groups"]
        assert "GpuHungJob" in [r["name"] for g in rules for r in g["rules"]]


def test_gpu_lost_alert_fires_in_prometheus(prometheus_on):
    # gpu_lost: GPU 1 is lost from t = 30 s; start at 60 s.
    with Server(sim_env("gpu_lost", seconds_in=60), "--interval", "500ms") as server:
        server.wait_ready()
        prom = prometheus_on(server.url.split("//", 1)[1])
        prom.wait_for("the gpuwatch target up", prom.target_up)

        def firing():
            alerts = prom.api("alerts")["alerts"]
            return [a for a in alerts if a["labels"]["alertname"] == "GpuLost" and a["state"] == "firing"]

        alerts = prom.wait_for("GpuLost firing", firing)
        assert [a["labels"]["gpu"] for a in alerts] == ["1"]
        assert alerts[0]["labels"]["severity"] == "critical"
        # The other GPU keeps reporting.
        used = prom.query('gpuwatch_memory_used_bytes{gpu="0"}')
        assert len(used) == 1 and float(used[0]["value"][1]) > 0
        assert prom.query('gpuwatch_memory_used_bytes{gpu="1"}') == []


def dashboard_queries(path):
    with open(path, encoding="utf-8") as f:
        dashboard = json.load(f)
    found = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("expr"), str):
                found.append(node["expr"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(dashboard)
    return found


def test_dcgm_exporter_dashboard_panels_return_data(prometheus_on):
    """Issue 4's acceptance for --metrics-compat dcgm: every panel query of dcgm-exporter's
    dashboard returns data on the Hopper demo node (8 H100), tensor-core activity included
    (NVML GPM); on an A100 node (no GPM) the tensor series is absent, never 0."""
    queries = dashboard_queries(DCGM_DASHBOARD)
    assert len(queries) >= 6
    assert any("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" in q for q in queries)
    with Server(sim_env("demo", seconds_in=10), "--interval", "500ms", "--metrics-compat", "dcgm") as server:
        server.wait_ready()
        prom = prometheus_on(server.url.split("//", 1)[1])
        prom.wait_for("the gpuwatch target up", prom.target_up)
        prom.wait_for("DCGM_FI_DEV_GPU_TEMP", lambda: prom.query("DCGM_FI_DEV_GPU_TEMP"))
        # GPM needs two samples: the tensor series appears from the second one.
        prom.wait_for("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", lambda: prom.query("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE"))
        empty = []
        for expr in queries:
            promql = re.sub(r"\$(instance|gpu)\b", ".+", expr)
            if not prom.query(promql):
                empty.append(expr)
        assert not empty, f"dashboard panels without data: {empty}"
        tensor = prom.query('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{gpu="0"}')
        assert 0.5 < float(tensor[0]["value"][1]) <= 1.0  # training on GPU 0: a ratio, tensor cores busy
        clocks = prom.query('DCGM_FI_DEV_SM_CLOCK{gpu="0"} * 1000000')
        assert 200e6 <= float(clocks[0]["value"][1]) <= 1980e6  # back in hertz, up to the H100's max SM clock
    # The A100 training node: the GPU is busy, yet GPM (Hopper and later) gives no tensor series.
    with Server(sim_env("training", seconds_in=120), "--interval", "200ms", "--metrics-compat", "dcgm") as server:
        server.wait_ready()
        time.sleep(1.0)  # several samples: absence is not the first sample's missing window
        body = server.metrics()
        assert "\nDCGM_FI_DEV_GPU_UTIL{" in body
        assert "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE" not in body and "gpuwatch_tensor_active_ratio" not in body
