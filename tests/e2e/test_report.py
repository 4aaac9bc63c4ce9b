"""gpuwatch report (issue 5): on a history recorded from the simulator, and on a
synthesised history with known values (mean, p95, idle share, energy, throttling
asserted exactly); the HTML file is self-contained."""
import json
import os
import re
import sqlite3
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")


def sim_env():
    # the training scenario idles for its first 20 s: start 2 minutes in
    return dict(os.environ, GPUWATCH_SIM_SCENARIO="training",
                GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - 120_000))


def gpuwatch(args, timeout=60):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=sim_env(), capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture(scope="module")
def recorded_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("report") / "history.db"
    r = subprocess.run([BIN, "--simulate", "training", "record", "--db", str(db), "--interval", "100ms", "--count", "10"],
                       env=sim_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return db


def test_report_of_a_simulated_recording(recorded_db):
    r = gpuwatch(["report", "--db", str(recorded_db), "--since", "10m", "--format", "json"])
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    gpus = report["gpus"]
    assert [g["index"] for g in gpus] == [0, 1]
    with sqlite3.connect(str(recorded_db)) as con:
        expected = dict(con.execute("SELECT g.gpu_index, avg(utilization_gpu_percent) FROM gpu_samples s "
                                    "JOIN gpus g ON g.id = s.gpu_id GROUP BY 1").fetchall())
        peak = dict(con.execute("SELECT g.gpu_index, max(memory_used_bytes) FROM gpu_samples s "
                                "JOIN gpus g ON g.id = s.gpu_id GROUP BY 1").fetchall())
    for g in gpus:
        assert g["samples"] == 10
        assert g["name"].startswith("NVIDIA")
        assert g["utilization_gpu_mean_percent"] == pytest.approx(expected[g["index"]])
        assert 0 <= g["utilization_gpu_p95_percent"] <= 100
        assert g["utilization_gpu_mean_percent"] > 50  # training, two minutes in
        assert 0 <= g["idle_share"] <= 1
        assert g["memory_used_peak_bytes"] == peak[g["index"]]
        assert g["sample_interval_s"] == pytest.approx(0.1, abs=0.05)
        assert g["energy_kwh"] is not None and g["energy_kwh"] > 0
        assert g["energy_source"] in ("counter", "estimated")
        assert g["temperature_gpu_max_c"] > 20
        assert isinstance(g["throttling"], dict)
    assert report["processes"], "the training scenario runs processes"
    assert all(p["run_time_s"] >= 0 for p in report["processes"])

    text = gpuwatch(["report", "--db", str(recorded_db), "--since", "10m"])
    assert text.returncode == 0, text.stderr
    assert "util mean" in text.stdout and "Processes seen" in text.stdout
    assert gpus[0]["name"] in text.stdout


def test_html_report_is_self_contained(recorded_db, tmp_path):
    out = tmp_path / "report.html"
    r = gpuwatch(["report", "--db", str(recorded_db), "--since", "10m", "-o", str(out)])
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>")
    # uPlot inlined; node charts (every GPU overlaid), then one collapsed chart set per GPU (2 GPUs),
    # drawn from the embedded JSON
    assert "var uPlot=" in html and 'id="gpuwatch-report-data"' in html
    assert html.count('<div class="chart node-chart" data-series=') == 6
    assert html.count('<div class="chart" data-gpu=') == 2 * 6
    data = json.loads(re.search(r'<script type="application/json" id="gpuwatch-report-data">(.*?)</script>',
                                html, re.S).group(1))
    assert [g["label"] for g in data["gpus"]] == ["GPU 0", "GPU 1"]
    assert len(data["time_s"]) >= 10  # 10 samples per GPU, fewer than the 600 chart points: one point each
    for g in data["gpus"]:
        assert len(g["series"]["utilization"]) == len(data["time_s"])  # one time axis for every GPU
        assert sum(v is not None for v in g["series"]["utilization"]) == 10
        assert all(v is None or 0 <= v <= 100 for v in g["series"]["utilization"])
        assert all(v is None or v > 0 for v in g["series"]["sm_clock"]) and any(g["series"]["sm_clock"])
    # nothing loaded from the network: no remote src/href, no stylesheet link or import
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    for remote in ("<link", "@import", "url(http"):
        assert remote not in html
    assert not (tmp_path / "report.html.tmp").exists()


def make_known_history(db):
    """A real schema (from a 1-sample recording), then one synthetic GPU with known values:
    40 samples 1 s apart; utilization i % 10 * 10 (0..90 %, so mean 45, p95 90, idle 10 %);
    energy counter +50 J per sample with a reset at sample 20; power 300 W; sw_power_cap
    (0x4) on 6 samples; temperature 70 except 85 once; a process seen for 10 s."""
    r = gpuwatch(["record", "--db", str(db), "--count", "1"])
    assert r.returncode == 0, r.stderr
    t0 = 1_700_000_000_000
    with sqlite3.connect(str(db)) as con:
        con.execute("DELETE FROM gpu_samples")
        con.execute("DELETE FROM process_samples")
        con.execute("DELETE FROM gpus")
        con.execute("INSERT INTO gpus (id, gpu_key, uuid, gpu_index, name, first_seen_ms, last_seen_ms) "
                    "VALUES (7, 'GPU-known', 'GPU-known', 0, 'Known GPU', ?, ?)", (t0, t0 + 39_000))
        rows = []
        for i in range(40):
            energy_mj = (1_000_000 + i * 50_000) if i < 20 else (i - 20) * 50_000
            mask = 0x4 if 10 <= i < 16 else 0
            rows.append((t0 + i * 1000, 7, i % 10 * 10, energy_mj, 300_000, mask, 85 if i == 33 else 70,
                         (2 << 30) if i == 5 else (1 << 30)))
        con.executemany("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent, energy_total_mj, "
                        "power_draw_mw, clocks_event_reasons_active, temperature_gpu_c, memory_used_bytes) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
        con.executemany("INSERT INTO process_samples (time_ms, gpu_id, pid, name, user, type, used_memory_bytes) "
                        "VALUES (?, 7, 999, 'job.py', 'alice', 'C', ?)",
                        [(t0 + i * 1000, (100 + i) << 20) for i in range(5, 16)])
    return t0


def test_report_of_a_known_history_is_exact(tmp_path):
    db = tmp_path / "known.db"
    t0 = make_known_history(db)
    r = gpuwatch(["report", "--db", str(db), "--since", "all", "--format", "json"])
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert len(report["gpus"]) == 1
    g = report["gpus"][0]
    assert g["uuid"] == "GPU-known" and g["samples"] == 40
    assert g["sample_interval_s"] == 1.0
    assert g["utilization_gpu_mean_percent"] == 45.0
    assert g["utilization_gpu_p95_percent"] == 90.0
    assert g["idle_share"] == 0.1
    assert g["memory_used_peak_bytes"] == 2 << 30
    assert g["temperature_gpu_max_c"] == 85
    assert g["power_draw_mean_w"] == 300.0
    assert g["energy_source"] == "counter"
    # 19 steps of 50 J before the reset, 19 after; the step across the reset counts nothing
    assert g["energy_kwh"] == pytest.approx(38 * 50 / 3.6e6, rel=1e-12)
    assert g["throttling"] == {"sw_power_cap": {"seconds": 6.0, "samples": 6}}
    [p] = report["processes"]
    assert (p["pid"], p["name"], p["user"]) == (999, "job.py", "alice")
    assert p["run_time_s"] == 10.0 and p["memory_used_peak_bytes"] == 115 << 20

    # A window: samples 20..39 (after the reset): 19 steps of 50 J.
    w = gpuwatch(["report", "--db", str(db), "--since", f"@{(t0 + 20_000) / 1000}", "--until",
                  f"@{(t0 + 39_000) / 1000}", "--format", "json"])
    assert w.returncode == 0, w.stderr
    g = json.loads(w.stdout)["gpus"][0]
    assert g["samples"] == 20
    assert g["energy_kwh"] == pytest.approx(19 * 50 / 3.6e6, rel=1e-12)
    assert g["throttling"] == {}
    assert json.loads(w.stdout)["processes"] == []


def test_report_integrates_power_without_an_energy_counter(tmp_path):
    db = tmp_path / "power.db"
    make_known_history(db)
    with sqlite3.connect(str(db)) as con:
        con.execute("UPDATE gpu_samples SET energy_total_mj = NULL")
    r = gpuwatch(["report", "--db", str(db), "--since", "all", "--format", "json"])
    assert r.returncode == 0, r.stderr
    g = json.loads(r.stdout)["gpus"][0]
    assert g["energy_source"] == "estimated"  # integrated power (issue 29's word)
    assert g["energy_kwh"] == pytest.approx(300 * 39 / 3.6e6, rel=1e-12)  # 300 W for 39 s
    text = gpuwatch(["report", "--db", str(db), "--since", "all"]).stdout
    assert "~3.25 Wh" in text and "~energy: estimated from power samples" in text, text


def test_report_errors(tmp_path):
    missing = gpuwatch(["report", "--db", str(tmp_path / "none.db")])
    assert missing.returncode == 1 and "gpuwatch record" in missing.stderr
    assert not (tmp_path / "none.db").exists()
    assert gpuwatch(["report", "--db", str(tmp_path / "x.db"), "--format", "xml"]).returncode == 2
    assert gpuwatch(["report", "--db", str(tmp_path / "x.db"), "--since", "yesterday"]).returncode == 2


def test_empty_range_says_so(tmp_path):
    db = tmp_path / "h.db"
    make_known_history(db)  # samples in 2023
    r = gpuwatch(["report", "--db", str(db), "--since", "1h", "--format", "json"])
    assert r.returncode == 0
    assert json.loads(r.stdout)["gpus"] == []
    assert "no samples" in r.stderr


def test_report_over_30_days_reads_the_rollups(tmp_path):
    """Raw samples 20 and 10 days old are rolled up by a recorder run (1-minute rows,
    and 1-hour rows with --retain-1m 15d); `report --since 30d` then gives the same
    figures as the same history all raw, says that p95 is approximate before the raw
    window, and counts nothing twice."""
    db = tmp_path / "h.db"
    assert gpuwatch(["record", "--db", str(db), "--count", "1"]).returncode == 0
    hour_ms, day_ms = 3_600_000, 86_400_000
    now_ms = int(time.time() * 1000)
    with sqlite3.connect(str(db)) as con:
        gpu = con.execute("SELECT min(id) FROM gpus").fetchone()[0]
        rows = []
        for start, count in ((now_ms - 20 * day_ms) // hour_ms * hour_ms, 720), \
                            ((now_ms - 10 * day_ms) // hour_ms * hour_ms, 360):
            for i in range(count):  # every 10 s: utilization 0..100, counter +1 kJ, sw_power_cap on every 5th
                rows.append((start + i * 10_000, gpu, i * 37 % 101, 10_000_000 + i * 1_000_000, 0x4 if i % 5 == 0 else 0))
        con.executemany("INSERT INTO gpu_samples (time_ms, gpu_id, utilization_gpu_percent, energy_total_mj, "
                        "clocks_event_reasons_active) VALUES (?, ?, ?, ?, ?)", rows)
    with sqlite3.connect(str(db)) as con, sqlite3.connect(str(tmp_path / "all_raw.db")) as copy:
        con.backup(copy)  # the same history, all raw (after the insert is committed)

    def report(path):
        r = gpuwatch(["report", "--db", str(path), "--since", "30d", "--format", "json"])
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    r = gpuwatch(["record", "--db", str(db), "--count", "1", "--retain-1m", "15d"])
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(str(tmp_path / "all_raw.db")) as copy:  # + the sample that run recorded
        copy.execute("ATTACH DATABASE ? AS rolled", (str(db),))
        copy.execute("INSERT OR IGNORE INTO gpu_samples SELECT * FROM rolled.gpu_samples")
    truth = report(tmp_path / "all_raw.db")
    with sqlite3.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM gpu_samples WHERE time_ms < ?", (now_ms - 7 * day_ms,)).fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM gpu_samples_1h").fetchone()[0] == 2
        assert con.execute("SELECT count(*) FROM gpu_samples_1m").fetchone()[0] == 60
    got = report(db)
    assert truth["sources"]["rollup_1m"] is None and truth["p95_approximate_before"] is None
    assert got["sources"]["rollup_1h"] is not None and got["sources"]["rollup_1m"] is not None
    assert got["p95_approximate_before"] == got["sources"]["raw"]["first"]
    want = next(g for g in truth["gpus"] if g["index"] == 0)
    g = next(g for g in got["gpus"] if g["index"] == 0)
    # The rolled-up GPU: 1080 old samples, 2 recent raw ones (one per recorder run).
    assert want["samples"] == g["samples"] == 1082 and g["rollup_samples"] == 1080
    assert g["utilization_gpu_mean_percent"] == pytest.approx(want["utilization_gpu_mean_percent"], rel=1e-12)
    assert g["idle_share"] == pytest.approx(want["idle_share"], rel=1e-12)
    assert g["throttling"]["sw_power_cap"]["samples"] == want["throttling"]["sw_power_cap"]["samples"] == 216
    assert g["energy_source"] == "counter"
    assert g["energy_kwh"] == pytest.approx(want["energy_kwh"], rel=1e-12)
    assert g["utilization_gpu_p95_approximate"] and not want["utilization_gpu_p95_approximate"]
    text = gpuwatch(["report", "--db", str(db), "--since", "30d"])
    assert text.returncode == 0 and "approximate" in text.stdout and "1-hour rollups" in text.stdout


def test_report_says_the_data_is_simulated(recorded_db, tmp_path):
    """issue 9: a database records whether its data is simulated; report says so in all three forms."""
    j = json.loads(gpuwatch(["report", "--db", str(recorded_db), "--since", "10m", "--format", "json"]).stdout)
    assert j["simulated"] is True
    assert [(s["simulated"], s["scenario"]) for s in j["data_sources"]] == [(True, "training")]
    text = gpuwatch(["report", "--db", str(recorded_db), "--since", "10m"]).stdout
    assert text.splitlines()[1] == ("NOTE: simulated data (scenario training): recorded on gpuwatch's simulated "
                                    "driver, not a real GPU"), text
    out = tmp_path / "report.html"
    assert gpuwatch(["report", "--db", str(recorded_db), "--since", "10m", "-o", str(out)]).returncode == 0
    assert '<p class="simulated-banner"' in out.read_text()
    # A file from before schema 4 does not say: null, and no note.
    old = tmp_path / "old.db"
    with sqlite3.connect(str(recorded_db)) as src, sqlite3.connect(str(old)) as dst:
        src.backup(dst)
    with sqlite3.connect(str(old)) as con:
        con.execute("DROP TABLE sources")
        con.execute("PRAGMA user_version = 3")
    legacy = gpuwatch(["report", "--db", str(old), "--since", "10m", "--format", "json"])
    assert legacy.returncode == 0, legacy.stderr
    assert json.loads(legacy.stdout)["simulated"] is None
    assert "NOTE" not in gpuwatch(["report", "--db", str(old), "--since", "10m"]).stdout


# issue 10: findings first, with their impact. Histories made by `sim record` (6 minutes of a
# scenario in about a second, timestamps ending now).
def sim_recorded(tmp_path_factory, scenario):
    db = tmp_path_factory.mktemp("findings-" + scenario) / "h.db"
    r = subprocess.run([BIN, "sim", "record", scenario, "--duration", "6m", "--db", str(db)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return db


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    return sim_recorded(tmp_path_factory, "demo")


def report_of(db, *extra):
    r = subprocess.run([BIN, "report", "--db", str(db), "--since", "10m", *extra], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_report_lists_the_demo_findings_first(demo_db):
    text = report_of(demo_db)
    findings_at = text.index("Findings (")
    assert findings_at < text.index("util mean"), "findings come before the GPU table"
    section = text[findings_at:text.index("\ngpu  name")]
    heads = [line for line in section.splitlines() if re.match(r"^(CRITICAL|WARNING|INFO) ", line)]
    # worst first: GPU 3's thermal throttling and GPU 6's leak are critical, nothing else is named
    assert re.match(r"^CRITICAL\s+GPU 3\s+thermal throttling", heads[0] if "GPU 3" in heads[0] else heads[1]), heads
    assert any(re.match(r"^CRITICAL\s+GPU 6\s+memory leak: PID \d+ .*OOM in", h) for h in heads), heads
    assert {int(g) for h in heads for g in re.findall(r"GPUs? (\d+)", h)} <= {3, 6}, heads
    severities = [h.split()[0] for h in heads]
    assert severities == sorted(severities, key=["CRITICAL", "WARNING", "INFO"].index), "worst first"
    assert "kind:   thermal_throttle" in section and "kind:   memory_leak" in section
    assert "try:    " in section and "when:   " in section and "impact: about" in section
    # the GPU table marks them
    rows = {line.split()[0]: line for line in text.splitlines() if re.match(r"^\d+\s+NVIDIA", line)}
    assert rows["3"].endswith("critical") and "critical" in rows["6"] and rows["0"].endswith("none")


def test_report_json_has_the_findings_array(demo_db):
    j = json.loads(report_of(demo_db, "--format", "json"))
    assert list(j)[:3] == ["since", "until", "findings"]
    kinds = {(f["kind"], tuple(f["gpus"])) for f in j["findings"]}
    assert ("thermal_throttle", (3,)) in kinds and ("memory_leak", (6,)) in kinds
    for f in j["findings"]:  # the schema of docs/diagnose.md
        assert set(f) == {"kind", "severity", "gpus", "uuids", "start", "end", "active", "pid", "evidence", "detail",
                          "impact", "advice", "summary", "cause", "episodes", "share", "job", "cause_gpus"}
        assert f["severity"] in ("info", "warning", "critical") and f["start"] <= f["end"]
        assert f["impact"] is None or 0 <= f["impact"] <= 1
    order = ["critical", "warning", "info"]
    assert [order.index(f["severity"]) for f in j["findings"]] == sorted(order.index(f["severity"]) for f in j["findings"])
    assert j["diagnosis"]["samples"] > 300
    worst = {g["index"]: g["worst_finding"] for g in j["gpus"]}
    assert worst[3] == "critical" and worst[6] == "critical" and worst[0] is None


def test_report_names_the_leaking_script_not_the_interpreter(demo_db, tmp_path):
    """NVML names GPU 6's process `python`: the recorded command line (schema 11) says it is
    eval_server.py, in the JSON, the text and the HTML page; a file without it shows the name."""
    j = json.loads(report_of(demo_db, "--format", "json"))
    [p] = [p for p in j["processes"] if p["gpu_index"] == 6]
    assert p["name"] == "python" and p["command"] == "python eval_server.py --port 8500 --model ckpt/step-42000", p
    text = report_of(demo_db)
    assert re.search(r"GPU 6's eval_server\.py \(PID \d+\) grew", text), text  # the summary sentence
    table = text[text.index("Processes seen:"):]
    assert table.splitlines()[1].split()[-1] == "command"
    [row] = [line for line in table.splitlines()[2:] if line.split()[:1] == ["6"]]
    assert row.endswith("python eval_server.py --port 8500 --model ckpt/step-42000"), row
    out = tmp_path / "r.html"
    report_of(demo_db, "-o", str(out))
    assert 'title="python eval_server.py --port 8500 --model ckpt/step-42000"' in out.read_text()

    old = tmp_path / "v10.db"  # as written before schema 11: readers still open it, and show the name
    with sqlite3.connect(str(demo_db)) as src, sqlite3.connect(str(old)) as dst:
        src.backup(dst)
    with sqlite3.connect(str(old)) as con:
        con.execute("DROP TABLE process_commands")
        con.execute("PRAGMA user_version = 10")
    legacy = json.loads(report_of(old, "--format", "json"))
    assert legacy["processes"] and all(p["command"] is None for p in legacy["processes"])
    [row] = [line for line in report_of(old).split("Processes seen:")[1].splitlines()[2:] if line.split()[:1] == ["6"]]
    assert row.endswith("  python"), row


def test_html_report_shows_a_findings_panel_above_the_charts(demo_db, tmp_path):
    out = tmp_path / "r.html"
    report_of(demo_db, "-o", str(out))
    html = out.read_text()
    panel = html.index('<section class="findings"')
    assert html.index('<section class="summary"') < panel < html.index('<h2 id="gpus-title">GPUs</h2>') \
        < html.index('<h2 id="charts-title">Charts</h2>')
    assert re.search(r'<li class="finding severity-critical" data-kind="thermal_throttle"', html)
    assert re.search(r'<li class="finding severity-critical" data-kind="memory_leak"', html)
    assert '<ul class="finding-advice">' in html
    # GPUs with a warning or critical finding are marked, in the table and their charts
    assert html.count('<tr class="gpu-critical">') == 2
    assert re.search(r'<details class="gpu-detail gpu-critical" data-gpu="3"><summary><h3>GPU 3 ', html)
    assert re.search(r'<details class="gpu-detail" data-gpu="0"><summary><h3>GPU 0 ', html)
    # still no inline handlers, no inline script other than the page's own elements
    assert not re.search(r"\son[a-z]+\s*=", html)


def test_thermal_runaway_report_tells_the_halved_clocks(tmp_path_factory):
    """issue 10: the report said "util mean 99.5 %" and nothing about the clocks."""
    text = report_of(sim_recorded(tmp_path_factory, "thermal_runaway"))
    head = text[:text.index("\ngpu  name")]
    m = re.search(r"^CRITICAL\s+GPU 0\s+thermal throttling \d+ % of the time, SM clock -(\d+) %", head, re.M)
    assert m, head
    assert int(m.group(1)) >= 40, "the SM clock runs at well under its maximum (1410 -> 570 MHz)"
    assert re.search(r"impact: about (\d+) %", head) and int(re.search(r"impact: about (\d+) %", head).group(1)) >= 40


def test_training_report_has_no_warning(tmp_path_factory, tmp_path):
    db = sim_recorded(tmp_path_factory, "training")
    text = report_of(db)
    assert "\nNo findings: the GPUs look healthy" in text, text
    assert "WARNING" not in text and "CRITICAL" not in text
    j = json.loads(report_of(db, "--format", "json"))
    assert all(f["severity"] == "info" for f in j["findings"])
    out = tmp_path / "t.html"
    report_of(db, "-o", str(out))
    html = out.read_text()
    assert '<p class="no-findings">No findings' in html and "gpu-warning" not in html.replace(".gpu-warning", "")
