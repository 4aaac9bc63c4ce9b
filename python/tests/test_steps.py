"""Step timing and the step sinks: CSV, JSONL, and the GPUWATCH_STEPS_FILE contract with
`gpuwatch run` (one JSON object per step, buffered, flushed every ~50 steps and at close/exit)."""
import csv
import json
import subprocess
import sys
import textwrap
import time

import pytest

import gpuwatch
from gpuwatch.allocator import GIB
from conftest import child_env
from test_allocator import memory_stats


class FakeTensor:
    """A loss that is only converted (like a CUDA tensor's .item()) when the rows are written."""

    def __init__(self, value):
        self.value, self.items = value, 0

    def item(self):
        self.items += 1
        return self.value


def read_jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_track_and_step_split_each_step_into_data_wait_and_compute(simulated_demo, tmp_path):
    def slow_batches(n, wait_s):
        for i in range(n):
            time.sleep(wait_s)
            yield i

    with gpuwatch.Monitor(interval=0.1, gpus="0", jsonl=tmp_path / "s.jsonl") as m:
        for step, _ in enumerate(m.track(slow_batches(6, 0.03))):
            time.sleep(0.01)
            m.step(step)
        share = m.data_wait_share
    rows = read_jsonl(tmp_path / "s.jsonl")
    assert [r["step"] for r in rows] == list(range(6))
    for r in rows:
        assert 0.028 <= r["data_wait_s"] < 0.08, r  # upper bounds: room for a loaded CI machine
        assert 0.009 <= r["compute_s"] < 0.06, r
        assert r["gpu0/memory_total_gib"] > 79 and "gpu1/util_percent" not in r
    assert 0.5 < share < 0.8  # 30 ms of every 40


def test_csv_has_one_row_per_step_with_gpu_columns_and_lazy_losses(simulated_demo, tmp_path):
    losses = [FakeTensor(1.0 / (i + 1)) for i in range(120)]
    with gpuwatch.Monitor(interval=0.1, gpus="0,1", csv=tmp_path / "s.csv", flush_every=50) as m:
        for step in range(120):
            m.step(step, loss=losses[step], lr=0.01)
            if step == 10:
                assert all(loss.items == 0 for loss in losses)  # step() never converts (no GPU sync)
    with open(tmp_path / "s.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 120 and [int(r["step"]) for r in rows] == list(range(120))
    header = list(rows[0])
    assert header[:6] == ["step", "time", "data_wait_s", "compute_s", "loss", "lr"]
    assert {"gpu0/util_percent", "gpu1/memory_used_gib", "gpu1/power_w"} <= set(header)
    assert not any(h.startswith("gpu2/") for h in header)
    assert float(rows[3]["loss"]) == pytest.approx(0.25)
    assert all(79 < float(r["gpu1/memory_total_gib"]) < 81 for r in rows)


def test_steps_file_contract(simulated_demo, tmp_path, monkeypatch):
    steps_file = tmp_path / "steps.jsonl"
    monkeypatch.setenv("GPUWATCH_STEPS_FILE", str(steps_file))
    monkeypatch.setenv("GPUWATCH_JOB_ID", "job-42")
    readings = iter([memory_stats(allocated=2 * GIB, reserved=3 * GIB, retries=0),
                     memory_stats(allocated=2 * GIB, reserved=9 * GIB, retries=4)])
    m = gpuwatch.Monitor(interval=0.1, gpus="all", allocator_every=50, memory_stats=lambda: next(readings, None))
    assert m.job_id == "job-42"
    for step in range(60):
        m.step(step, loss=None if step == 0 else 0.5)
    deadline = time.monotonic() + 10  # the 50th step handed 50 rows to the writer thread; 10 wait in memory
    while time.monotonic() < deadline and len(read_jsonl(steps_file) if steps_file.exists() else []) < 50:
        time.sleep(0.01)
    time.sleep(0.05)
    assert len(read_jsonl(steps_file)) == 50
    m.close()
    rows = read_jsonl(steps_file)
    assert [r["step"] for r in rows] == list(range(60))
    assert set(rows[1]) == {"step", "time", "data_wait_s", "compute_s", "loss"}  # no GPU columns here
    assert rows[0]["loss"] is None and rows[1]["loss"] == 0.5
    assert abs(rows[0]["time"] - time.time()) < 60
    assert rows[0]["allocated_bytes"] == 2 * GIB and rows[0]["num_alloc_retries"] == 0
    assert rows[50]["reserved_bytes"] == 9 * GIB and rows[50]["num_alloc_retries"] == 4
    assert "allocated_bytes" not in rows[49]
    kinds = {f["kind"]: f for f in m.findings()}
    assert kinds["fragmentation"]["severity"] == "warning"  # the latest reading: retries, 7 GiB unallocated


def test_steps_file_is_flushed_at_exit_without_close(library, tmp_path):
    steps_file = tmp_path / "steps.jsonl"
    code = textwrap.dedent("""
        import gpuwatch
        m = gpuwatch.Monitor(interval=0.1)
        for step in range(7):
            m.step(step, loss=float(step))
    """)
    env = child_env(GPUWATCH_STEPS_FILE=steps_file, GPUWATCH_NVML_LIBRARY="/nonexistent/libnvidia-ml.so.1")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "no GPU sampling" in done.stderr  # no driver: a warning, and the steps still count
    assert [r["loss"] for r in read_jsonl(steps_file)] == [float(s) for s in range(7)]


def test_input_starved_uses_the_diagnose_engine_thresholds_and_advice(library):
    from gpuwatch import _native
    info = _native.diagnose_threshold("input_starved.info_share")
    warn = _native.diagnose_threshold("input_starved.warn_share")
    advice = _native.diagnose_advice("input_starved")
    assert 0 < info < warn < 1 and any("num_workers" in a for a in advice) and any("pin_memory" in a for a in advice)
    f = gpuwatch.input_starved_finding(30.0, 70.0, 100, info, warn, advice)
    assert f["severity"] == "warning" and f["evidence"]["data_wait_share"] == pytest.approx(0.3)
    assert f["summary"].startswith("input-starved: the loop waited for data 30 % of the time")
    middle = (info + warn) / 2 * 100
    assert gpuwatch.input_starved_finding(middle, 100 - middle, 100, info, warn, advice)["severity"] == "info"
    assert gpuwatch.input_starved_finding(info * 90, 100 - info * 90, 100, info, warn, advice) is None
    assert gpuwatch.input_starved_finding(0, 0, 0, info, warn, advice) is None


def test_library_lookup_order(tmp_path, monkeypatch):
    from gpuwatch._native import library_candidates, LIBRARY_NAME
    assert library_candidates(env={"GPUWATCH_LIBRARY": "/x/libgpuwatch.so.1"}) == ["/x/libgpuwatch.so.1"]
    package = tmp_path / "repo" / "python" / "gpuwatch"
    package.mkdir(parents=True)
    (package / LIBRARY_NAME).write_text("")
    for build in ("build-b", "build", "build-a"):
        (tmp_path / "repo" / build / "src" / "capi").mkdir(parents=True)
        (tmp_path / "repo" / build / "src" / "capi" / LIBRARY_NAME).write_text("")
    found = library_candidates(env={}, package_dir=package)
    assert found == [str(package / LIBRARY_NAME)] + [
        str(tmp_path / "repo" / b / "src" / "capi" / LIBRARY_NAME) for b in ("build", "build-a", "build-b")
    ] + [LIBRARY_NAME]


def test_data_ready_marks_the_wait_for_callback_style_loops(simulated_demo, tmp_path):
    with gpuwatch.Monitor(interval=0.1, gpus="0", jsonl=tmp_path / "s.jsonl") as m:
        for step in range(3):
            time.sleep(0.02)  # the framework fetches the batch
            m.data_ready()    # on_train_batch_start / on_step_begin
            time.sleep(0.01)  # forward, backward, optimizer
            m.step(step)      # on_train_batch_end / on_step_end
    rows = read_jsonl(tmp_path / "s.jsonl")
    # The first step also waited from the monitor's start (its first sample) on: the later ones show the split.
    assert all(0.019 <= r["data_wait_s"] < 0.07 and 0.009 <= r["compute_s"] < 0.06 for r in rows[1:]), rows


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="interval 0 s is out of range"):
        gpuwatch.Monitor(interval=0)
    with pytest.raises(ValueError, match="flush_every"):
        gpuwatch.Monitor(flush_every=0)
