"""issue 2: a `replay` phase plays gpuwatch's own recordings (`record --csv`, and
`history --format csv`, which writes the same columns): record on the simulator, replay
the log in a scenario, and read the same values back through NVML (`gpuwatch query`
on the simulated libnvidia-ml)."""
import os
import subprocess
import time

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")

# Replay can only play numbers; these text fields identify the GPU, they are not telemetry.
NOT_REPLAYED = {"time", "uuid", "name", "serial", "pci.bus_id",
                # gpuwatch's summary of the driver's sample buffer over the interval since the previous
                # sample (issue 24): a one-shot query has no interval, so it reads [N/A] by design
                "utilization.gpu.idle_share", "utilization.gpu.idle_gaps"}


def gpuwatch(args, scenario, seconds_into_scenario, timeout=60):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario,
               GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - int(seconds_into_scenario * 1000)))
    env.pop("GPUWATCH_NVML_LIBRARY", None)
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def record_training(tmp_path, *extra):
    """Three samples of the training scenario (2 A100s), 2 minutes in (past its idle start)."""
    csv_path = tmp_path / "record.csv"
    r = gpuwatch(["record", "--csv", str(csv_path), "--interval", "100ms", "--count", "3", *extra], "training", 120)
    assert r.returncode == 0, r.stderr
    return csv_path


def replay_scenario(tmp_path, log_path, gpu):
    scenario = tmp_path / f"replay_{gpu}.yaml"
    scenario.write_text(
        "name: replayed\n"
        "description: a gpuwatch recording played back\n"
        "gpus:\n"
        "  - model: A100 SXM 80GB\n"
        "    phases:\n"
        f"      - {{kind: replay, file: {log_path.name}, gpu: {gpu}, duration: 1h}}\n")
    return scenario


def rows_by_gpu(csv_text):
    lines = csv_text.splitlines()
    header = lines[0].split(", ")
    rows = {}
    for line in lines[1:]:
        cells = dict(zip(header, line.split(", ")))
        rows.setdefault(cells["index"], []).append(cells)
    return header, rows


def assert_replays_the_last_row(tmp_path, log_path, csv_path=None):
    """Replays LOG_PATH; the values must be those of the last row per GPU of CSV_PATH (default: LOG_PATH)."""
    header, rows = rows_by_gpu((csv_path or log_path).read_text())
    assert set(rows) == {"0", "1"} and all(len(r) == 3 for r in rows.values())
    fields = [h for h in header if h.split(" [")[0] not in NOT_REPLAYED]
    assert len(fields) >= 15, header  # the default recorded fields
    names = ",".join(h.split(" [")[0] for h in fields)
    for gpu in ("0", "1"):
        scenario = replay_scenario(tmp_path, log_path, gpu)
        # A minute into the scenario the latest recorded row (t <= 0.3 s) is what plays.
        r = gpuwatch(["query", f"--query-gpu={names}", "--format=csv"], str(scenario), 60)
        assert r.returncode == 0, r.stderr
        got_header, got = r.stdout.splitlines()
        assert got_header.split(", ") == fields
        expected = rows[gpu][-1]
        # index is the replayed GPU's own (0); every other value is the recording's, to the digit.
        mismatches = [(f, expected[f], g) for f, g in zip(fields, got.split(", "))
                      if f != "index" and expected[f] != g]
        assert not mismatches, mismatches


def test_record_csv_log_replays_exactly(tmp_path):
    log_path = record_training(tmp_path)
    assert_replays_the_last_row(tmp_path, log_path)


def test_record_jsonl_log_replays_exactly(tmp_path):
    jsonl_path = tmp_path / "record.jsonl"
    csv_path = record_training(tmp_path, "--jsonl", str(jsonl_path))  # the same samples in both logs
    assert jsonl_path.read_text().startswith('{"time":')
    assert_replays_the_last_row(tmp_path, jsonl_path, csv_path)


def test_history_csv_export_replays_exactly(tmp_path):
    db = tmp_path / "h.db"
    record_training(tmp_path, "--db", str(db), "--flush-interval", "50ms")
    r = gpuwatch(["history", "--db", str(db), "--since", "all", "--format", "csv"], "training", 120)
    assert r.returncode == 0, r.stderr
    exported = tmp_path / "history.csv"
    exported.write_text(r.stdout)
    assert r.stdout.startswith("time, index, ")
    assert_replays_the_last_row(tmp_path, exported)
