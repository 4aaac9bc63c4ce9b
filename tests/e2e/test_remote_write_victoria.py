"""serve and record --remote-write (issue 29) into Debian's real VictoriaMetrics (`victoria-metrics`,
1.79): PromQL over the pushed series answers as /metrics does (one gpuwatch_up per simulated
GPU, a per-GPU value equal to the one /metrics showed at that time), and every query of the
shipped Grafana dashboard runs over VictoriaMetrics's Prometheus API (what the fleet recipe in
deploy/fleet/ points Grafana at)."""
import json
import os
import re
import subprocess
import time

import pytest

from test_remote_write import wait_for
from test_serve import sim_env
from test_serve_prometheus import free_port
from victoria_metrics import PushingServe, VictoriaMetrics, metric_value, skip_without_victoria

pytestmark = skip_without_victoria
INTERVAL_S = 0.5
CLUSTER = "e2e-victoria"
DASHBOARD = os.path.join(os.environ.get("GPUWATCH_SOURCE_DIR", "."), "deploy", "grafana", "gpuwatch-dashboard.json")


@pytest.fixture(scope="module")
def pushed(tmp_path_factory):
    """One VictoriaMetrics and one serve on the demo scenario pushing to it at 0.5 s."""
    tmp = tmp_path_factory.mktemp("victoria")
    receiver = VictoriaMetrics(tmp / "data", free_port())
    config = tmp / "push.yaml"
    config.write_text(f"external_labels: {{cluster: {CLUSTER}, node: node-a}}\n"
                      f"buffer: {{dir: {tmp / 'buffer'}, max_size: 16MiB}}\n")
    serve = PushingServe(sim_env("demo"), tmp / "serve.log", "--interval", f"{int(INTERVAL_S * 1000)}ms",
                         "--remote-write", receiver.write_url, "--remote-write-config", str(config))
    try:
        yield receiver, serve
    finally:
        serve.stop()
        receiver.stop()


def test_one_gpuwatch_up_per_simulated_gpu(pushed):
    receiver, serve = pushed
    gpus = wait_for("gpuwatch_gpus on /metrics", lambda: metric_value(serve.metrics(), "gpuwatch_gpus"))
    assert gpus == 8  # the demo scenario's GPUs
    got = wait_for("every GPU up in VictoriaMetrics", lambda: [
        r for r in receiver.query(f'count(gpuwatch_up{{cluster="{CLUSTER}",node="node-a",job="gpuwatch"}} == 1)')
        if float(r["value"][1]) == gpus])
    assert float(got[0]["value"][1]) == gpus
    # One series up per GPU, each with the labels a scrape would add. (== 1: a push before the
    # first sample carries gpuwatch_up 0, possibly with fewer labels, as /metrics says then.)
    per_gpu = receiver.query(f'gpuwatch_up{{cluster="{CLUSTER}"}} == 1')
    assert sorted(int(r["metric"]["gpu"]) for r in per_gpu) == list(range(int(gpus))), per_gpu
    assert all(r["metric"]["instance"] and r["metric"]["uuid"].startswith("GPU-") for r in per_gpu), per_gpu


def test_a_per_gpu_value_matches_metrics_at_that_time(pushed):
    """The power of GPU 3 that /metrics answered at time t is a sample VictoriaMetrics stored
    within one interval of t. (The push renders the /metrics body on its own tick and stamps it
    then: measured, the pushed sample carries a time up to one interval after the /metrics read.)"""
    receiver, serve = pushed
    wait_for("samples in VictoriaMetrics", lambda: receiver.query(f'gpuwatch_power_draw_watts{{cluster="{CLUSTER}",gpu="3"}}'))
    seen = []
    for _ in range(3):  # a few readings: each must be found, so a stale or wrong push fails
        before = time.time()
        value = metric_value(serve.metrics(), "gpuwatch_power_draw_watts", gpu="3")
        assert value is not None and value > 0
        seen.append((before, value))
        time.sleep(INTERVAL_S * 1.3)
    time.sleep(INTERVAL_S * 3)  # the last reading's tick pushed

    for at, value in seen:
        series = receiver.export(f'gpuwatch_power_draw_watts{{cluster="{CLUSTER}",gpu="3"}}',
                                 at - INTERVAL_S - 0.15, at + INTERVAL_S + 0.15)
        assert len(series) == 1, series
        samples = series[0][1]
        near = [v for ts, v in samples if at - INTERVAL_S - 0.15 <= ts / 1000 <= at + INTERVAL_S + 0.15]
        assert any(abs(v - value) <= 1e-6 * max(1.0, abs(value)) for v in near), (at, value, samples)
        # And PromQL at that sample's time answers the same value.
        ts = next(ts for ts, v in samples if abs(v - value) <= 1e-6 * max(1.0, abs(value)))
        answer = receiver.query(f'gpuwatch_power_draw_watts{{cluster="{CLUSTER}",gpu="3"}}', at=ts / 1000)
        assert abs(float(answer[0]["value"][1]) - value) <= 1e-6 * max(1.0, abs(value)), answer


def dashboard_queries():
    """Every target expression of the shipped dashboard, with Grafana's variables as 'All'."""
    with open(DASHBOARD) as f:
        board = json.load(f)
    exprs = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("expr"), str):
                exprs.append(node["expr"])
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)
    walk(board)
    substitutions = {"$__rate_interval": "1m", "$__range": "5m", "${instance}": ".+", "$instance": ".+",
                     "${gpu}": ".+", "$gpu": ".+"}
    out = []
    for expr in exprs:
        for var, value in substitutions.items():
            expr = expr.replace(var, value)
        assert "$" not in expr, f"a dashboard variable this test does not know: {expr}"
        out.append(expr)
    return out


def test_the_shipped_dashboard_runs_over_victoria_metrics(pushed):
    """Grafana's Prometheus data source, pointed at VictoriaMetrics (deploy/fleet/), sends these
    PromQL queries and label_values() look-ups: each must be accepted, and the core panels filled."""
    receiver, serve = pushed
    wait_for("energy pushed twice (rate needs two samples)", lambda: receiver.query(
        f'count_over_time(gpuwatch_energy_joules_total{{cluster="{CLUSTER}",gpu="0"}}[1m]) > 2'))
    queries = dashboard_queries()
    assert len(queries) >= 30, queries
    empty = []
    for expr in queries:
        result = receiver.query(expr)  # asserts status success
        if not result:
            empty.append(expr)
    core = [q for q in queries if re.match(r"^(sum\()?(gpuwatch_up|gpuwatch_power_draw_watts|gpuwatch_gpu_info|"
                                           r"gpuwatch_utilization_gpu_ratio|gpuwatch_temperature_gpu_celsius)\{", q)
            or q.startswith("rate(gpuwatch_energy_joules_total")]
    assert len(core) >= 6, core
    assert not [q for q in core if q in empty], empty
    # The instance and gpu variables: label_values() is /api/v1/label/NAME/values?match[]=...
    instances = receiver.get_json("/api/v1/label/instance/values", **{"match[]": "gpuwatch_gpu_info"})
    assert len(instances) == 1 and instances[0], instances
    gpus = receiver.get_json("/api/v1/label/gpu/values", **{"match[]": f'gpuwatch_gpu_info{{instance=~"{instances[0]}"}}'})
    assert sorted(gpus, key=int) == [str(i) for i in range(8)]


def test_record_pushes_into_victoria_metrics(tmp_path):
    receiver = VictoriaMetrics(tmp_path / "data", free_port())
    config = tmp_path / "push.yaml"
    config.write_text(f"external_labels: {{cluster: e2e-victoria-record}}\nbuffer: {{dir: {tmp_path / 'buffer'}}}\n")
    try:
        done = subprocess.run([os.environ["GPUWATCH_BIN"], "--simulate", "demo", "record", "--db", str(tmp_path / "h.db"),
                               "--interval", "500ms", "-c", "6", "--remote-write", receiver.write_url,
                               "--remote-write-config", str(config)],
                              env=sim_env("demo"), capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        got = wait_for("record's samples in VictoriaMetrics", lambda: receiver.query(
            'count(count_over_time(gpuwatch_up{cluster="e2e-victoria-record",job="gpuwatch"}[1m]) >= 4)'))
        assert float(got[0]["value"][1]) == 8, got  # every GPU, 4 or more of its 6 ticks (the last may stay buffered)
    finally:
        receiver.stop()
