"""MIG instances and their GPM activity in `gpuwatch serve` (issue 4): on the `mig` scenario
(an A100 and two H100s in MIG mode; GPU 2 trains in GPU instances 1 and 2), a real Prometheus
(Debian's 2.42) scrapes `--metrics-compat nvidia-smi`, and every panel query of the three
nvidia_gpu_exporter dashboards that mentions nvidia_smi_mig_ returns data. The native
gpuwatch_mig_* series carry the same: inventory and memory for every MIG GPU, activity only on
Hopper (absent on the A100, never 0), from the second sample on."""
import os
import shutil
import subprocess
import time

import pytest

from test_serve import Server, parse, series, sim_env, value
from test_serve_nvidia_smi_compat import DASHBOARDS, REALDATA, grafana_to_promql
from test_serve_prometheus import PROMETHEUS, dashboard_queries, prometheus_on  # noqa: F401 (fixture)

MIB = 1024 * 1024


def mig_panel_queries():
    queries = []
    for name in DASHBOARDS:
        queries += [(name, q) for q in dashboard_queries(os.path.join(REALDATA, name)) if "nvidia_smi_mig_" in q]
    return queries


def wait_for_activity(server, timeout=10.0):
    """/metrics once the GPU instances' activity (second sample on) is there."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = server.metrics()
        if "gpuwatch_mig_tensor_active_ratio{" in body:
            return parse(body)
        time.sleep(0.1)
    pytest.fail("no gpuwatch_mig_tensor_active_ratio within the timeout")


def test_native_mig_series_inventory_memory_and_activity():
    with Server(sim_env("mig", seconds_in=30), "--interval", "250ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        samples = wait_for_activity(server)
        info = series(samples, "gpuwatch_mig_info")
        assert len(info) == 7  # 3 on the A100, 1 and 3 on the H100s
        gpu2 = sorted((l for l, _ in info if l["gpu"] == "2"), key=lambda l: l["gpu_instance_id"])
        assert [l["profile"] for l in gpu2] == ["3g.40gb", "2g.20gb", "1g.10gb"]
        assert [l["gpu_instance_id"] for l in gpu2] == ["1", "2", "3"]
        assert all(l["mig_uuid"].startswith("MIG-") and l["compute_instance_id"] == "0" for l in gpu2)
        # Memory once per GPU instance, in bytes.
        assert value(samples, "gpuwatch_mig_memory_total_bytes", gpu=2, gpu_instance_id=1) == 40448 * MIB
        assert value(samples, "gpuwatch_mig_memory_used_bytes", gpu=2, gpu_instance_id=1) == 31000 * MIB
        assert value(samples, "gpuwatch_mig_memory_total_bytes", gpu=0, gpu_instance_id=3) == 9728 * MIB
        # Activity: training in instance 1, nothing in instance 3 (a measured 0), none on the A100.
        assert value(samples, "gpuwatch_mig_tensor_active_ratio", gpu=2, gpu_instance_id=1) > 0.5
        assert value(samples, "gpuwatch_mig_tensor_active_ratio", gpu=2, gpu_instance_id=3) == 0.0
        assert value(samples, "gpuwatch_mig_sm_active_ratio", gpu=2, gpu_instance_id=2) > 0.5
        assert not series(samples, "gpuwatch_mig_tensor_active_ratio", gpu=0)
        assert value(samples, "gpuwatch_mig_pcie_rx_bytes_per_second", gpu=2, gpu_instance_id=1) > 1e6
        # The parents in MIG mode have no whole-GPU GPM series, and no utilization either.
        assert not series(samples, "gpuwatch_tensor_active_ratio")
        # nvidia_gpu_exporter's names: uuid is the parent's, without "GPU-".
        smi = series(samples, "nvidia_smi_mig_tensor_activity_ratio")
        assert len(smi) == 4 and all(not l["uuid"].startswith("GPU-") for l, _ in smi)  # both H100s' instances
        assert value(samples, "gpuwatch_mig_tensor_active_ratio", gpu=1, gpu_instance_id=1) == 0.0  # the idle H100
        assert len(series(samples, "nvidia_smi_mig_info")) == 7
        assert len(series(samples, "nvidia_smi_mig_memory_reserved_bytes")) == 7
        promtool = shutil.which("promtool")
        if promtool:
            body = server.metrics()
            out = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True, timeout=30)
            problems = [l for l in (out.stdout + out.stderr).splitlines()
                        if l.strip() and "nvidia_smi_ecc_errors_" not in l]
            assert not problems, out.stdout + out.stderr


@pytest.mark.skipif(PROMETHEUS is None, reason="prometheus missing: scripts/install-deps installs it")
def test_nvidia_gpu_exporter_mig_panels_return_data(prometheus_on):  # noqa: F811
    queries = mig_panel_queries()
    assert len(queries) >= 6, queries
    with Server(sim_env("mig", seconds_in=30), "--interval", "500ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        instance = server.url.split("//", 1)[1]
        prom = prometheus_on(instance)
        prom.wait_for("the gpuwatch target up", prom.target_up)
        index = prom.wait_for("nvidia_smi_index", lambda: prom.query('nvidia_smi_index{job="gpuwatch"}'))
        assert len(index) == 3
        # The dashboards' gpu variable: the H100 whose GPU instances train (GPU 2).
        uuid = next(r["metric"]["uuid"] for r in index if r["value"][1] == "2")
        prom.wait_for("MIG tensor activity", lambda: prom.query(
            f'nvidia_smi_mig_tensor_activity_ratio{{uuid="{uuid}"}}'))
        empty = [(name, expr) for name, expr in queries if not prom.query(grafana_to_promql(expr, uuid, instance))]
        assert not empty, "MIG panels without data:\n" + "\n".join(f"{n}: {e}" for n, e in empty)
        # The panels' join keeps the profile: tensor activity per profile, high where training runs.
        joined = prom.query(grafana_to_promql(next(e for _, e in queries if "tensor_activity" in e), uuid, instance))
        by_profile = {r["metric"]["profile"]: float(r["value"][1]) for r in joined}
        assert set(by_profile) == {"3g.40gb", "2g.20gb", "1g.10gb"}
        assert by_profile["3g.40gb"] > 0.5 and by_profile["1g.10gb"] == 0.0
