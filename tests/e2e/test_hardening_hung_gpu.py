"""Issue 16, part 2: one hung GPU never stalls a command. GPU 1's temperature call hangs for
an hour (the simulated driver's hang fault); GPU 0 answers. Before the fix, `status`, `query`
and `dmon -c 1` printed nothing for as long as the call hung, and `record` wrote no row for
GPU 0 and ignored SIGTERM. Now the one-shot commands answer within --timeout (default 2 s)
with GPU 1 marked timed out, the loops keep printing GPU 0, and `record` samples each GPU on
its own thread (as serve does) and exits promptly on SIGTERM."""
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")

HUNG_GPU1 = """\
name: hung_gpu1
description: Two H100s; GPU 1's temperature call hangs for an hour from the start.
gpus:
  - model: H100 SXM 80GB
    count: 2
    phases:
      - {kind: training, duration: 1h}
faults:
  - {function: nvmlDeviceGetTemperature, gpu: 1, hang_s: 3600}
"""


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "hung_gpu1.yaml"
    path.write_text(HUNG_GPU1)
    return str(path)


def env_for(scenario):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario)
    env.pop("NO_COLOR", None)
    return env


def run(scenario, args, timeout=20):
    """(completed process, seconds it took)."""
    started = time.monotonic()
    r = subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env_for(scenario), capture_output=True, text=True,
                       timeout=timeout)
    return r, time.monotonic() - started


def test_status_answers_within_the_default_deadline_with_gpu1_timed_out(scenario):
    r, took = run(scenario, ["status"])
    assert 1.5 <= took < 6, (took, r.stderr)  # the default --timeout is 2 s
    assert r.returncode == 5, r.stderr  # partial: one GPU did not answer
    gpu0 = [line for line in r.stdout.splitlines() if line.startswith("[0]")]
    gpu1 = [line for line in r.stdout.splitlines() if line.startswith("[1]")]
    assert gpu0 and "°C" in gpu0[0] and "W" in gpu0[0], r.stdout
    assert gpu1 and "timed out" in gpu1[0], r.stdout


def test_status_json_flags_the_hung_gpu_and_never_shows_zero(scenario):
    r, took = run(scenario, ["status", "--json", "--timeout", "1"])
    assert took < 5, took
    doc = json.loads(r.stdout)
    gpu0, gpu1 = doc["gpus"]
    assert gpu0["timed_out"] is False and gpu0["state"] == "ok"
    assert isinstance(gpu0["temperature_gpu_c"], (int, float))
    assert gpu1["timed_out"] is True and gpu1["state"] == "timed_out"
    assert gpu1["temperature_gpu_c"] is None and gpu1["power_draw_w"] is None and gpu1["memory_used_bytes"] is None


def test_query_csv_marks_the_hung_gpu_timeout_as_nvidia_smi_marks_errors(scenario):
    r, took = run(scenario, ["query", "--query-gpu=index,temperature.gpu,power.draw",
                             "--format=csv,noheader", "--timeout", "1"])
    assert took < 5, took
    lines = r.stdout.splitlines()
    assert len(lines) == 2, r.stdout
    index, temperature, power = lines[0].split(", ")
    assert index == "0" and temperature.isdigit() and power.endswith(" W")
    assert lines[1] == "1, [Timeout], [Timeout]"


def test_query_json_has_an_explicit_timed_out_flag(scenario):
    r, _ = run(scenario, ["query", "--query-gpu=index,temperature.gpu", "--format=json", "--timeout", "1"])
    rows = json.loads(r.stdout)
    assert "timed_out" not in rows[0] and rows[0]["temperature_gpu_c"] is not None
    assert rows[1]["timed_out"] is True and rows[1]["temperature_gpu_c"] is None and rows[1]["index"] == 1


def test_dmon_once_and_in_a_loop_keeps_printing_gpu0(scenario):
    r, took = run(scenario, ["dmon", "-c", "1", "--timeout", "1"])
    assert took < 5, took
    rows = [line.split() for line in r.stdout.splitlines() if not line.startswith("#")]
    assert [row[0] for row in rows] == ["0", "1"], r.stdout
    assert rows[0][1] != "-" and rows[1][1:] == ["-"] * (len(rows[1]) - 1)

    # The loop: the hung call is not asked again while it hangs, so each sample is prompt.
    r, took = run(scenario, ["dmon", "-c", "3", "--timeout", "1"])
    assert took < 7, took
    rows = [line.split() for line in r.stdout.splitlines() if not line.startswith("#")]
    assert [row[0] for row in rows] == ["0", "1"] * 3, r.stdout
    assert all(row[1] != "-" for row in rows if row[0] == "0")


def test_pmon_once_answers_in_time(scenario):
    r, took = run(scenario, ["pmon", "-c", "1", "--timeout", "1"])
    assert took < 5, (took, r.stderr)
    assert r.stdout.startswith("#"), r.stdout


def test_status_loop_keeps_printing_the_healthy_gpu(scenario):
    r, took = run(scenario, ["status", "-i", "500ms", "-c", "3", "--jsonl", "--timeout", "1"])
    assert took < 6, took
    samples = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(samples) == 3
    for sample in samples:
        assert sample["gpus"][0]["temperature_gpu_c"] is not None
        assert sample["gpus"][1]["timed_out"] is True


def test_record_keeps_writing_gpu0_and_honours_sigterm(scenario, tmp_path):
    db = tmp_path / "h.db"
    csv_path = tmp_path / "gpu.csv"
    rec = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "record", "--db", str(db), "--csv", str(csv_path),
                            "--interval", "200ms", "--flush-interval", "200ms"],
                           env=env_for(scenario), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(2.5)
        header, *rows = csv_path.read_text().splitlines()
        column = header.split(", ").index("index")
        gpu0 = [row for row in rows if row.split(", ")[column] == "0"]
        assert len(gpu0) >= 5, rows  # ~12 samples in 2.5 s at 200 ms
        started = time.monotonic()
        rec.send_signal(signal.SIGTERM)
        _, err = rec.communicate(timeout=10)
        took = time.monotonic() - started
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    assert took < 2, (took, err)
    assert rec.returncode == 0, err
    assert "an NVML call is still hanging" in err
    with sqlite3.connect(str(db)) as con:
        per_gpu = dict(con.execute("SELECT g.gpu_index, count(*) FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id "
                                   "GROUP BY g.gpu_index").fetchall())
    assert per_gpu.get(0, 0) >= 5, per_gpu
