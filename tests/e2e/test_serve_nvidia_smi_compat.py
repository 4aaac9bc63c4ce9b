"""`gpuwatch serve --metrics-compat nvidia-smi` (issue 4): nvidia_gpu_exporter's nvidia_smi_*
names. A real Prometheus (Debian's 2.42) scrapes serve on the simulator over loopback, and
every panel query of the three nvidia_gpu_exporter dashboards in realdata returns data,
except the panels listed in EXCLUDED (with the reason). promtool accepts the exposition
with both compatibility families on. Xid events, the GPU recovery action and the NVLink
fabric state come end to end from the simulated driver: the demo's GPU 6 reports Xid 31 at
scenario time 15 s; ecc_errors' A100 reports Xid 48 and asks for a GPU reset."""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from test_serve import BIN, Server, sim_env
from test_serve_prometheus import PROMETHEUS, dashboard_queries, prometheus_on  # noqa: F401 (fixture)

REALDATA = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "nvidia_gpu_exporter")
DASHBOARDS = ["dashboard.json", "dashboard-classic-14574.json", "dashboard-overview.json"]
MIB = 1024 * 1024

# A panel whose query mentions one of these metrics may come back empty; nothing else may.
EXCLUDED = {
    "nvidia_smi_fan_speed_ratio": "the simulated H100 SXM has no fan (NVML: not supported), so no series",
    "nvidia_smi_mig_": "covered by test_serve_mig_gpm.py on the mig scenario",
}


def grafana_to_promql(expr, uuid, instance):
    """Grafana's variables as a single-GPU dashboard view would set them."""
    expr = expr.replace("$__rate_interval", "15s").replace("$job", "gpuwatch").replace("$node", instance)
    return expr.replace("$gpu", uuid)


def series(body, name):
    return [line for line in body.splitlines() if line.startswith(name + "{") or line.startswith(name + " ")]


def test_nvidia_smi_exposition_names_units_and_labels():
    with Server(sim_env("demo", seconds_in=10), "--interval", "500ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        body = server.metrics()
        assert len(series(body, "nvidia_smi_gpu_info")) == 8
        info = series(body, "nvidia_smi_gpu_info")[0]
        assert 'name="NVIDIA H100 80GB HBM3"' in info and 'index="0"' in info, info
        assert 'driver_version="550.90.07"' in info, info
        uuid = re.search(r'uuid="([^"]+)"', info).group(1)
        assert not uuid.startswith("GPU-") and uuid == uuid.lower()
        total = series(body, f'nvidia_smi_memory_total_bytes{{uuid="{uuid}"}}')
        assert len(total) == 1 and float(total[0].split()[-1]) == 81559 * MIB  # bytes, not MiB (H100 80GB)
        util = float(series(body, f'nvidia_smi_utilization_gpu_ratio{{uuid="{uuid}"}}')[0].split()[-1])
        assert 0.5 < util <= 1.0  # training: a ratio, not percent
        clock = float(series(body, f'nvidia_smi_clocks_current_sm_clock_hz{{uuid="{uuid}"}}')[0].split()[-1])
        assert 1e8 < clock < 3e9  # hertz
        assert series(body, "nvidia_smi_pstate")[0].split()[-1] == "0"
        assert not series(body, "nvidia_smi_fan_speed_ratio")  # absent, never 0
        assert len(series(body, "nvidia_smi_compute_app_info")) >= 8
        assert "DCGM_FI_" not in body  # only the families asked for
        assert "\ngpuwatch_up{" in body  # native names stay


def test_both_families_and_promtool_accepts_them():
    with Server(sim_env("demo", seconds_in=10), "--interval", "500ms", "--metrics-compat",
                "dcgm,nvidia-smi") as server:
        server.wait_ready()
        body = server.metrics()
        assert len(series(body, "DCGM_FI_DEV_GPU_UTIL")) == 8
        assert len(series(body, "nvidia_smi_utilization_gpu_ratio")) == 8
        promtool = shutil.which("promtool")
        if promtool is None:
            pytest.skip("promtool missing: scripts/install-deps installs it (Debian package prometheus)")
        out = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True, timeout=30)
        # Only naming-lint warnings about the foreign exporters' own names are allowed (dcgm's
        # names; nvidia_gpu_exporter's ecc *_total gauges), never a format error.
        problems = [l for l in (out.stdout + out.stderr).splitlines()
                    if l.strip() and not l.startswith("DCGM_FI_")
                    and not re.match(r"nvidia_smi_ecc_errors_\w+_total non-counter metrics should not have", l)]
        assert not problems, out.stdout + out.stderr
        rc, _, err = server.stop()
        assert rc == 0, err


def test_unknown_family_lists_nvidia_smi():
    out = subprocess.run([BIN, "--simulate", "demo", "serve", "--metrics-compat", "nvidia-smi,bogus"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2
    assert "bogus" in out.stderr and "nvidia-smi" in out.stderr


@pytest.mark.skipif(PROMETHEUS is None, reason="prometheus missing: scripts/install-deps installs it")
def test_nvidia_gpu_exporter_dashboard_panels_return_data(prometheus_on):  # noqa: F811
    queries = []
    for name in DASHBOARDS:
        found = dashboard_queries(os.path.join(REALDATA, name))
        assert len(found) >= 20, name
        queries += [(name, q) for q in found]
    with Server(sim_env("demo", seconds_in=10), "--interval", "500ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        instance = server.url.split("//", 1)[1]
        prom = prometheus_on(instance)
        prom.wait_for("the gpuwatch target up", prom.target_up)
        # Grafana's variables: job and node from label_values(nvidia_smi_index, ...), gpu a uuid.
        index = prom.wait_for("nvidia_smi_index", lambda: prom.query('nvidia_smi_index{job="gpuwatch"}'))
        assert len(index) == 8 and {r["metric"]["instance"] for r in index} == {instance}
        uuid = next(r["metric"]["uuid"] for r in index if r["value"][1] == "0")
        # rate()/increase() need a few scrapes of the energy counter.
        prom.wait_for("an energy rate", lambda: prom.query(
            f'rate(nvidia_smi_energy_joules_total{{uuid="{uuid}"}}[15s]) > 0'))
        # The demo's Xid 31 (GPU 6, scenario time 15 s); the dashboards' $gpu is that GPU for
        # the Xid panels' queries, as a user looking at the GPU that had the Xid would set it.
        xid = prom.wait_for("the demo's Xid 31", lambda: prom.query('nvidia_smi_xid_errors_total{job="gpuwatch"}'))
        assert [(r["metric"]["xid"], r["value"][1]) for r in xid] == [("31", "1")], xid
        xid_uuid = xid[0]["metric"]["uuid"]
        assert xid_uuid == next(r["metric"]["uuid"] for r in index if r["value"][1] == "6")
        last = prom.query('time() - nvidia_smi_xid_last_timestamp_seconds{job="gpuwatch"}')
        assert 0 <= float(last[0]["value"][1]) < 60, last
        # Healthy H100 SXM boards in an NVSwitch system: no recovery action, fabric registered.
        assert {r["value"][1] for r in prom.query('nvidia_smi_gpu_recovery_action{job="gpuwatch"}')} == {"0"}
        fabric = prom.query('nvidia_smi_fabric_state{job="gpuwatch"}')
        assert len(fabric) == 8 and {r["value"][1] for r in fabric} == {"3"}
        empty, excluded = [], []
        for name, expr in queries:
            gpu = xid_uuid if "xid" in expr else uuid
            if prom.query(grafana_to_promql(expr, gpu, instance)):
                continue
            reasons = [why for metric, why in EXCLUDED.items() if metric in expr]
            (excluded if reasons else empty).append((name, expr))
        assert not empty, "dashboard panels without data:\n" + "\n".join(f"{n}: {e}" for n, e in empty)
        # Every excluded panel is one of EXCLUDED's (fan, MIG), and the panels about things the
        # demo GPUs do have are never among them.
        for _, expr in excluded:
            assert "nvidia_smi_utilization_gpu_ratio" not in expr and "nvidia_smi_memory_used_bytes" not in expr, expr
            assert not re.search(r"nvidia_smi_(xid|gpu_recovery_action|fabric_state)", expr), expr
        print("excluded panels:\n" + "\n".join(f"{n}: {e}" for n, e in excluded))
        # A panel value in the exporter's units: memory allocation is a 0-1 fraction.
        alloc = prom.query(f'nvidia_smi_memory_used_bytes{{uuid="{uuid}"}} / nvidia_smi_memory_total_bytes{{uuid="{uuid}"}}')
        assert 0.1 < float(alloc[0]["value"][1]) < 1.0
        # The dashboards' gpu variable (query_result over gpu_info) lists every GPU.
        gpu_var = prom.query('label_join(label_replace(label_join(nvidia_smi_gpu_info{job="gpuwatch"}, "ni", " #", '
                             '"name", "index"), "us", "($1)", "uuid", "^(........).*"), "gpu_label", " ", "ni", "us")')
        assert len(gpu_var) == 8


def wait_for_metrics(server, pattern, timeout=20.0):
    """The /metrics body once PATTERN (a regex) matches it."""
    deadline = time.monotonic() + timeout
    body = server.metrics()
    while not re.search(pattern, body, re.M) and time.monotonic() < deadline:
        time.sleep(0.2)
        body = server.metrics()
    assert re.search(pattern, body, re.M), f"{pattern!r} never appeared in /metrics:\n{body[-3000:]}"
    return body


def test_xid_and_recovery_action_on_failing_memory():
    # ecc_errors (A100, time_scale 10): Xid 48 with each uncorrectable error, from scenario
    # time 90 s (4 s after this start at 50 s), each asking for a GPU reset.
    with Server(sim_env("ecc_errors", seconds_in=5), "--interval", "200ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        before = server.metrics()
        assert "xid" not in before  # nothing received yet: no series, never a 0
        assert re.search(r'^nvidia_smi_gpu_recovery_action\{uuid="[^"]+"\} 0$', before, re.M), before
        body = wait_for_metrics(server, r'^nvidia_smi_xid_errors_total\{uuid="[^"]+",xid="48"\} 1$')
        assert re.search(r'^gpuwatch_xid_errors_total\{gpu="0",uuid="GPU-[^"]+",vendor="nvidia",xid="48"\} [1-9]', body, re.M)
        stamp = float(re.search(r'^gpuwatch_xid_last_timestamp_seconds\{gpu="0",[^}]*xid="48"\} (\S+)$', body,
                                re.M).group(1))
        assert abs(time.time() - stamp) < 30
        body = wait_for_metrics(server, r'^gpuwatch_gpu_recovery_action\{gpu="0",uuid="GPU-[^"]+",vendor="nvidia"\} 1$')
        assert re.search(r'^nvidia_smi_gpu_recovery_action\{uuid="[^"]+"\} 1$', body, re.M), body
        assert "fabric_state" not in body  # an A100 SXM4 here joins no NVLink fabric: absent, not 0
        rc, _, err = server.stop()
        assert rc == 0, err


def test_query_shows_recovery_action_and_fabric_as_nvidia_smi_does():
    fields = "gpu_recovery_action,fabric.state,fabric.status,fabric.cliqueId"
    for scenario, want in [("demo", "None, Completed, Success, 0"), ("consumer_card", "None, N/A, N/A, N/A")]:
        out = subprocess.run([BIN, "--simulate", scenario, "query", "-i", "0", f"--query-gpu={fields}",
                              "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip() == want, (scenario, out.stdout)


def test_a_hung_event_wait_blocks_neither_sampling_nor_scrapes_nor_shutdown(tmp_path):
    # Every nvmlEventSetWait_v2 hangs for a minute (a driver bug): the Xid watcher's thread is
    # stuck, the samplers and /metrics are not, and serve still stops at once on SIGTERM.
    scenario = tmp_path / "hung_events.yaml"
    scenario.write_text("name: hung_events\ngpus:\n  - model: H100 SXM 80GB\n    phases: [{kind: training, duration: 1h}]\n"
                        "faults:\n  - {function: nvmlEventSetWait_v2, hang_s: 60}\n")
    with Server(sim_env(scenario), "--interval", "200ms", "--metrics-compat", "nvidia-smi") as server:
        server.wait_ready()
        time.sleep(1.0)  # the watcher is inside its first (hung) wait by now
        started = time.monotonic()
        body = server.metrics()
        assert time.monotonic() - started < 1.0
        assert re.search(r'^gpuwatch_up\{gpu="0",[^}]*\} 1$', body, re.M), body
        assert re.search(r'^nvidia_smi_fabric_state\{uuid="[^"]+"\} 3$', body, re.M), body
        assert "xid" not in body
        started = time.monotonic()
        rc, _, err = server.stop(timeout=15)
        assert rc == 0, err
        assert time.monotonic() - started < 8, err
