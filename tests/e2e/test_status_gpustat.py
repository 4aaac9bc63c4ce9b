"""Side by side on one simulated node: `gpuwatch status --json` and Debian's
`gpustat --json` (pynvml on the same simulated libnvidia-ml.so.1, same scenario,
same scenario clock) agree on names, UUIDs, memory, utilization, temperature,
power and processes."""
import json
import os
import pathlib
import subprocess
import tempfile
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
DRIVER_DIR = os.environ["GPUWATCH_SIM_DRIVER_DIR"]
SIM_LIB = os.path.join(DRIVER_DIR, "libnvidia-ml.so.1")
GPUSTAT = "/usr/bin/gpustat"
MIB = 1024 * 1024


# Two A100s training, each with a process that is a real `sleep` (so that both
# tools can look it up in /proc).
WITH_PROCESSES = """\
name: side_by_side
description: Two A100 SXM 80GB training, one real process each.
driver: {version: "550.90.07", cuda_version: "12.4"}
gpus:
  - model: A100 SXM 80GB
    phases:
      - {kind: training, duration: 1h}
    processes:
      - {command: "sleep 60", user: alice, memory: 30720, pid_env: H3_SIDE_PID0}
  - model: A100 SXM 80GB
    phases:
      - {kind: training, duration: 1h}
    processes:
      - {command: "sleep 60", user: bob, memory: 10240, pid_env: H3_SIDE_PID1}
"""


def sim_env(scenario, epoch_ms, **extra):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario, GPUWATCH_SIM_EPOCH_MS=str(epoch_ms),
               LD_LIBRARY_PATH=DRIVER_DIR, **extra)
    env.pop("NO_COLOR", None)
    return env


@pytest.fixture
def node_with_processes():
    sleepers = [subprocess.Popen(["sleep", "60"]) for _ in range(2)]
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "side_by_side.yaml"
        path.write_text(WITH_PROCESSES)
        yield str(path), {f"H3_SIDE_PID{i}": str(s.pid) for i, s in enumerate(sleepers)}
    for s in sleepers:
        s.kill()
        s.wait()


@pytest.mark.skipif(not os.path.exists(GPUSTAT), reason="gpustat is installed by scripts/install-deps")
@pytest.mark.parametrize("scenario", ["idle", "demo", "processes"])
def test_gpuwatch_and_gpustat_agree(scenario, node_with_processes):
    extra = {}
    if scenario == "processes":
        scenario, extra = node_with_processes
    env = sim_env(scenario, int(time.time() * 1000) - 60_000, **extra)  # one minute into the scenario

    def ours_now():
        r = subprocess.run([BIN, "--nvml-library", SIM_LIB, "status", "--json"], env=env, capture_output=True,
                           text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    # gpustat takes about a second; the scenario moves meanwhile (demo's GPU 6 leaks
    # memory), so gpustat's reading must lie between ours just before and just after.
    before = ours_now()
    theirs = subprocess.run([GPUSTAT, "--json"], env=env, capture_output=True, text=True, timeout=60)
    after = ours_now()
    assert theirs.returncode == 0, theirs.stderr
    theirs = json.loads(theirs.stdout)

    def between(value, a, b, tolerance):
        return min(a, b) - tolerance <= value <= max(a, b) + tolerance

    assert theirs["driver_version"] == before["driver_version"]
    assert len(before["gpus"]) == len(theirs["gpus"]) == len(after["gpus"]) >= 1
    for g, s, h in zip(before["gpus"], theirs["gpus"], after["gpus"]):
        assert g["index"] == s["index"]
        assert g["name"] == s["name"]
        assert g["uuid"] == s["uuid"]
        assert g["memory_total_bytes"] // MIB == s["memory.total"]
        # gpustat reads the v1 memory struct, whose "used" includes what the driver reserves
        v1_used = [(x["memory_used_bytes"] + (x["memory_reserved_bytes"] or 0)) // MIB for x in (g, h)]
        assert between(s["memory.used"], *v1_used, 2)
        assert between(s["utilization.gpu"], round(g["utilization_gpu_ratio"] * 100),
                       round(h["utilization_gpu_ratio"] * 100), 5)
        assert between(s["temperature.gpu"], g["temperature_gpu_c"], h["temperature_gpu_c"], 2)
        assert between(s["power.draw"], g["power_draw_w"], h["power_draw_w"], max(5, 0.03 * s["power.draw"]))
        assert int(g["enforced_power_limit_w"]) == s["enforced.power.limit"]
        # gpustat shows only processes that exist here; so does /proc for us
        their_pids = sorted(p["pid"] for p in s["processes"] or [])
        our_pids = sorted(p["pid"] for p in g["processes"] if p["user"] is not None)
        assert our_pids == their_pids
        for p in s["processes"] or []:
            mine = next(q for q in g["processes"] if q["pid"] == p["pid"])
            assert mine["user"] == p["username"]
            assert mine["command"] == p["command"]
            assert mine["used_memory_bytes"] // MIB == p["gpu_memory_usage"]
    if extra:  # the scenario with processes must really have shown them
        assert sum(len(s["processes"] or []) for s in theirs["gpus"]) == 2
