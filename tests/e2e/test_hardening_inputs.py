"""Issue 16, part 3: bounded and validated inputs everywhere. Each test is one finding of the
attack on gpuwatch, rerun: a symlink at report -o's temporary name, invalid UTF-8 through every
JSON output, unbounded reads (FIFO, /dev/zero), numbers out of range, databases that are not
gpuwatch's, and `sim import` limits."""
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time

import pytest

from test_serve import Server, sim_env  # the serve fixture shared by the serve tests

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")

# A GPU name and a process command line with bytes that are not UTF-8 (0xff, a cut 0xc3).
BAD_UTF8_SCENARIO = (
    b"name: bad_utf8\n"
    b"description: One H100 whose name and process command are not valid UTF-8.\n"
    b"gpus:\n"
    b"  - model: H100 SXM 80GB\n"
    b"    values: {name: \"NVIDIA H100 \xff\xfe\"}\n"
    b"    phases:\n"
    b"      - {kind: training, duration: 1h}\n"
    b"    processes:\n"
    b"      - {command: \"tr\xc3ain.py --config a.yaml\", user: rita, memory: 1024}\n"
)


def gpuwatch(args, scenario="idle", timeout=30, env=None):
    env = env or dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario)
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env, capture_output=True, text=True,
                          timeout=timeout, errors="replace")


def record_db(path, scenario="idle", count=2):
    r = gpuwatch(["record", "--db", str(path), "--interval", "100ms", "--count", str(count)], scenario)
    assert r.returncode == 0, r.stderr


# --- report -o and every other write: never through a planted link --------------------------

def test_report_output_does_not_follow_a_symlink_at_its_temporary_name(tmp_path):
    db = tmp_path / "h.db"
    record_db(db)
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "report.html"
    os.symlink(victim, str(out) + ".tmp")
    r = gpuwatch(["report", "--db", str(db), "--since", "1h", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious"
    assert out.read_text().lstrip().lower().startswith("<!doctype html")
    assert os.path.islink(str(out) + ".tmp")  # left as it was
    assert not any(p.name.startswith(".report.html.") for p in tmp_path.iterdir())  # no temporary file left


def test_record_log_refuses_a_symlink_and_sim_import_output_does_not_follow_one(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    log = tmp_path / "gpu.csv"
    os.symlink(victim, log)
    r = gpuwatch(["record", "--csv", str(log), "--count", "1", "--interval", "100ms"])
    assert r.returncode == 1 and "symbolic link" in r.stderr, r.stderr
    assert victim.read_text() == "precious"

    capture = tmp_path / "q.csv"
    capture.write_text("name, power.draw [W]\nNVIDIA H100 80GB HBM3, 300.00 W\n")
    out = tmp_path / "node.yaml"
    os.symlink(victim, str(out) + ".tmp")
    r = gpuwatch(["sim", "import", str(capture), "-o", str(out)])
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == "precious" and "power.draw" in out.read_text()


# --- invalid UTF-8: replaced (U+FFFD), never an exit 1 or a 500 -------------------------------

@pytest.fixture
def bad_utf8(tmp_path):
    path = tmp_path / "bad_utf8.yaml"
    path.write_bytes(BAD_UTF8_SCENARIO)
    return str(path)


def simulate(scenario, args, timeout=30):
    """ARGS on the simulated driver with --simulate: the scenario's processes run as stand-ins."""
    return subprocess.run([BIN, "--simulate", scenario] + args, capture_output=True, text=True, timeout=timeout,
                          errors="replace", env=dict(os.environ, XDG_STATE_HOME=os.path.dirname(scenario)))


def test_invalid_utf8_goes_through_every_json_output(bad_utf8, tmp_path):
    r = simulate(bad_utf8, ["status", "--json"])
    assert r.returncode == 0, r.stderr
    gpu = json.loads(r.stdout)["gpus"][0]
    assert gpu["name"] == "NVIDIA H100 \ufffd\ufffd"
    assert gpu["processes"] and gpu["processes"][0]["command_line"] == "tr\ufffdain.py --config a.yaml", gpu["processes"]

    r = gpuwatch(["query", "--query-gpu=index,name", "--format=json"], bad_utf8)
    assert r.returncode == 0 and json.loads(r.stdout)[0]["name"] == "NVIDIA H100 \ufffd\ufffd", r.stderr

    db, jsonl = tmp_path / "h.db", tmp_path / "gpu.jsonl"
    r = simulate(bad_utf8, ["record", "--db", str(db), "--jsonl", str(jsonl), "--interval", "100ms", "--count", "2"])
    assert r.returncode == 0, r.stderr
    rows = [json.loads(line) for line in jsonl.read_text(errors="strict").splitlines()]
    assert len(rows) == 2 and rows[0]["name"] == "NVIDIA H100 \ufffd\ufffd"

    r = gpuwatch(["history", "--db", str(db), "--since", "1h", "--format", "jsonl"], bad_utf8)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["name"] == "NVIDIA H100 \ufffd\ufffd"
    r = gpuwatch(["history", "--db", str(db), "--since", "1h", "--processes", "--format", "jsonl"], bad_utf8)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[0])["name"] == "tr\ufffdain.py", r.stdout[:500]

    r = gpuwatch(["report", "--db", str(db), "--since", "1h", "--format", "json"], bad_utf8)
    assert r.returncode == 0, r.stderr
    report = json.dumps(json.loads(r.stdout), ensure_ascii=False)
    assert "NVIDIA H100 \ufffd\ufffd" in report and "tr\ufffdain.py" in report

    server = Server(sim_env(bad_utf8), "--no-record")
    try:
        server.wait_ready()
        snapshot = server.get_json("/api/v1/snapshot")
        assert snapshot["gpus"][0]["name"] == "NVIDIA H100 \ufffd\ufffd"
        status, _, body = server.get("/api/v1/history?seconds=1e18")
        assert status == 400 and "seconds must be at most 315360000" in body, body
        assert server.get("/api/v1/history?seconds=60")[0] == 200
    finally:
        server.stop()


# --- unbounded reads: regular files only, under 64 MiB ----------------------------------------

def test_sim_import_and_replay_refuse_a_fifo_and_dev_zero_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    started = time.monotonic()
    r = gpuwatch(["sim", "import", str(fifo), "-o", str(tmp_path / "x.yaml")], timeout=10)
    assert time.monotonic() - started < 5
    assert r.returncode == 2 and "is a FIFO (named pipe): give a regular file" in r.stderr, r.stderr
    r = gpuwatch(["sim", "import", "/dev/zero", "-o", str(tmp_path / "x.yaml")], timeout=10)
    assert r.returncode == 2 and "'/dev/zero' is a device: give a regular file" in r.stderr, r.stderr
    assert not (tmp_path / "x.yaml").exists()

    scenario = tmp_path / "replay.yaml"
    scenario.write_text("gpus:\n  - model: H100 SXM 80GB\n    phases:\n"
                        f"      - {{kind: replay, file: {fifo}}}\n")
    started = time.monotonic()
    r = gpuwatch(["sim", "show", str(scenario)], timeout=10)
    assert time.monotonic() - started < 5
    assert r.returncode != 0 and "FIFO" in r.stderr, r.stderr


# --- numbers: a clear error that names the value ----------------------------------------------

def test_huge_and_non_finite_numbers_are_clear_errors(tmp_path):
    huge = "9" * 400
    record_db(tmp_path / "h.db")
    for args in (["history", "--db", str(tmp_path / "h.db"), "--since", huge],
                 ["report", "--db", str(tmp_path / "h.db"), "--until", huge],
                 ["record", "--db", str(tmp_path / "h.db"), "--interval", huge]):
        r = gpuwatch(args)
        assert r.returncode == 2, (args, r.stderr)
        assert "stod" not in r.stderr and "out of range" in r.stderr and "9999999999" in r.stderr, r.stderr
        assert len(r.stderr) < 400, r.stderr  # the value is named, not echoed whole
    r = gpuwatch(["history", "--db", str(tmp_path / "h.db"), "--since", "@9300000000000000"])
    assert r.returncode == 2 and "'@9300000000000000' is out of range" in r.stderr, r.stderr
    for value in ("nan", "1e308", "0"):
        r = gpuwatch(["status", "-i", value])
        assert r.returncode == 2, r.stderr
        assert "1ms to 8760h" in r.stderr and len(r.stderr) < 400, r.stderr


def test_scenario_values_out_of_range_are_load_errors_naming_file_line_and_key(tmp_path):
    cases = {
        "values: {power.draw: 1e308}": "key 'power.draw': '1e308' is out of range",
        "count: 1.5": "key 'count': expected a whole number from 0 to 64, got '1.5'",
    }
    for line, message in cases.items():
        path = tmp_path / "bad.yaml"
        path.write_text(f"gpus:\n  - model: H100 SXM 80GB\n    {line}\n")
        r = gpuwatch(["sim", "show", str(path)])
        assert r.returncode != 0 and f"{path}:3: {message}" in r.stderr, r.stderr
    path = tmp_path / "delay.yaml"
    path.write_text("gpus:\n  - model: H100 SXM 80GB\nfaults:\n  - {function: nvmlDeviceGetName, delay_ms: -5}\n")
    r = gpuwatch(["sim", "show", str(path)])
    assert f"{path}:4: key 'delay_ms': expected 0 to 3600000, got '-5'" in r.stderr, r.stderr


# --- databases ---------------------------------------------------------------------------------

def test_record_refuses_another_programs_database_without_touching_it(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(str(other)) as con:
        con.execute("CREATE TABLE notes (body TEXT)")
        con.execute("INSERT INTO notes VALUES ('mine')")
    before = other.read_bytes()
    r = gpuwatch(["record", "--db", str(other), "--count", "1"])
    assert r.returncode == 1 and "another program's SQLite database" in r.stderr, r.stderr
    assert other.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]  # no -wal, -shm or -journal


def test_record_refuses_dev_null_and_a_directory_by_name(tmp_path):
    r = gpuwatch(["record", "--db", "/dev/null", "--count", "1"])
    assert r.returncode == 1 and "/dev/null is a device, not a history database" in r.stderr, r.stderr
    assert not os.path.exists("/dev/null-journal") and not os.path.exists("/dev/null-wal")
    r = gpuwatch(["record", "--db", str(tmp_path), "--count", "1"])
    assert r.returncode == 1 and "is a directory, not a history database" in r.stderr, r.stderr
    assert "disk I/O error" not in r.stderr
    r = gpuwatch(["history", "--db", str(tmp_path)])
    assert r.returncode != 0 and "is a directory" in r.stderr, r.stderr


def test_history_reads_a_database_on_read_only_media():
    """As a user who may not write the file nor its folder (root writes anywhere: the reader runs
    as nobody through setpriv then), the way a read-only mount or backup looks."""
    as_reader = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            pytest.skip("root writes anywhere, and setpriv is missing to read as another user")
        as_reader = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    folder = tempfile.mkdtemp(prefix="gpuwatch-ro-")
    try:
        db = os.path.join(folder, "h.db")
        record_db(db)
        for side in ("-wal", "-shm"):
            if os.path.exists(db + side):
                os.unlink(db + side)
        os.chmod(db, 0o444)
        os.chmod(folder, 0o555)
        r = subprocess.run(as_reader + [BIN, "history", "--db", db, "--since", "1h", "--format", "jsonl"],
                           capture_output=True, text=True, timeout=30)
        assert r.returncode == 0, r.stderr
        assert len(r.stdout.splitlines()) >= 2
        assert sorted(os.listdir(folder)) == ["h.db"]  # no -shm or -wal could be (or was) created
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)


# --- sim import --------------------------------------------------------------------------------

def test_sim_import_validates_before_writing_and_caps_processes(tmp_path):
    capture = tmp_path / "q.csv"
    capture.write_text("name, power.draw [W]\nNVIDIA H100 80GB HBM3, 1e999 W\n")
    out = tmp_path / "node.yaml"
    r = gpuwatch(["sim", "import", str(capture), "-o", str(out)])
    assert r.returncode == 2 and "'1e999 W' is not a finite number" in r.stderr, r.stderr
    assert not out.exists()

    capture.write_text("name, pci.bus_id\nNVIDIA H100 80GB HBM3, 00000000:01:00.0\n")
    apps = tmp_path / "apps.csv"
    apps.write_text("pid, process_name, used_gpu_memory [MiB]\n" +
                    "".join(f"{1000 + i}, python, 100 MiB\n" for i in range(1000)))
    r = gpuwatch(["sim", "import", str(capture), str(apps), "-o", str(out)])
    assert r.returncode == 2 and "more than 256 processes" in r.stderr, r.stderr

    apps.write_text("pid, process_name, used_gpu_memory [MiB]\n" + "7" * 200_000 + "x, python, 1 MiB\n")
    r = gpuwatch(["sim", "import", str(capture), str(apps), "-o", str(out)])
    assert r.returncode == 2 and len(r.stderr) < 500 and "…" in r.stderr, r.stderr[:300]
