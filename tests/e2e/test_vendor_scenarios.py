"""The AMD and Intel scenarios end to end (issue 28): `sim record` renders them through the real
sampler and backends (the AMD/Intel file tree, the simulated NVML driver) into a history, and
`diagnose` names exactly the problem each story tells: the MI300X thermal-throttles, the Max 1550's
process leaks, the mixed node is healthy with its 4 NVIDIA, 2 AMD and 2 Intel GPUs."""
import json
import os
import sqlite3
import subprocess

BIN = os.environ["GPUWATCH_BIN"]


def run(args, timeout=180):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)


def diagnosed(tmp_path, scenario, duration):
    db = tmp_path / f"{scenario}.db"
    r = run(["sim", "record", scenario, "--duration", duration, "--db", str(db)])
    assert r.returncode == 0, r.stderr
    r = run(["diagnose", "--db", str(db), "--since", duration, "--json"])
    assert r.returncode in (0, 1), r.stderr
    return db, r.returncode, json.loads(r.stdout)["findings"]


def serious(findings):
    return [(f["kind"], f["gpus"]) for f in findings if f["severity"] in ("warning", "critical")]


def names(db):
    with sqlite3.connect(db) as con:
        return [row[0] for row in con.execute("SELECT name FROM gpus ORDER BY gpu_index")]


def test_amd_thermal_is_thermal_throttling_on_the_mi300x(tmp_path):
    db, rc, findings = diagnosed(tmp_path, "amd_thermal", "10m")
    assert names(db) == ["AMD Instinct MI300X"]
    assert serious(findings) == [("thermal_throttle", [0])], findings
    assert rc == 1


def test_intel_leak_is_a_memory_leak_on_the_max_1550(tmp_path):
    db, rc, findings = diagnosed(tmp_path, "intel_leak", "6m")
    assert names(db) == ["Intel(R) Data Center GPU Max 1550"]
    kinds = serious(findings)
    assert ("memory_leak", [0]) in kinds, findings
    # A leak that fills the memory also reads as memory pressure; nothing else is wrong.
    assert {k for k, _ in kinds} <= {"memory_leak", "memory_pressure"}, findings
    assert rc == 1


def test_demo_mixed_is_a_healthy_mixed_node(tmp_path):
    db, rc, findings = diagnosed(tmp_path, "demo_mixed", "3m")
    assert names(db) == ["NVIDIA H100 80GB HBM3"] * 4 + ["AMD Instinct MI300X"] * 2 + \
        ["Intel(R) Data Center GPU Max 1550"] * 2
    assert serious(findings) == [] and rc == 0, findings


def test_the_history_keeps_each_gpus_vendor_for_its_advice_and_report(tmp_path):
    """issue 28: the gpus table stores each GPU's vendor, so the diagnosis over history gives an AMD
    GPU amd-smi advice (not nvidia-smi) and the report names the vendor of a non-NVIDIA GPU."""
    db, _, findings = diagnosed(tmp_path, "amd_thermal", "10m")
    with sqlite3.connect(db) as con:
        assert [row[0] for row in con.execute("SELECT vendor FROM gpus")] == ["amd"]
    thermal = [f for f in findings if f["kind"] == "thermal_throttle"]
    assert thermal, findings
    advice = json.dumps(thermal[0]["advice"])
    assert "amd-smi" in advice and "nvidia-smi" not in advice, advice
    r = run(["report", "--db", str(db), "--since", "10m"])
    assert r.returncode in (0, 1), r.stderr
    header = next(line for line in r.stdout.splitlines() if "util mean" in line)
    assert header.split()[:3] == ["gpu", "vendor", "name"], r.stdout
    row = next(line for line in r.stdout.splitlines() if "AMD Instinct MI300X" in line and "amd" in line.split())
    assert row.split()[:2] == ["0", "amd"], r.stdout
    r = run(["history", "--db", str(db), "--since", "10m", "--fields", "index,vendor,name", "--format", "csv"])
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].split(", ")[1:] == ["0", "amd", "AMD Instinct MI300X"], r.stdout
