"""gpuwatch record (issue 5): retention and downsampling of the database when the
recorder starts (raw -> 1-minute rollups), --max-size, and rotation of the --csv /
--jsonl logs (--rotate-size, --rotate-age, --keep)."""
import json
import os
import sqlite3
import subprocess
import time

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
DAY_MS = 86_400_000


def gpuwatch(args, timeout=60):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO="training",
               GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - 120_000))
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout)


def first_gpu_id(db):
    with sqlite3.connect(str(db)) as con:
        return con.execute("SELECT min(id) FROM gpus").fetchone()[0]


def insert_samples(db, gpu_id, start_ms, count, step_ms):
    with sqlite3.connect(str(db)) as con:
        con.executemany("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent, power_draw_mw) "
                        "VALUES (?, ?, ?, NULL)",
                        [(start_ms + i * step_ms, gpu_id, i % 6) for i in range(count)])


def test_old_raw_samples_are_rolled_up_when_the_recorder_runs(tmp_path):
    db = tmp_path / "h.db"
    assert gpuwatch(["record", "--db", str(db), "--count", "1"]).returncode == 0
    gpu = first_gpu_id(db)
    old = (int(time.time() * 1000) - 10 * DAY_MS) // 60_000 * 60_000  # 10 days ago, a whole minute
    insert_samples(db, gpu, old, 18, 10_000)  # 3 minutes, 6 samples each, utilization 0..5
    r = gpuwatch(["record", "--db", str(db), "--count", "1"])  # default: raw kept 7 days
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM gpu_samples WHERE time_ms < ?", (old + DAY_MS,)).fetchone()[0] == 0
        rows = con.execute("SELECT time_ms, samples, utilization_gpu_percent_min, utilization_gpu_percent_avg, "
                           "utilization_gpu_percent_max, power_draw_mw_avg FROM gpu_samples_1m WHERE gpu_id = ? "
                           "ORDER BY time_ms", (gpu,)).fetchall()
        assert rows == [(old + m * 60_000, 6, 0.0, 2.5, 5.0, None) for m in range(3)]
        # the recent samples (the two recordings) are still raw
        assert con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0] >= 2
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    # history still reads the raw samples
    h = gpuwatch(["history", "--db", str(db), "--since", "1h", "--format", "jsonl"])
    assert h.returncode == 0 and len(h.stdout.splitlines()) >= 2
    # ... and the rollups with --resolution 1m
    # (--until: the old minutes only; the fresh raw sample is aggregated into its minute too)
    until = ["--until", f"@{(old + 3 * 60_000) // 1000}"]
    m = gpuwatch(["history", "--db", str(db), "--since", "11d", *until, "--resolution", "1m", "--format", "jsonl",
                  "--fields", "utilization.gpu,power.draw"])
    assert m.returncode == 0, m.stderr
    rows = [json.loads(line) for line in m.stdout.splitlines()]
    assert [r["utilization_gpu_ratio"] for r in rows] == [0.025] * 3
    assert all(r["power_draw_w"] is None for r in rows)
    top = gpuwatch(["history", "--db", str(db), "--since", "11d", *until, "--resolution", "1m", "--statistic", "max",
                    "--format", "jsonl", "--fields", "utilization.gpu"])
    assert [json.loads(line)["utilization_gpu_ratio"] for line in top.stdout.splitlines()] == [0.05] * 3
    assert gpuwatch(["history", "--db", str(db), "--resolution", "5m"]).returncode == 2
    assert gpuwatch(["history", "--db", str(db), "--resolution", "1m", "--processes"]).returncode == 2


def test_retention_windows_are_configurable(tmp_path):
    db = tmp_path / "h.db"
    assert gpuwatch(["record", "--db", str(db), "--count", "1"]).returncode == 0
    gpu = first_gpu_id(db)
    two_days_ago = (int(time.time() * 1000) - 2 * DAY_MS) // 60_000 * 60_000
    insert_samples(db, gpu, two_days_ago, 6, 10_000)
    r = gpuwatch(["record", "--db", str(db), "--count", "1", "--retain-raw", "1d", "--retain-1m", "30d"])
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM gpu_samples_1m").fetchone()[0] == 1
    bad = gpuwatch(["record", "--db", str(db), "--count", "1", "--retain-raw", "soon"])
    assert bad.returncode == 2 and "--retain-raw" in bad.stderr


def used_bytes(db):
    with sqlite3.connect(str(db)) as con:
        pages = con.execute("PRAGMA page_count").fetchone()[0] - con.execute("PRAGMA freelist_count").fetchone()[0]
        return pages * con.execute("PRAGMA page_size").fetchone()[0]


def test_max_size_drops_the_oldest_raw_samples(tmp_path):
    db = tmp_path / "h.db"
    assert gpuwatch(["record", "--db", str(db), "--count", "1"]).returncode == 0
    gpu = first_gpu_id(db)
    start = int(time.time() * 1000) - DAY_MS
    insert_samples(db, gpu, start, 60_000, 1000)
    assert used_bytes(db) > 1_500_000
    reached = used_bytes(db)  # the size the inserts took the database to (no page free yet)
    r = gpuwatch(["record", "--db", str(db), "--count", "1", "--max-size", "1M"])
    assert r.returncode == 0, r.stderr
    assert used_bytes(db) <= 1 << 20
    # Freed pages are reused and the WAL checkpointed: the file does not grow past what it reached
    # (it does not shrink either: no VACUUM). Not pinned to used_bytes + a constant: the size the
    # inserts reach depends on the number of recorded columns (NULLs take a byte each).
    assert os.path.getsize(db) <= reached + 100_000
    with sqlite3.connect(str(db)) as con:
        oldest, newest = con.execute("SELECT min(time_ms), max(time_ms) FROM gpu_samples WHERE gpu_id = ? "
                                     "AND time_ms < ?", (gpu, start + 60_000_000)).fetchone()
        assert oldest > start            # the oldest went
        assert newest == start + 59_999_000  # the newest stayed
    assert gpuwatch(["record", "--db", str(db), "--count", "1", "--max-size", "lots"]).returncode == 2


def test_csv_rotation_by_size_keeps_n_whole_files(tmp_path):
    log = tmp_path / "gpu.csv"
    r = gpuwatch(["record", "--csv", str(log), "--fields", "index,utilization.gpu,memory.used", "--interval", "10ms",
                  "--count", "40", "--rotate-size", "1k", "--keep", "2"])
    assert r.returncode == 0, r.stderr
    files = [log, tmp_path / "gpu.csv.1", tmp_path / "gpu.csv.2"]
    assert all(f.exists() for f in files) and not (tmp_path / "gpu.csv.3").exists()
    header = files[0].read_text().splitlines()[0]
    assert header.startswith("time, index, utilization.gpu")
    for f in files:
        text = f.read_text()
        assert f.stat().st_size <= 1024 and text.endswith("\n")
        lines = text.splitlines()
        assert lines[0] == header and len(lines) >= 3
        assert all(len(line.split(", ")) == 4 for line in lines[1:])


def test_jsonl_rotation_by_age(tmp_path):
    log = tmp_path / "gpu.jsonl"
    r = gpuwatch(["record", "--jsonl", str(log), "--interval", "100ms", "--count", "12", "--rotate-age", "500ms",
                  "--keep", "5"])
    assert r.returncode == 0, r.stderr
    rotated = sorted(tmp_path.glob("gpu.jsonl.*"))
    assert 1 <= len(rotated) <= 5
    total = 0
    for f in [log] + rotated:
        for line in f.read_text().splitlines():
            json.loads(line)
            total += 1
    assert total == 24  # 12 samples x 2 GPUs, none lost (fewer than --keep rotations)


def test_rotation_needs_a_log(tmp_path):
    r = gpuwatch(["record", "--db", str(tmp_path / "h.db"), "--count", "1", "--rotate-size", "1M"])
    assert r.returncode == 2 and "--csv" in r.stderr
