"""Issue 4: a real Prometheus (Debian's 2.42) scrapes THREE `gpuwatch serve` instances on
loopback, each on a different simulated scenario, with deploy/prometheus/gpuwatch-rules.yaml
loaded, and PromQL tells the instances apart:
  - training:        2 x A100, busy, cool; no alert;
  - thermal_runaway: 1 x A100 past 85 C with thermal slowdown; GpuTemperatureHigh and
                     GpuThermalThrottling pending for it only;
  - hung_job:        1 x H100 at 0 % utilization while its process holds memory;
                     GpuHungJob pending for it only.
The alerts have `for:` of 5-10 minutes, so within the test they are pending, not firing:
the point is that each one is pending for the right instance and no other."""
from test_serve import Server, sim_env
from test_serve_prometheus import PROMETHEUS, Prometheus, prometheus_on  # noqa: F401 (fixture)

import pytest

pytestmark = pytest.mark.skipif(PROMETHEUS is None,
                                reason="prometheus missing: scripts/install-deps installs it (Debian package)")

# scenario -> scenario time at start (seconds): past training's 20 s idle phase, well into
# thermal_runaway's climb (time_scale 5: 95 C, throttled), 20 s before the end of hung_job's 30 s of
# training: GpuHungJob (issue 11) is a hang after a busy period, so Prometheus must see it busy
# first (without that it is GpuIdleAllocation, an idle notebook).
FLEET = {"training": 120, "thermal_runaway": 90, "hung_job": 10}


@pytest.fixture
def fleet():
    servers = {}
    try:
        for scenario, seconds_in in FLEET.items():
            servers[scenario] = Server(sim_env(scenario, seconds_in), "--interval", "500ms")
        for server in servers.values():
            server.wait_ready()
        yield {name: s.url.split("//", 1)[1] for name, s in servers.items()}
    finally:
        for server in servers.values():
            rc, _, err = server.stop()
            assert rc == 0, err


def by_instance(results):
    """{instance: float value} of an instant-vector result with one series per instance."""
    out = {}
    for r in results:
        instance = r["metric"]["instance"]
        assert instance not in out, f"several series for {instance}: {results}"
        out[instance] = float(r["value"][1])
    return out


def test_prometheus_tells_three_instances_apart(fleet, prometheus_on):
    training, thermal, hung = fleet["training"], fleet["thermal_runaway"], fleet["hung_job"]
    prom = prometheus_on(list(fleet.values()))
    prom.wait_for("all three targets up", lambda: len(prom.target_up()) == 3)

    # GPUs per instance, all of them up.
    counts = prom.wait_for("gpuwatch_up from every instance",
                           lambda: (lambda c: c if len(c) == 3 else None)(by_instance(
                               prom.query("count by (instance) (gpuwatch_up)"))))
    assert counts == {training: 2, thermal: 1, hung: 1}
    assert by_instance(prom.query("sum by (instance) (gpuwatch_up)")) == counts

    # Models, per instance, from the info series.
    models = {}
    for r in prom.query("count by (instance, name) (gpuwatch_gpu_info)"):
        models.setdefault(r["metric"]["instance"], set()).add(r["metric"]["name"])
    assert models == {training: {"NVIDIA A100-SXM4-80GB"}, thermal: {"NVIDIA A100-SXM4-80GB"},
                      hung: {"NVIDIA H100 80GB HBM3"}}

    # Only the thermal_runaway GPU is hot and slowed down by temperature.
    hottest = by_instance(prom.query("max by (instance) (gpuwatch_temperature_gpu_celsius)"))
    assert hottest[thermal] > 85, hottest
    assert hottest[training] < 85 and hottest[hung] < 85, hottest
    slowed = prom.query("gpuwatch_clocks_event_reasons_hw_thermal_slowdown == 1")
    assert [r["metric"]["instance"] for r in slowed] == [thermal]
    assert by_instance(prom.query("max by (instance) (gpuwatch_clocks_current_sm_hertz)"))[thermal] < \
        by_instance(prom.query("min by (instance) (gpuwatch_clocks_current_sm_hertz)"))[training]

    # Only the hung job sits at 0 % while a process holds its GPU; the training GPUs are busy.
    idle_held = prom.wait_for("the hung job at 0 % with its process", lambda: prom.query(
        "gpuwatch_utilization_gpu_ratio == 0 and on (instance, gpu) gpuwatch_processes > 0") or None)
    assert [r["metric"]["instance"] for r in idle_held] == [hung]
    assert by_instance(prom.query("min by (instance) (gpuwatch_utilization_gpu_ratio)"))[training] > 0.5

    # The rules file's alerts: each pending (for: 5m / 10m) for the right instance only.
    expected = {("GpuHungJob", hung), ("GpuTemperatureHigh", thermal), ("GpuThermalThrottling", thermal)}

    def pending():
        alerts = {(a["labels"]["alertname"], a["labels"]["instance"])
                  for a in prom.api("alerts")["alerts"] if a["state"] in ("pending", "firing")}
        return alerts if expected <= alerts else None

    alerts = prom.wait_for("GpuHungJob, GpuTemperatureHigh and GpuThermalThrottling pending", pending)
    assert alerts == expected, f"alerts for the wrong instance: {alerts - expected}"
    assert not [a for a in alerts if a[1] == training]
