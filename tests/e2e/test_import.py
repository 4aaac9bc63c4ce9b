"""gpuwatch import (issue 24): the real logs of realdata/realtraces/ go into the history with their
own times, and report, history and diagnose give back what the files say. Each file is parsed
here, by this test, independently of gpuwatch: GPUs, rows, time range, mean utilization and
power, memory; the K80 dmon logs' lost GPU; re-import; --dry-run; noheader logs with --columns;
errors with file:line:column. And the `sim import` round trip 0 -> 90 -> 0 % is exact."""
import json
import os
import sqlite3
import subprocess
import time
from datetime import datetime, timedelta, timezone

import pytest

BIN = os.environ["GPUWATCH_BIN"]
REAL = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "realtraces")
DMON_START = "2024-05-01T10:00:00Z"

# The noheader logs' columns (their repositories' logging scripts). plato's 5th column is
# memory.free, not memory.total: used + free is 20,147-20,148 MiB in every row (read as total, the
# report said "memory 183064 % full").
COLUMNS = {
    "plato-20GB-devsession-gpu_log.csv":
        "timestamp,utilization.gpu,utilization.memory,memory.used,memory.free,temperature.gpu,power.draw",
    "llamacpp-4gpu-loaded-idle-gpu_stats.csv": "timestamp,utilization.gpu,memory.used",
}


def gw(*args, input=None, timeout=60):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUWATCH_SIM")}
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, input=input, env=env)


def utc(text):
    return datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=timezone.utc)


def number(cell):
    """'45 %' -> 45.0; '[N/A]' / '-' -> None."""
    cell = cell.strip()
    if cell in ("-", "") or cell.startswith("["):
        return None
    return float(cell.split()[0])


def parse_csv(name):
    """{gpu: {"times": [...], "util": [...], "memory": [...], "power": [...]}} from an nvidia-smi CSV log."""
    with open(os.path.join(REAL, name)) as f:
        lines = [line.rstrip("\n") for line in f if line.strip()]
    if name in COLUMNS:
        header = COLUMNS[name].split(",")
    else:
        header = [h.strip().split(" [")[0] for h in lines.pop(0).split(",")]
    gpus = {}
    sample_start, position = None, 0
    for line in lines:
        row = dict(zip(header, (c.strip() for c in line.split(","))))
        t = utc(row["timestamp"])
        if "index" in row:
            gpu = int(row["index"])
        else:  # GPUs by position in each sample: rows less than 250 ms apart
            if sample_start is None or (t - sample_start).total_seconds() > 0.25:
                sample_start, position = t, 0
            else:
                position += 1
            gpu = position
        g = gpus.setdefault(gpu, {"times": [], "util": [], "memory": [], "power": []})
        g["times"].append(t)
        g["util"].append(number(row.get("utilization.gpu", "-")))
        g["memory"].append(number(row.get("memory.used", "-")))
        g["power"].append(number(row.get("power.draw", "-")))
    return gpus


def parse_dmon(name, start):
    """The same from a dmon log without dates: a sample starts where the GPU numbers start again,
    one second apart from START. The last line has no newline: the log was cut there."""
    with open(os.path.join(REAL, name)) as f:
        text = f.read()
    lines = text.split("\n")
    cut = lines.pop() if not text.endswith("\n") else ""
    header = None
    gpus, tick, last = {}, -1, None
    for line in lines:
        if line.startswith("#"):
            header = header or line[1:].split()
            continue
        if not line.strip():
            continue
        row = dict(zip(header, line.split()))
        gpu = int(row["gpu"])
        if last is None or gpu <= last:
            tick += 1
        last = gpu
        values = {k: number(v) for k, v in row.items() if k != "gpu"}
        if all(v is None for v in values.values()):
            continue
        g = gpus.setdefault(gpu, {"times": [], "util": [], "memory": [], "power": []})
        g["times"].append(start + timedelta(seconds=tick))
        g["util"].append(values["sm"])
        g["memory"].append(None)
        g["power"].append(values["pwr"])
    lost = None
    words = cut.split()
    if words and all(w == "-" for w in words[1:]):
        lost = int(words[0])
    return gpus, lost


def mean(values):
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def report_of(db):
    r = gw("report", "--db", str(db), "--since", "all", "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def import_args(name):
    if name.endswith("dmon.log"):
        return ["--start", DMON_START]
    if name in COLUMNS:
        return ["--columns", COLUMNS[name]]
    return []


LOGS = sorted(n for n in os.listdir(REAL) if n.endswith((".csv", ".log")))


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """Each real log in a history of its own (one import per file)."""
    out = {}
    for name in LOGS:
        db = tmp_path_factory.mktemp("import") / "h.db"
        r = gw("import", os.path.join(REAL, name), "--db", str(db), *import_args(name))
        assert r.returncode == 0, name + ": " + r.stderr
        out[name] = (db, r.stdout)
    return out


def test_the_six_real_logs_are_there():
    assert len(LOGS) == 6, LOGS


@pytest.mark.parametrize("name", LOGS)
def test_each_real_log_imports_with_its_gpus_rows_range_and_means(imported, name):
    db, stdout = imported[name]
    if name.endswith("dmon.log"):
        expected, _ = parse_dmon(name, datetime(2024, 5, 1, 10, tzinfo=timezone.utc))
    else:
        expected = parse_csv(name)
    report = report_of(db)
    assert [g["index"] for g in report["gpus"]] == sorted(expected), stdout
    rows = sum(len(g["times"]) for g in expected.values())
    assert f"imported: {rows} rows" in stdout
    assert f"gpus: {len(expected)} " in stdout
    assert [s["imported_from"] for s in report["data_sources"]] == [name]
    assert report["simulated"] is False
    for g in report["gpus"]:
        e = expected[g["index"]]
        assert g["samples"] == len(e["times"]), g["index"]
        assert datetime.fromisoformat(g["first_sample"]) == e["times"][0]
        assert datetime.fromisoformat(g["last_sample"]) == e["times"][-1]
        assert g["utilization_gpu_mean_percent"] == pytest.approx(mean(e["util"]), abs=1e-9)
        if mean(e["power"]) is None:
            assert g["power_draw_mean_w"] is None  # absent, never a modelled value
            assert g["energy_kwh"] is None
        else:
            assert g["power_draw_mean_w"] == pytest.approx(mean(e["power"]), rel=1e-9)
        memory = [m for m in e["memory"] if m is not None]
        if memory:
            assert g["memory_used_peak_bytes"] == max(memory) * 1048576
        else:
            assert g["memory_used_peak_bytes"] is None
    # memory: the mean of what `history` gives back is the file's
    h = gw("history", "--db", str(db), "--since", "all", "--format", "jsonl", "--fields", "index,memory.used")
    assert h.returncode == 0, h.stderr
    by_gpu = {}
    for line in h.stdout.splitlines():
        row = json.loads(line)
        by_gpu.setdefault(row["index"], []).append(row["memory_used_bytes"])
    for gpu, e in expected.items():
        want = mean(e["memory"])
        got = mean(by_gpu[gpu])
        assert (got is None and want is None) or got == pytest.approx(want * 1048576, rel=1e-12), gpu


@pytest.mark.parametrize("name", [n for n in LOGS if n.endswith("dmon.log")])
def test_the_k80s_lost_gpu_appears_as_lost(imported, name):
    db, stdout = imported[name]
    _, lost = parse_dmon(name, datetime(2024, 5, 1, 10, tzinfo=timezone.utc))
    assert lost == 0
    assert f"lost: GPU {lost} at" in stdout
    report = report_of(db)
    assert [(f["kind"], f["gpus"]) for f in report["findings"] if f["kind"] == "gpu_lost"] == [("gpu_lost", [lost])]
    d = gw("diagnose", "--db", str(db), "--since", "all")
    assert "GPU lost" in d.stdout, d.stdout


def test_a_second_import_of_the_same_file_duplicates_nothing(tmp_path):
    name = "pubsum-4xK80-xid79-unquantized-crash1-dmon.log"
    db = tmp_path / "h.db"
    for _ in range(2):
        r = gw("import", os.path.join(REAL, name), "--db", str(db), "--start", DMON_START)
        assert r.returncode == 0, r.stderr
    with sqlite3.connect(str(db)) as con:
        samples = con.execute("SELECT count(*) FROM gpu_samples").fetchone()[0]
        assert con.execute("SELECT count(*) FROM imports").fetchone()[0] == 1
        assert con.execute("SELECT count(*) FROM gpu_lost_events").fetchone()[0] == 1
        assert con.execute("SELECT count(*) FROM gpus").fetchone()[0] == 4
    expected, _ = parse_dmon(name, datetime(2024, 5, 1, 10, tzinfo=timezone.utc))
    assert samples == sum(len(g["times"]) for g in expected.values())


def test_dry_run_says_what_it_would_import_and_writes_nothing(tmp_path):
    db = tmp_path / "h.db"
    name = "llamacpp-4gpu-loaded-idle-gpu_stats.csv"
    r = gw("import", os.path.join(REAL, name), "--db", str(db), "--dry-run", "--columns", COLUMNS[name])
    assert r.returncode == 0, r.stderr
    assert not db.exists()
    assert "would import: 388 rows" in r.stdout
    assert "gpus: 4 (0, 1, 2, 3)" in r.stdout
    assert "range: 2025-09-08T14:14:37.120Z to 2025-09-08T14:16:13.420Z" in r.stdout
    assert "fields: memory.used, utilization.gpu" in r.stdout
    assert "told apart by their position" in r.stdout  # said, not silently merged
    dmon = gw("import", os.path.join(REAL, "pubsum-4xK80-xid79-nf4-crash-dmon.log"), "--dry-run", "--start", DMON_START)
    assert dmon.returncode == 0, dmon.stderr
    assert "skipped lines: 45 header line, 1 no value in the row" in dmon.stdout
    assert "lost: GPU 0 at 2024-05-01T10:04:08.000Z" in dmon.stdout


def test_a_noheader_log_needs_its_columns_and_reads_them_from_stdin(tmp_path):
    name = "plato-20GB-devsession-gpu_log.csv"
    path = os.path.join(REAL, name)
    refused = gw("import", path, "--dry-run")
    assert refused.returncode == 2
    assert f"{path}:1:1: no header line" in refused.stderr and "--columns" in refused.stderr
    with open(path) as f:
        text = f.read()
    db = tmp_path / "h.db"
    r = gw("import", "-", "--db", str(db), "--columns", COLUMNS[name], input=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("stdin: ") and "imported: 1923 rows" in r.stdout
    assert report_of(db)["gpus"][0]["utilization_gpu_mean_percent"] == pytest.approx(mean(parse_csv(name)[0]["util"]))


def test_a_bad_line_gives_file_line_and_column(tmp_path):
    log = tmp_path / "bad.csv"
    log.write_text("timestamp, index, utilization.gpu [%], power.draw [W]\n"
                   "2025/06/13 00:27:52.195, 0, 45 %, 72.10 W\n"
                   "2025/06/13 00:27:53.195, 0, 45 %, lots W\n")
    r = gw("import", str(log), "--db", str(tmp_path / "h.db"))
    assert r.returncode == 2
    assert f"{log}:3:35: power.draw: 'lots W' is not a number" in r.stderr, r.stderr


def test_sim_import_round_trip_of_0_90_0_is_exact(tmp_path):
    """issue 24: a value equal to the first row's was left out of the replay row, so 0 -> 90 -> 0 %
    replayed as 0 -> 90 -> 90. Rows 10 s apart, read in the middle of each."""
    log = tmp_path / "q.csv"
    log.write_text("timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
                   "2025/06/13 00:00:00.000, 0, 0 %, 100 MiB\n"
                   "2025/06/13 00:00:10.000, 0, 90 %, 100 MiB\n"
                   "2025/06/13 00:00:20.000, 0, 0 %, 100 MiB\n")
    scenario = tmp_path / "q.yaml"
    r = gw("sim", "import", str(log), "-o", str(scenario))
    assert r.returncode == 0, r.stderr
    served = []
    for t in (5, 15, 25):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GPUWATCH_SIM")}
        env["GPUWATCH_SIM_EPOCH_MS"] = str(int(time.time() * 1000) - t * 1000)
        q = subprocess.run([BIN, "--simulate", str(scenario), "query", "--query-gpu=utilization.gpu,memory.used",
                            "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=30, env=env)
        assert q.returncode == 0, q.stderr
        served.append(q.stdout.strip())
    assert served == ["0, 100", "90, 100", "0, 100"]


@pytest.mark.parametrize("name", ["nanogpt-pr643-8xH100-baseline-gpu_metrics.csv",
                                  "nanogpt-pr643-8xH100-colocated-gpu_metrics.csv"])
def test_the_nanogpt_traces_import_with_columns_named(tmp_path, name):
    """traces/ (docs/diagnose.md's table): their header's names are not query names, so they are
    read with --columns (the header line is then skipped); per-GPU means equal the file's."""
    path = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "traces", name)
    util, power = {}, {}
    with open(path) as f:
        next(f)
        for line in f:
            _, gpu, _, u, p = [c.strip() for c in line.split(",")]
            util.setdefault(int(gpu), []).append(float(u))
            power.setdefault(int(gpu), []).append(float(p))
    db = tmp_path / "t.db"
    r = gw("import", path, "--db", str(db), "--columns", "timestamp,index,temperature.gpu,utilization.gpu,power.draw")
    assert r.returncode == 0, r.stderr
    assert "skipped lines: 1 header line" in r.stdout, r.stdout
    gpus = {g["index"]: g for g in report_of(db)["gpus"]}
    assert set(gpus) == set(range(8))
    for i, g in gpus.items():
        assert g["samples"] == len(util[i])
        assert g["utilization_gpu_mean_percent"] == pytest.approx(sum(util[i]) / len(util[i]), abs=1e-6)
        assert g["power_draw_mean_w"] == pytest.approx(sum(power[i]) / len(power[i]), abs=1e-6)


def test_a_log_whose_columns_gpuwatch_does_not_know_is_an_error_not_an_empty_success(tmp_path):
    """Without --columns, the nanoGPT trace's header names nothing gpuwatch knows: 0 rows is a
    usage error that says how to name the columns, never exit 0."""
    path = os.path.join(os.environ["GPUWATCH_REALDATA_DIR"], "traces",
                        "nanogpt-pr643-8xH100-baseline-gpu_metrics.csv")
    r = gw("import", path, "--db", str(tmp_path / "t.db"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "no rows with a field gpuwatch knows" in r.stderr and "--columns" in r.stderr, r.stderr


def test_a_hostile_header_name_is_shown_encoded_in_the_summary(tmp_path):
    """The summary quotes the log's unknown column names: an OSC 52 sequence in one must come out
    visible (\\x1b...), never as raw bytes that would write the viewer's clipboard (issue 31)."""
    log = tmp_path / "hostile.csv"
    log.write_bytes(b"index, utilization.gpu [%], \x1b]52;c;aGk=\x07evil\n0, 45 %, 1\n")
    r = subprocess.run([BIN, "import", str(log), "--dry-run", "--start", "2025-01-01T00:00:00"],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert b"\x1b" not in r.stdout and b"\x07" not in r.stdout, r.stdout
    assert b"\\x1b]52" in r.stdout, r.stdout


def test_dcgmi_dmon_output_imports_with_its_values(tmp_path):
    """`dcgmi dmon -e 203,204,252,155,1002` as dcgmi prints it: N/A absent (not 0), SMACT not kept,
    the MIG instance's row skipped, samples --interval apart from --start."""
    log = tmp_path / "dcgm.log"
    header = ("#Entity           GPUTL          MCUTL          FBUSD          POWER          SMACT\n"
              "ID                                                             W\n")
    log.write_text(header +
                   "GPU 0             40             10             1024           200.000        0.400\n"
                   "GPU 1             N/A            0              2048           N/A            N/A\n"
                   "GPU-I 1           3              0              100            N/A            N/A\n" + header +
                   "GPU 0             60             20             3072           300.000        0.600\n"
                   "GPU 1             10             0              2048           80.000         0.050\n")
    db = tmp_path / "d.db"
    r = gw("import", str(log), "--db", str(db), "--start", "2025-01-01T00:00:00Z", "--interval", "2s")
    assert r.returncode == 0, r.stderr
    assert "dcgmi dmon" in r.stdout and "imported: 4 rows" in r.stdout, r.stdout
    assert "range: 2025-01-01T00:00:00.000Z to 2025-01-01T00:00:02.000Z" in r.stdout, r.stdout
    assert "SMACT" in r.stdout and "not a GPU entity" in r.stdout, r.stdout
    gpus = {g["index"]: g for g in report_of(db)["gpus"]}
    assert set(gpus) == {0, 1}
    assert gpus[0]["utilization_gpu_mean_percent"] == pytest.approx(50.0)
    assert gpus[0]["power_draw_mean_w"] == pytest.approx(250.0)
    assert gpus[0]["memory_used_peak_bytes"] == 3072 * 1024 * 1024
    assert gpus[1]["utilization_gpu_mean_percent"] == pytest.approx(10.0)  # N/A is not 0
    assert gpus[1]["power_draw_mean_w"] == pytest.approx(80.0)


def test_sim_import_keep_time_records_at_the_logs_own_timestamps(tmp_path):
    """issue 24: `sim import --keep-time` puts the log's first time in the scenario (start_time),
    and `sim record` renders from it: the history holds 2025 times, not today's, and each row's
    values at its own time (rows 10 s apart, read away from the edges)."""
    log = tmp_path / "q.csv"
    log.write_text("timestamp, index, utilization.gpu [%], memory.used [MiB]\n"
                   "2025/06/13 00:00:00.000, 0, 0 %, 100 MiB\n"
                   "2025/06/13 00:00:10.000, 0, 90 %, 200 MiB\n"
                   "2025/06/13 00:00:20.000, 0, 0 %, 300 MiB\n")
    scenario = tmp_path / "q.yaml"
    r = gw("sim", "import", "--keep-time", str(log), "-o", str(scenario))
    assert r.returncode == 0, r.stderr
    assert "start_time: 2025-06-13T00:00:00.000Z" in scenario.read_text()
    db = tmp_path / "k.db"
    r = gw("sim", "record", str(scenario), "--duration", "30s", "--interval", "1s", "--db", str(db))
    assert r.returncode == 0, r.stderr
    assert "from the scenario's start_time" in r.stderr
    h = gw("history", "--db", str(db), "--since", "all", "--format", "jsonl")
    assert h.returncode == 0, h.stderr
    rows = [json.loads(line) for line in h.stdout.splitlines() if line.strip()]
    start = datetime(2025, 6, 13, tzinfo=timezone.utc)
    at = {(datetime.fromisoformat(row["time"]) - start).total_seconds(): row for row in rows}
    assert min(at) == 0 and max(at) <= 31, sorted(at)
    for lo, hi, util, mib in ((2, 8, 0.0, 100), (12, 18, 0.9, 200), (22, 28, 0.0, 300)):
        inside = [row for t, row in at.items() if lo <= t <= hi]
        assert inside, (lo, hi, sorted(at))
        assert {row["utilization_gpu_ratio"] for row in inside} == {util}
        assert {row["memory_used_bytes"] for row in inside} == {mib * 1024 * 1024}


def test_sim_import_keep_time_needs_timestamps(tmp_path):
    log = tmp_path / "q.csv"
    log.write_text("index, utilization.gpu [%]\n0, 5 %\n0, 6 %\n")
    r = gw("sim", "import", "--keep-time", str(log))
    assert r.returncode != 0 and "--keep-time needs a timestamp" in r.stderr, r.stderr


@pytest.mark.skipif(not os.path.exists("/usr/bin/gpustat"), reason="gpustat is installed by scripts/install-deps")
def test_gpustat_json_output_imports_with_its_values(tmp_path):
    """Debian's gpustat --json, run twice on the simulated demo node, appended to one file."""
    objects = []
    for _ in range(2):
        r = gw("sim", "run", "demo", "--", "/usr/bin/gpustat", "--json")
        assert r.returncode == 0, r.stderr
        objects.append(json.loads(r.stdout))
    log = tmp_path / "gpustat.jsonl"
    log.write_text("".join(json.dumps(o, indent=4) + "\n" for o in objects))
    db = tmp_path / "h.db"
    imp = gw("import", str(log), "--db", str(db))
    assert imp.returncode == 0, imp.stderr
    assert "gpustat --json" in imp.stdout and "imported: 16 rows" in imp.stdout, imp.stdout
    report = report_of(db)
    assert len(report["gpus"]) == 8
    for g in report["gpus"]:
        mine = [next(x for x in o["gpus"] if x["index"] == g["index"]) for o in objects]
        assert g["samples"] == 2
        assert g["utilization_gpu_mean_percent"] == pytest.approx(sum(x["utilization.gpu"] for x in mine) / 2)
        assert g["power_draw_mean_w"] == pytest.approx(sum(x["power.draw"] for x in mine) / 2)
        assert g["memory_used_peak_bytes"] == max(x["memory.used"] for x in mine) * 1048576
        assert g["uuid"] == mine[0]["uuid"]
