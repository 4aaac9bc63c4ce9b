"""gpustat 1.0 (Debian's, over pynvml) on the simulated driver: `gpuwatch sim run SCENARIO -- gpustat --json`."""
import getpass
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml

GPUWATCH = os.environ.get("GPUWATCH_BIN", "gpuwatch")
SOURCE_DIR = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCENARIOS = SOURCE_DIR / "sim" / "scenarios"
GPUSTAT = "/usr/bin/gpustat"
MIB = 1024 * 1024

pytestmark = pytest.mark.skipif(not Path(GPUSTAT).exists(), reason="gpustat is not installed (scripts/install-deps)")


def gpustat_json(scenario, cwd=None):
    result = subprocess.run([GPUWATCH, "sim", "run", str(scenario), "--", GPUSTAT, "--json"],
                            capture_output=True, text=True, timeout=60, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def gpu_count(doc):
    """NVML's GPUs: the NVIDIA ones (issue 28: the built-ins mark AMD's and Intel's with `vendor:`)."""
    return sum(int(g.get("count", 1)) for g in doc.get("gpus", []) if g.get("vendor", "nvidia") == "nvidia")


# A scenario whose every value gpustat shows is pinned: a replay of one constant row.
EXACT = """
name: gpustat_exact
description: two GPUs with pinned values for the gpustat test
driver:
  version: "550.54.15"
gpus:
  - model: A100 SXM 80GB
    values:
      uuid: GPU-11111111-2222-3333-4444-555555555555
      enforced.power.limit: 400
      memory.reserved: 500
    phases:
      - kind: replay
        loop: true
        rows:
          - {t: 0, utilization.gpu: 37, temperature.gpu: 61, power.draw: 187.5, memory.used: 12345}
          - {t: 3600, utilization.gpu: 37, temperature.gpu: 61, power.draw: 187.5, memory.used: 12345}
    processes:
      - {command: python train.py --model llama, user: alice, memory: 10240}
      - {command: python eval.py, user: bob, memory: 1024}
  - model: T4
    values:
      name: Tesla T4 (test)
      uuid: GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee
      memory.reserved: 100
    phases:
      - kind: replay
        loop: true
        rows:
          - {t: 0, utilization.gpu: 3, temperature.gpu: 40, power.draw: 27.9, memory.used: 500}
          - {t: 3600, utilization.gpu: 3, temperature.gpu: 40, power.draw: 27.9, memory.used: 500}
"""


def test_pinned_values_come_out_exactly(tmp_path):
    (tmp_path / "exact.yaml").write_text(EXACT)
    out = gpustat_json("exact.yaml", cwd=tmp_path)  # a relative path works too
    assert out["driver_version"] == "550.54.15"
    gpus = out["gpus"]
    assert [g["index"] for g in gpus] == [0, 1]

    a100, t4 = gpus
    assert a100["name"] == "NVIDIA A100-SXM4-80GB"  # the catalog's name for the model
    assert a100["uuid"] == "GPU-11111111-2222-3333-4444-555555555555"
    assert a100["memory.total"] == 81920  # MiB; gpustat's "MB" is 1024*1024
    # gpustat reads the v1 struct, whose `used` counts the reserved memory too (v2 splits it).
    assert a100["memory.used"] == 12345 + 500
    assert a100["utilization.gpu"] == 37
    assert a100["temperature.gpu"] == 61
    assert a100["power.draw"] == 187  # mW // 1000
    assert a100["enforced.power.limit"] == 400
    assert a100["fan.speed"] is None  # an SXM module has no fan: NOT_SUPPORTED, shown as absent, not 0

    assert t4["name"] == "Tesla T4 (test)"
    assert t4["uuid"] == "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    assert t4["memory.total"] == 15360
    assert t4["memory.used"] == 500 + 100
    assert (t4["utilization.gpu"], t4["temperature.gpu"], t4["power.draw"]) == (3, 40, 27)
    assert t4["processes"] == []

    # The processes are the stand-ins: real PIDs (gone now), our user, the scenario's command lines.
    procs = sorted(a100["processes"], key=lambda p: p["gpu_memory_usage"])
    assert [p["gpu_memory_usage"] for p in procs] == [1024, 10240]
    assert [p["full_command"] for p in procs] == [["python", "eval.py"], ["python", "train.py", "--model", "llama"]]
    assert all(p["command"] == "python" for p in procs)
    assert all(p["username"] == getpass.getuser() for p in procs)
    assert len({p["pid"] for p in procs}) == 2
    for p in procs:
        assert not Path(f"/proc/{p['pid']}/cmdline").exists() or \
            b"train.py" not in Path(f"/proc/{p['pid']}/cmdline").read_bytes()


def test_demo_lists_every_simulated_gpu():
    demo_file = SCENARIOS / "demo.yaml"
    if not demo_file.exists():
        pytest.skip("no demo scenario yet")
    demo = yaml.safe_load(demo_file.read_text())
    out = gpustat_json("demo")
    gpus = out["gpus"]
    assert len(gpus) == gpu_count(demo) == 8
    assert [g["index"] for g in gpus] == list(range(len(gpus)))
    assert len({g["uuid"] for g in gpus}) == len(gpus)
    shown = subprocess.run([GPUWATCH, "sim", "show", "demo"], capture_output=True, text=True, timeout=30).stdout
    for g in gpus:
        assert "H100" in g["name"], g["name"]
        assert g["uuid"].startswith("GPU-")
        assert g["uuid"] in shown, f"{g['uuid']} is not in `sim show demo`"
        assert g["memory.total"] == 81559  # H100 SXM 80GB in the catalog
        for key in ("memory.used", "utilization.gpu", "temperature.gpu", "power.draw", "enforced.power.limit"):
            assert isinstance(g[key], int), (key, g[key])  # supported: never None
        assert 0 <= g["memory.used"] <= g["memory.total"]
        assert 0 <= g["utilization.gpu"] <= 100
        assert 20 <= g["temperature.gpu"] <= 110
        assert 0 < g["power.draw"] <= g["enforced.power.limit"] * 1.2
    # Processes: the stand-ins of the scenario's command lines, each counted once.
    commands = {" ".join(str(p["command"]).split()) for gpu in demo["gpus"] for p in gpu.get("processes", []) or []}
    listed = [p for g in gpus for p in g["processes"]]
    assert listed, "demo has processes, gpustat shows none"
    for p in listed:
        assert " ".join(p["full_command"]) in commands
        assert p["username"] == getpass.getuser()
        assert p["gpu_memory_usage"] > 0


def test_every_builtin_keeps_gpustat_alive():
    """gpustat aborts on a failed GetName/GetUUID/GetIndex; no built-in may make it crash."""
    for path in sorted(SCENARIOS.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text()) or {}
        driver = doc.get("driver") or {}
        if driver.get("init_error") or driver.get("symbols") == "legacy":
            continue  # see test_old_driver_is_an_error_not_a_crash
        result = subprocess.run([GPUWATCH, "sim", "run", path.stem, "--", GPUSTAT, "--json"],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{path.stem}: {result.stderr[-2000:]}"
        assert len(json.loads(result.stdout)["gpus"]) == gpu_count(doc), path.stem


def test_old_driver_is_an_error_not_a_crash():
    """pynvml 11.525 calls nvmlDeviceGetCount_v2 with no fallback: on a driver without the
    _v2 symbols gpustat must fail cleanly (as it would on a real R418 driver), not crash."""
    legacy = [p.stem for p in SCENARIOS.glob("*.yaml")
              if ((yaml.safe_load(p.read_text()) or {}).get("driver") or {}).get("symbols") == "legacy"]
    if not legacy:
        pytest.skip("no legacy-driver scenario")
    result = subprocess.run([GPUWATCH, "sim", "run", legacy[0], "--", GPUSTAT, "--json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert "Error on querying NVIDIA devices" in result.stderr
    assert result.returncode < 128  # not killed by a signal
