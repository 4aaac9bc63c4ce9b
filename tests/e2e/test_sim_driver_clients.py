"""Clients on the simulated driver directly (LD_LIBRARY_PATH, no gpuwatch CLI): several
processes agree on the values at the same moment, time_scale speeds a pathology up, and
gpustat lists the demo node with stand-in processes."""
import json
import os
import subprocess
import textwrap
import time
from pathlib import Path

import pytest

DRIVER_DIR = os.environ.get("GPUWATCH_SIM_DRIVER_DIR", "")
GPUSTAT = "/usr/bin/gpustat"

pytestmark = pytest.mark.skipif(not (Path(DRIVER_DIR) / "libnvidia-ml.so.1").exists(),
                                reason="GPUWATCH_SIM_DRIVER_DIR does not hold the built driver")

SAMPLER = textwrap.dedent("""
    import json, sys, time
    import pynvml as n
    n.nvmlInit()
    hs = [n.nvmlDeviceGetHandleByIndex(i) for i in range(n.nvmlDeviceGetCount())]
    out = {}
    end = time.time() + float(sys.argv[1])
    while time.time() < end:
        for i, h in enumerate(hs):
            r1 = n.nvmlDeviceGetViolationStatus(h, n.NVML_PERF_POLICY_POWER).referenceTime
            vals = [n.nvmlDeviceGetPowerUsage(h), n.nvmlDeviceGetTemperature(h, 0),
                    n.nvmlDeviceGetUtilizationRates(h).gpu, n.nvmlDeviceGetClockInfo(h, n.NVML_CLOCK_SM),
                    n.nvmlDeviceGetMemoryInfo(h).used, n.nvmlDeviceGetTotalEnergyConsumption(h)]
            r2 = n.nvmlDeviceGetViolationStatus(h, n.NVML_PERF_POLICY_POWER).referenceTime
            if r1 == r2:
                out["%d/%d" % (i, r1)] = vals
        time.sleep(0.013)
    print(json.dumps(out))
""")


def env_for(scenario, epoch_ms, **extra):
    return dict(os.environ, LD_LIBRARY_PATH=DRIVER_DIR, GPUWATCH_SIM_SCENARIO=scenario,
                GPUWATCH_SIM_EPOCH_MS=str(epoch_ms), **extra)


def test_two_processes_see_the_same_values_at_the_same_moment():
    epoch = int(time.time() * 1000) - 250_000  # well into the demo's timelines
    env = env_for("demo", epoch)
    procs = [subprocess.Popen(["/usr/bin/python3", "-c", SAMPLER, "1.5"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=60)
        assert p.returncode == 0, stderr
        outs.append(json.loads(stdout))
    common = set(outs[0]) & set(outs[1])
    assert len(common) >= 20, "the two samplers should overlap in many 100 ms quanta"
    for k in common:
        assert outs[0][k] == outs[1][k], k
    # Values do change over time (the scenario is dynamic).
    gpu3 = sorted((int(k.split("/")[1]), v) for k, v in outs[0].items() if k.startswith("3/"))
    assert len({tuple(v[:1]) for _, v in gpu3}) > 1
    energies = [v[5] for _, v in gpu3]
    assert energies == sorted(energies), "energy counter must be monotonic"


def test_time_scale_plays_a_leak_in_seconds():
    # memory_leak: training 60 s then a 10-minute leak, at time_scale 20. Start 3 s (= 60 scenario s) in.
    epoch = int(time.time() * 1000) - 3_000
    code = textwrap.dedent("""
        import json, time, pynvml as n
        n.nvmlInit()
        h = n.nvmlDeviceGetHandleByIndex(0)
        seen = []
        for _ in range(12):
            seen.append(n.nvmlDeviceGetMemoryInfo(h, version=n.nvmlMemory_v2).used)
            time.sleep(0.25)
        print(json.dumps(seen))
    """)
    r = subprocess.run(["/usr/bin/python3", "-c", code], env=env_for("memory_leak", epoch), capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    used = json.loads(r.stdout)
    assert used == sorted(used)
    assert used[-1] - used[0] > 2 * 1024 ** 3, used  # > 2 GiB in ~3 s of wall time


@pytest.mark.skipif(not Path(GPUSTAT).exists(), reason="gpustat is not installed")
def test_gpustat_lists_the_demo_node_with_standin_processes():
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
    try:
        pids = f"0:0={sleepers[0].pid},7:1={sleepers[1].pid}"
        r = subprocess.run([GPUSTAT, "--json"], env=env_for("demo", int(time.time() * 1000), GPUWATCH_SIM_PIDS=pids),
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        doc = json.loads(r.stdout)
        assert doc["driver_version"] == "550.90.07"
        assert len(doc["gpus"]) == 8
        assert {g["name"] for g in doc["gpus"]} == {"NVIDIA H100 80GB HBM3"}
        assert len({g["uuid"] for g in doc["gpus"]}) == 8
        g0, g7 = doc["gpus"][0], doc["gpus"][7]
        assert g0["memory.total"] == 81559
        assert g0["utilization.gpu"] >= 90
        assert 400 <= g0["power.draw"] <= 700 and g0["enforced.power.limit"] == 700
        assert [p["pid"] for p in g0["processes"]] == [sleepers[0].pid]
        assert g0["processes"][0]["gpu_memory_usage"] == 62314
        assert [p["pid"] for p in g7["processes"]] == [sleepers[1].pid]
        assert g7["processes"][0]["gpu_memory_usage"] == 512
        assert doc["gpus"][1]["processes"] == []  # stand-in without a PID: not listed
    finally:
        for s in sleepers:
            s.kill()
            s.wait()
