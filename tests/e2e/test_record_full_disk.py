"""A really full disk (issue 5, Reliability): `gpuwatch record` on a small tmpfs keeps
running while the disk is full, says so once per output, writes nothing partial, and
resumes writing (the rows buffered meanwhile included) once there is room; SIGTERM then
exits 0 and the database passes PRAGMA integrity_check. Needs root and mount(2): skipped
with the reason where tmpfs cannot be mounted (a container without CAP_SYS_ADMIN)."""
import errno
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")


@pytest.fixture
def small_disk(tmp_path):
    mount_point = tmp_path / "disk"
    mount_point.mkdir()
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount_point)], capture_output=True,
                       text=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here (needs root with CAP_SYS_ADMIN): {r.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def rows_in(db):
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def wait_until(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    pytest.fail(f"not within {timeout} s: {what}")


def fill(path):
    """Writes zeros to PATH until the file system is full (bounded by its size)."""
    chunk = b"\0" * (64 * 1024)
    with open(path, "wb", buffering=0) as f:
        for _ in range(10_000):  # 640 MiB at most; the disk is 8 MiB
            try:
                f.write(chunk)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e
                break
        else:
            pytest.fail("the small disk never filled")
    for size in (4096, 512, 1):  # the last few bytes too
        with open(path, "ab", buffering=0) as f:
            try:
                while True:
                    f.write(b"\0" * size)
            except OSError as e:
                assert e.errno == errno.ENOSPC, e


def last_line_is_whole(path, parse):
    data = path.read_bytes()
    assert data.endswith(b"\n"), f"{path} ends in a partial row: {data[-80:]!r}"
    parse(data.splitlines()[-1].decode())


def test_full_disk_recorder_keeps_running_says_so_once_and_resumes(small_disk, tmp_path):
    db, csv_log, jsonl_log = small_disk / "h.db", small_disk / "h.csv", small_disk / "h.jsonl"
    stderr_path = tmp_path / "stderr.txt"  # off the small disk
    env = dict(os.environ, GPUWATCH_SIM_DRIVER_DIR=os.environ["GPUWATCH_SIM_DRIVER_DIR"])
    with open(stderr_path, "w") as stderr:
        rec = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "--simulate", "demo", "record", "--db", str(db),
                                "--csv", str(csv_log), "--jsonl", str(jsonl_log), "--interval", "100ms",
                                "--flush-interval", "200ms"],
                               env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_until(lambda: rows_in(db) >= 16, 20, "first rows recorded")
        fill(small_disk / "filler")
        time.sleep(3)  # ~30 samples, ~15 flushes against a full disk
        assert rec.poll() is None, stderr_path.read_text()
        text = stderr_path.read_text()
        full_lines = [line for line in text.splitlines() if "disk is full" in line or "No space left" in line]
        for output in (db, csv_log, jsonl_log):
            said = [line for line in full_lines if str(output) in line]
            assert len(said) == 1, f"{output}: expected one full-disk message, got {said}\n{text}"
        assert len(full_lines) == 3, text
        # Nothing partial while full.
        last_line_is_whole(csv_log, lambda line: line.split(", "))
        last_line_is_whole(jsonl_log, json.loads)
        rows_while_full = rows_in(db)

        os.remove(small_disk / "filler")
        wait_until(lambda: rows_in(db) > rows_while_full, 10, "rows written again after the disk has room")
        wait_until(lambda: stderr_path.read_text().count("again") >= 3, 10, "'writing to ... again' per output")
        # The samples taken while the disk was full were kept in memory and written now.
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            times = [t for (t,) in con.execute("SELECT DISTINCT time_ms FROM gpu_samples ORDER BY time_ms")]
            assert max(b - a for a, b in zip(times, times[1:])) < 2500, "a gap: samples from the 3 s full period lost"

        rec.send_signal(signal.SIGTERM)
        assert rec.wait(timeout=10) == 0, stderr_path.read_text()
        assert "dropped" not in stderr_path.read_text()
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    with sqlite3.connect(str(db)) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    last_line_is_whole(csv_log, lambda line: line.split(", "))
    for line in jsonl_log.read_text().splitlines():
        json.loads(line)
    header = csv_log.read_text().splitlines()[0]
    for line in csv_log.read_text().splitlines()[1:]:
        assert line != header and line.count(", ") == header.count(", "), line
