"""Issue 31, part C: a history file is input. Each hostile database of the red team's report is
built here with Python's sqlite3 (a view of 2e9 rows in place of gpu_samples, 100,000 GPUs,
5 MB command lines, a time of INT64_MAX) and `history`, `report` and `diagnose` must give a clear
error, or a bounded result, within 5 s and under 100 MB of peak memory (docs/security.md)."""
import json
import os
import sqlite3
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")

LIMIT_S = 5.0
LIMIT_RSS_KB = 100 * 1024
INT64_MAX = 2**63 - 1


class _Popen(subprocess.Popen):
    """Popen whose wait keeps the child's own rusage (os.wait4), not the maximum over every
    child this test process ran (RUSAGE_CHILDREN)."""

    rusage_kb = 0

    def _try_wait(self, wait_flags):
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:
            return self.pid, 0
        if pid != 0:
            self.rusage_kb = usage.ru_maxrss
        return pid, status



def gpuwatch_bounded(args):
    started = time.monotonic()
    proc = _Popen([BIN, "--nvml-library", SIM_LIB] + args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                  stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"gpuwatch {' '.join(args)} still ran after 20 s")
    seconds = time.monotonic() - started
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), seconds, proc.rusage_kb


def assert_bounded(result, what):
    rc, out, err, seconds, rss_kb = result
    assert seconds < LIMIT_S, f"{what}: {seconds:.1f} s\n{err}"
    assert 0 < rss_kb < LIMIT_RSS_KB, f"{what}: peak RSS {rss_kb} KiB\n{err}"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A real history: 3 samples of the training scenario (one GPU process)."""
    path = tmp_path_factory.mktemp("hostile") / "base.db"
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO="training")
    r = subprocess.run([BIN, "--nvml-library", SIM_LIB, "record", "--db", str(path), "--interval", "100ms", "--count", "3"],
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return path


def copy_of(recorded, tmp_path, name):
    path = tmp_path / name
    src = sqlite3.connect(str(recorded))
    dst = sqlite3.connect(str(path))
    src.backup(dst)
    src.close()
    return dst, path


READERS = [
    ["history", "--since", "all"],
    ["history", "--since", "all", "--processes", "--format", "csv"],
    ["report", "--since", "all"],
    ["diagnose", "--since", "all"],
]


def test_a_view_of_two_billion_rows_in_place_of_gpu_samples_is_refused_at_once(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "view.db")
    db.executescript(
        "ALTER TABLE gpu_samples RENAME TO real_samples;"
        "CREATE VIEW gpu_samples AS SELECT r.* FROM real_samples r,"
        " (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT x FROM c);")
    db.commit()
    db.close()
    for args in READERS:
        result = gpuwatch_bounded(args + ["--db", str(path)])
        rc, out, err, _, _ = result
        assert rc != 0, (args, out)
        assert "view" in err and "gpu_samples" in err and str(path) in err, (args, err)
        assert_bounded(result, args)


def test_a_trigger_is_refused(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "trigger.db")
    db.executescript("CREATE TRIGGER t AFTER INSERT ON gpus BEGIN DELETE FROM gpu_samples; END;")
    db.commit()
    db.close()
    rc, out, err, _, _ = gpuwatch_bounded(["history", "--since", "all", "--db", str(path)])
    assert rc != 0 and "trigger" in err and "`t`" in err, err


def test_a_hundred_thousand_gpus_are_refused(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "gpus.db")
    db.executemany("INSERT INTO gpus (gpu_key, uuid, gpu_index, name, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, 0, 0)",
                   ((f"GPU-{i:08d}", f"GPU-{i:08d}", i, "x" * 40) for i in range(100_000)))
    db.commit()
    db.close()
    assert os.path.getsize(path) > 5_000_000
    for args in READERS + [["history", "--jobs"]]:
        result = gpuwatch_bounded(args + ["--db", str(path)])
        rc, out, err, _, _ = result
        assert rc != 0, (args, out[:200])
        assert "1024 GPUs" in err and str(path) in err, (args, err)
        assert_bounded(result, args)


def test_a_view_whose_type_is_spelt_otherwise_is_refused_all_the_same(recorded, tmp_path):
    """SQLite loads the schema from its `sql` text and checks `type` without case: a crafted row
    typed 'View' over a CREATE VIEW is still a view, and still refused."""
    for spelling in ("View", "VIEW"):
        db, path = copy_of(recorded, tmp_path, f"view-{spelling}.db")
        db.executescript(
            "ALTER TABLE gpu_samples RENAME TO real_samples;"
            "CREATE VIEW gpu_samples AS SELECT r.* FROM real_samples r,"
            " (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000000000) SELECT x FROM c);")
        db.commit()
        db.execute("PRAGMA writable_schema = ON")
        db.execute("UPDATE sqlite_master SET type = ? WHERE name = 'gpu_samples'", (spelling,))
        db.commit()
        db.close()
        result = gpuwatch_bounded(["history", "--since", "all", "--db", str(path)])
        rc, out, err, _, _ = result
        assert rc != 0 and "gpu_samples" in err and "refusing" in err, (spelling, out[:200], err)
        assert_bounded(result, spelling)


def test_a_hundred_thousand_gpus_in_a_table_named_in_capitals_are_refused(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "GPUS.db")
    db.execute("ALTER TABLE gpus RENAME TO gpus_renamed")
    db.execute("ALTER TABLE gpus_renamed RENAME TO GPUS")
    db.executemany("INSERT INTO GPUS (gpu_key, uuid, gpu_index, name, first_seen_ms, last_seen_ms) VALUES (?, ?, ?, ?, 0, 0)",
                   ((f"GPU-{i:08d}", f"GPU-{i:08d}", i, "x") for i in range(100_000)))
    db.commit()
    db.close()
    result = gpuwatch_bounded(["history", "--since", "all", "--db", str(path)])
    rc, out, err, _, _ = result
    assert rc != 0 and "1024 GPUs" in err, (out[:200], err)
    assert_bounded(result, "GPUS")


def test_five_megabyte_command_lines_are_clipped_on_read(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "commands.db")
    huge = "python train.py " + "A" * (5 * 1024 * 1024)
    key, gpu_id = db.execute("SELECT gpu_key, id FROM gpus LIMIT 1").fetchone()
    first, last = db.execute("SELECT min(time_ms), max(time_ms) FROM gpu_samples").fetchone()
    for pid in range(70000, 70020):  # 20 processes, each with a 5 MB command: 100 MB of text
        db.execute("INSERT INTO process_commands (gpu_key, pid, first_ms, last_ms, command) VALUES (?, ?, ?, ?, ?)",
                   (key, pid, first, last, huge))
        db.execute("INSERT INTO process_samples (time_ms, gpu_id, pid, name, user, type, used_memory_bytes) "
                   "VALUES (?, ?, ?, 'python', 'mallory', 'C', 1024)", (first, gpu_id, pid))
    db.execute("INSERT INTO jobs (name, command, user, host, start_ms, gpus) VALUES ('big', ?, 'mallory', 'h', ?, '[]')",
               (json.dumps(["python", huge]), first))
    db.commit()
    db.close()
    rc, out, err, _, _ = result = gpuwatch_bounded(["history", "--since", "all", "--processes", "--format", "csv",
                                                    "--db", str(path)])
    assert rc == 0, err
    assert_bounded(result, "history --processes")
    lines = [line for line in out.splitlines() if "mallory" in line]
    assert len(lines) == 20, out[:500]
    assert all("python train.py AAAA" in line and len(line.encode()) < 1024 + 200 for line in lines), lines[0][:300]
    rc, out, err, _, _ = result = gpuwatch_bounded(["history", "--jobs", "--format", "json", "--db", str(path)])
    assert rc == 0, err
    assert_bounded(result, "history --jobs")
    assert len(out) < 20_000 and "big" in out
    for args in (["report", "--since", "all"], ["diagnose", "--since", "all"]):
        result = gpuwatch_bounded(args + ["--db", str(path)])
        assert result[0] in (0, 1), (args, result[2])  # diagnose: 1 when it has findings
        assert_bounded(result, args)
        assert "A" * 2000 not in result[1]


def test_a_time_of_int64_max_is_left_out(recorded, tmp_path):
    db, path = copy_of(recorded, tmp_path, "time.db")
    real_rows = db.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    db.execute("INSERT INTO gpu_samples (time_ms, gpu_id) SELECT ?, id FROM gpus", (INT64_MAX,))
    db.execute("INSERT INTO jobs (name, command, user, host, start_ms, end_ms, gpus) "
               "VALUES ('future', '[\"x\"]', 'mallory', 'h', ?, ?, '[]')", (INT64_MAX, INT64_MAX))
    db.commit()
    db.close()
    for args in READERS + [["report", "--since", "all", "--format", "json"], ["history", "--jobs"]]:
        result = gpuwatch_bounded(args + ["--db", str(path)])
        rc, out, err, _, _ = result
        assert rc in (0, 1), (args, err)
        assert "292278" not in out + err, (args, out)
        assert_bounded(result, args)
    rc, out, err, _, _ = gpuwatch_bounded(["history", "--since", "all", "--format", "csv", "--db", str(path)])
    assert len([line for line in out.splitlines()[1:] if line]) == real_rows, out  # the real rows, not the one of INT64_MAX


def test_the_read_deadline_stops_a_slow_read_with_a_clear_note(recorded, tmp_path):
    """The deadline itself (5 s by default), shortened to 1 ms over 200,000 rows."""
    db, path = copy_of(recorded, tmp_path, "slow.db")
    db.execute("INSERT INTO gpu_samples (time_ms, gpu_id) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c "
               "WHERE x < 200000) SELECT 1700000000000 + x, (SELECT min(id) FROM gpus) FROM c")
    db.commit()
    db.close()
    env = dict(os.environ, GPUWATCH_READ_TIMEOUT="0.001")
    for args in (["history", "--since", "all", "--format", "csv"], ["report", "--since", "all"]):
        r = subprocess.run([BIN] + args + ["--db", str(path)], env=env, capture_output=True, text=True, timeout=20)
        assert r.returncode != 0, (args, r.stdout[:300])
        assert "GPUWATCH_READ_TIMEOUT" in r.stderr and str(path) in r.stderr, (args, r.stderr)
    r = subprocess.run([BIN, "history", "--since", "all", "--format", "csv", "--db", str(path)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and len(r.stdout.splitlines()) > 200000, r.stderr  # the default deadline lets it read


def test_record_refuses_a_dangling_symlink_as_db(tmp_path):
    target = tmp_path / "elsewhere" / "created.db"
    target.parent.mkdir()
    link = tmp_path / "link.db"
    os.symlink(target, link)
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO="idle")
    r = subprocess.run([BIN, "--nvml-library", SIM_LIB, "record", "--db", str(link), "--interval", "100ms", "--count", "1"],
                       env=env, capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "symlink" in r.stderr and str(link) in r.stderr, r.stderr
    assert not target.exists()
    assert os.path.islink(link)
