"""gpuwatch serve records too (issue 5): the samples it serves land in the history
database that `gpuwatch history` reads; SIGTERM writes the last batch; --no-record writes
nothing; an unwritable --db is a clear error while an unwritable DEFAULT only warns; and
/api/v1/history beyond the in-memory ring buffer answers from the database, in the same
columnar shape."""
import json
import os
import signal
import sqlite3
import subprocess
import time

import pytest

from test_serve import BIN, MIB, Server, sim_env  # the serve fixture shared by the serve tests


def count_rows(db):
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # schema not there yet


def wait_for_rows(db, minimum, timeout=15.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if count_rows(db) >= minimum:
            return
        time.sleep(0.1)
    pytest.fail(f"fewer than {minimum} rows in {db} after {timeout} s")


def history(db, *args):
    out = subprocess.run([BIN, "history", "--db", str(db), "--since", "all", "--format", "jsonl", *args],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_serve_records_what_it_serves(tmp_path):
    db = tmp_path / "history.db"
    with Server(sim_env("training", seconds_in=120), "--interval", "200ms", "--flush-interval", "500ms",
                "--db", str(db)) as server:
        server.wait_ready()
        snapshot = server.get_json("/api/v1/snapshot")
        wait_for_rows(db, 6)
        rc, _, err = server.stop()
        assert rc == 0, err
        assert f"recording history to {db}" in err
    rows = history(db)
    assert len(rows) >= 6
    assert sorted({r["index"] for r in rows}) == [0, 1]
    # The GPUs of one tick share a time (one snapshot per tick, as `record` writes them).
    times = {}
    for r in rows:
        times.setdefault(r["time"], set()).add(r["index"])
    assert sum(1 for gpus in times.values() if gpus == {0, 1}) >= len(times) - 2, times
    for gpu in snapshot["gpus"]:
        mine = [r for r in rows if r["index"] == gpu["index"]]
        assert mine and all(r["uuid"] == gpu["uuid"] and r["name"] == gpu["name"] for r in mine)
        assert {r["memory_total_bytes"] for r in mine} == {gpu["memory_total_bytes"]} == {81920 * MIB}
        assert {r["memory_used_bytes"] for r in mine} == {gpu["memory_used_bytes"]}  # the steady 60 GiB job
        assert all(r["fan_speed_ratio"] is None for r in mine)  # SXM: no fan, NULL never 0
        assert all(r["pstate"] == 0 for r in mine)  # a recorded field /metrics does not export
    processes = history(db, "--processes")
    assert sorted(p["gpu_index"] for p in processes) == [0, 1]
    assert all(p["max_used_memory_bytes"] == 61440 * MIB and p["user"] for p in processes)


def test_sigterm_writes_the_last_batch(tmp_path):
    db = tmp_path / "history.db"
    with Server(sim_env("training", seconds_in=120), "--interval", "200ms", "--flush-interval", "1h",
                "--db", str(db)) as server:
        server.wait_ready()
        time.sleep(1.0)
        assert count_rows(db) == 0  # nothing is due within the hour
        stopped_at = time.time()
        rc, _, err = server.stop(signal.SIGTERM)
        assert rc == 0, err
    assert count_rows(db) >= 8  # >= 4 ticks x 2 GPUs
    last = max(r["time"] for r in history(db))
    with sqlite3.connect(str(db)) as con:
        newest_ms = con.execute("SELECT max(time_ms) FROM gpu_samples").fetchone()[0]
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert stopped_at - newest_ms / 1000 < 1.0, last  # the samples up to the stop are there


def test_the_default_database_and_no_record(tmp_path):
    env = sim_env("training", seconds_in=120)
    # issue 9: on the simulator the default is the scenario's own file, never the real history.
    real_db = os.path.join(env["XDG_STATE_HOME"], "gpuwatch", "history.db")
    default_db = os.path.join(env["XDG_STATE_HOME"], "gpuwatch", "simulated", "training.db")
    with Server(env, "--interval", "200ms", "--no-record") as server:
        server.wait_ready()
        assert server.get_json("/api/v1/history")["source"] == "memory"
        time.sleep(0.5)
        rc, _, err = server.stop()
        assert rc == 0, err
        assert "recording" not in err
    assert not os.path.exists(os.path.dirname(default_db)), "--no-record writes nothing"

    with Server(env, "--interval", "200ms", "--flush-interval", "200ms") as server:  # no --db: the default
        server.wait_ready()
        wait_for_rows(default_db, 2)
        rc, _, err = server.stop()
        assert rc == 0, err
        assert f"history goes to {default_db}, not to your own history {real_db}" in err
    assert not os.path.exists(real_db)
    assert sqlite3.connect(default_db).execute("SELECT simulated, scenario FROM sources").fetchall() == [(1, "training")]


def serve_once(env, *args):
    """serve that is expected to refuse to start."""
    return subprocess.run([BIN, "--simulate", "training", "serve", "--listen", "127.0.0.1:0", *args], env=env,
                          capture_output=True, text=True, timeout=30)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_db_folder_is_a_clear_error(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        out = serve_once(sim_env("training"), "--db", str(locked / "history.db"))
        assert out.returncode == 1, out.stderr
        assert "cannot write to the folder" in out.stderr and str(locked) in out.stderr
        assert "listening" not in out.stdout
    finally:
        locked.chmod(0o700)


def test_an_unusable_db_is_an_error_but_an_unusable_default_only_warns(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the database folder should be\n")
    env = sim_env("training")
    out = serve_once(env, "--db", str(blocker / "history.db"))
    assert out.returncode == 1, out.stderr
    assert f"{blocker} is not a folder" in out.stderr and "listening" not in out.stdout

    env["XDG_STATE_HOME"] = str(blocker)  # the default database cannot be made: serve anyway
    with Server(env, "--interval", "200ms") as server:
        server.wait_ready()
        assert "gpuwatch_gpus 2" in server.metrics()
        rc, _, err = server.stop()
        assert rc == 0, err
        assert err.count("not recording history") == 1 and "--no-record" in err, err


def test_history_beyond_the_ring_buffer_comes_from_the_store(tmp_path):
    db = tmp_path / "history.db"
    env = sim_env("training", seconds_in=120)
    recorded = subprocess.run([BIN, "--simulate", "training", "record", "--db", str(db), "--interval", "100ms",
                               "--count", "30"], env=env, capture_output=True, text=True, timeout=60)
    assert recorded.returncode == 0, recorded.stderr
    started = time.time()
    time.sleep(0.2)
    # A 2-sample ring buffer (2 s at 1 s): anything longer comes from the database.
    with Server(env, "--interval", "1s", "--history", "2s", "--flush-interval", "500ms", "--db", str(db)) as server:
        server.wait_ready()
        # Until the ring holds its whole 2 s the window reaches before it: the store adds the rest.
        deadline = time.monotonic() + 8
        while (memory := server.get_json("/api/v1/history?seconds=2"))["source"] != "memory":
            assert time.monotonic() < deadline, memory
            time.sleep(0.2)
        assert memory["resolution_seconds"] == 1
        assert all(t >= started for g in memory["gpus"] for t in g["timestamp_s"])

        stored = server.get_json("/api/v1/history?seconds=600")
        assert stored["source"] == "store", stored.get("store_error")
        assert stored["resolution_seconds"] == 1  # 600 s / 1000 points, never finer than --interval
        assert stored["fields"] == memory["fields"] and [g["index"] for g in stored["gpus"]] == [0, 1]
        for gpu in stored["gpus"]:
            n = len(gpu["timestamp_s"])
            assert all(len(gpu[key]) == n for key in ["up", "processes", *stored["fields"]]), gpu
            older = [t for t in gpu["timestamp_s"] if t < started]
            assert len(older) >= 3, gpu["timestamp_s"]  # `record`'s 3 s, before serve started
            assert gpu["timestamp_s"] == sorted(gpu["timestamp_s"])
            assert set(gpu["memory_total_bytes"]) == {81920 * MIB}
            assert all(u >= 0.9 for u in gpu["utilization_gpu_ratio"])  # steady training
            assert set(gpu["fan_speed_ratio"]) == {None}  # absent stays null in the store
            assert set(gpu["power_limit_w"]) == {None}  # not recorded: null, never 0

        day = server.get_json("/api/v1/history?seconds=86400&gpu=1")
        assert day["source"] == "store" and day["resolution_seconds"] == 120  # 86.4 s rounds up to 2 min
        assert [g["index"] for g in day["gpus"]] == [1]
        assert 1 <= len(day["gpus"][0]["timestamp_s"]) <= 2
        assert day["gpus"][0]["timestamp_s"][0] <= started
        rc, _, err = server.stop()
        assert rc == 0, err

    # A serve that just started: its ring (1 min) holds a few seconds, so a 1-minute window is the
    # store's rows before the ring's first, then the ring's: the history does not start at the restart.
    restarted = time.time()
    with Server(env, "--interval", "1s", "--history", "1m", "--flush-interval", "500ms", "--db", str(db)) as server:
        server.wait_ready()
        minute = server.get_json("/api/v1/history?seconds=60")
        assert minute["source"] == "store", minute.get("store_error")
        for gpu in minute["gpus"]:
            times = gpu["timestamp_s"]
            assert times == sorted(times) and len(set(times)) == len(times), times
            assert any(t < started for t in times), times  # `record`'s, before either serve
            assert times[-1] >= restarted, times  # and the ring's newest
        rc, _, err = server.stop()
        assert rc == 0, err


def test_two_servers_on_one_database(tmp_path):
    db = tmp_path / "history.db"
    with Server(sim_env("training", 120), "--interval", "200ms", "--flush-interval", "300ms", "--db", str(db)) as a, \
            Server(sim_env("demo", 120), "--interval", "200ms", "--flush-interval", "300ms", "--db", str(db)) as b:
        a.wait_ready()
        b.wait_ready()
        wait_for_rows(db, 20)
        assert b.get_json("/api/v1/history?seconds=3600")["source"] == "store"
        for server in (a, b):
            rc, _, err = server.stop()
            assert rc == 0, err
            assert "cannot write" not in err
    with sqlite3.connect(str(db)) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("SELECT count(*) FROM gpus").fetchone()[0] == 2 + 8  # training's 2, demo's 8


def test_a_locked_database_never_slows_serving(tmp_path):
    db = tmp_path / "history.db"
    with Server(sim_env("training", seconds_in=120), "--interval", "200ms", "--flush-interval", "300ms",
                "--db", str(db)) as server:
        server.wait_ready()
        wait_for_rows(db, 2)
        locker = sqlite3.connect(str(db), isolation_level=None, timeout=10)
        locker.execute("BEGIN EXCLUSIVE")  # every write waits: the recorder's busy timeout (5 s) runs out
        try:
            deadline = time.monotonic() + 6.5
            while time.monotonic() < deadline:
                started = time.monotonic()
                status, _, body = server.get("/metrics", timeout=3)
                assert status == 200 and 'gpuwatch_up{gpu="0"' in body
                assert time.monotonic() - started < 1.0  # samplers and scrapes never wait for the database
                time.sleep(0.2)
        finally:
            locker.execute("COMMIT")
            locker.close()
        before = count_rows(db)
        wait_for_rows(db, before + 4)  # the buffered rows, and new ones, are written again
        rc, _, err = server.stop()
        assert rc == 0, err
    assert err.count("cannot write history") == 1, err  # said once, not every flush
    assert f"writing to {db} again" in err, err
    with sqlite3.connect(str(db)) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
