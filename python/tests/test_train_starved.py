"""examples/train_starved.py: a real PyTorch (CPU) training loop starved by its DataLoader, on the
simulated driver. The measured data-wait share matches the injected one; the CSV has a row per
step with loss, data-wait time and GPU columns; it runs the same with the monitor disabled."""
import csv
import importlib.util
import json
import subprocess
import sys

import pytest

from conftest import SOURCE_DIR, child_env, sim_python

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="PyTorch is not installed (Debian: apt-get install python3-torch)")

EXAMPLE = str(SOURCE_DIR / "examples" / "train_starved.py")
STEPS, SLEEP_MS, COMPUTE_MS = 60, 40, 10


def run_example(*args, simulated=True, **env):
    if simulated:
        done = sim_python("dataloader_starvation", [EXAMPLE, "--json", *args], env=child_env(**env), timeout=120)
    else:
        done = subprocess.run([sys.executable, EXAMPLE, "--json", *args], capture_output=True, text=True,
                              env=child_env(**env), timeout=120)
    assert done.returncode == 0, done.stderr + done.stdout
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_starved_loop_measures_the_injected_data_wait_and_writes_the_csv(library, tmp_path):
    path = tmp_path / "steps.csv"
    out = run_example("--steps", str(STEPS), "--sleep-ms", str(SLEEP_MS), "--compute-ms", str(COMPUTE_MS),
                      "--workers", "1", "--interval", "0.2", "--csv", str(path))
    injected = (SLEEP_MS - COMPUTE_MS) / SLEEP_MS
    assert out["expected_wait_share"] == pytest.approx(injected)
    # Within 10 % of the script's own stopwatch (1 - its compute time / wall time) ...
    assert out["measured_wait_share"] == pytest.approx(out["stopwatch_wait_share"], rel=0.10)
    # ... and of the share the flags inject; 20 % here, because on a loaded CI machine the workers'
    # sleeps and the compute both overrun (10 % holds on an idle machine, docs/performance.md).
    assert out["measured_wait_share"] == pytest.approx(injected, rel=0.20)
    starved = [f for f in out["findings"] if f["kind"] == "input_starved"]
    assert starved and starved[0]["severity"] == "warning"
    assert any("num_workers" in advice for advice in starved[0]["advice"])
    assert out["gpu_error"] is None

    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["step"]) for r in rows] == list(range(STEPS))
    assert all(float(r["loss"]) > 0 for r in rows)
    assert float(rows[-1]["loss"]) < float(rows[0]["loss"])  # it really trains
    assert all(float(r["data_wait_s"]) >= 0 and float(r["compute_s"]) >= COMPUTE_MS / 1000 * 0.9 for r in rows)
    gpu_columns = [c for c in rows[0] if c.startswith("gpu")]
    assert "gpu0/util_percent" in gpu_columns and "gpu0/memory_used_gib" in gpu_columns
    assert all(r["gpu0/memory_total_gib"] for r in rows)


def test_the_example_runs_with_the_monitor_disabled(tmp_path):
    path = tmp_path / "steps.csv"
    out = run_example("--steps", "5", "--sleep-ms", "1", "--csv", str(path), simulated=False, GPUWATCH_DISABLE="1",
                      GPUWATCH_LIBRARY="/nonexistent/libgpuwatch.so.1")
    assert out["enabled"] is False and out["findings"] == [] and out["final_loss"] > 0
    assert not path.exists()
