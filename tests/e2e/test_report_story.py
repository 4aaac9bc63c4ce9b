"""gpuwatch report tells the story first (issue 12): a summary in words with the numbers, taken
from the recorded history (checked here against the database itself), the clocks and throttle
chart, the event timeline with the demo's Xid, energy in Wh/kWh, temperatures in °C, times as
`status` writes them (local, or UTC with --utc). Histories made by `sim record` (6 minutes of a
scenario in about a second)."""
import json
import os
import re
import sqlite3
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]
STATUS_TIME = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"  # what `gpuwatch status` prints in its header


def sim_recorded(tmp_path_factory, scenario):
    db = tmp_path_factory.mktemp("story-" + scenario) / "h.db"
    r = subprocess.run([BIN, "sim", "record", scenario, "--duration", "6m", "--db", str(db)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return db


def report(db, *extra, env=None):
    r = subprocess.run([BIN, "report", "--db", str(db), "--since", "10m", *extra], capture_output=True, text=True,
                       timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    return r.stdout


def summary_of(text):
    start = text.index("Summary:\n")
    return text[start:text.index("\n\n", start)]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    return sim_recorded(tmp_path_factory, "demo")


@pytest.fixture(scope="module")
def thermal_db(tmp_path_factory):
    return sim_recorded(tmp_path_factory, "thermal_runaway")


def test_thermal_runaway_summary_says_the_clocks_in_words(thermal_db, tmp_path):
    """It used to show a flat 99.5 % utilization while the clocks were halved."""
    text = report(thermal_db)
    summary = summary_of(text)
    assert text.index("Summary:") < text.index("Findings (") < text.index("util mean")
    m = re.search(r"GPU 0 spent (\d+) % of the [\dms. ]+ recorded thermally throttled; its SM clock averaged ([\d,]+) of ([\d,]+) MHz, "
                  r"at up to (\d+) °C\.", summary)
    assert m, summary
    with sqlite3.connect(str(thermal_db)) as con:
        share, clock, top, hottest = con.execute(
            "SELECT avg(CASE WHEN clocks_event_reasons_active & 96 THEN 1.0 ELSE 0 END), avg(clocks_current_sm_mhz), "
            "max(clocks_max_sm_mhz), max(temperature_gpu_c) FROM gpu_samples s JOIN gpus g ON g.id = s.gpu_id "
            "WHERE g.gpu_index = 0 AND clocks_event_reasons_active IS NOT NULL").fetchone()
    assert int(m.group(1)) == round(share * 100)
    assert int(m.group(2).replace(",", "")) == round(clock)
    assert int(m.group(3).replace(",", "")) == round(top)
    assert int(m.group(4)) == round(hottest)
    assert int(m.group(1)) >= 30 and round(clock) < 0.8 * top  # the story: held back, clocks well below max

    out = tmp_path / "t.html"
    report(thermal_db, "-o", str(out))
    html = out.read_text()
    assert m.group(0) in html  # the same sentence, first on the page
    assert html.index('<section class="summary"') < html.index('<section class="findings"')
    # the clocks and throttle section: the SM clock and the held-back share of every GPU, drawn from data
    clocks = html[html.index('<section class="clocks"'):html.index('<section class="timeline"')]
    assert '<div class="chart node-chart" data-series="sm_clock">' in clocks
    assert '<div class="chart node-chart" data-series="held_back">' in clocks
    assert "sw_thermal_slowdown" in clocks or "hw_thermal_slowdown" in clocks
    data = json.loads(re.search(r'id="gpuwatch-report-data">(.*?)</script>', html, re.S).group(1))
    clocks0 = [v for v in data["gpus"][0]["series"]["sm_clock"] if v is not None]
    assert max(clocks0) > 1.5 * min(clocks0), "the clock chart shows the clocks falling"
    assert any(v and v > 50 for v in data["gpus"][0]["series"]["held_back"])


def test_demo_summary_names_the_throttled_gpu_and_the_leak(demo_db):
    summary = summary_of(report(demo_db))
    lines = summary.splitlines()[1:]
    assert re.match(r"  - GPU 3 spent \d+ % of the 6m 00s recorded thermally throttled; its SM clock averaged [\d,]+ of 1,980 MHz",
                    lines[0] if "GPU 3" in lines[0] else lines[1]), summary
    leak = next(line for line in lines if "GPU 6's" in line)
    m = re.search(r"GPU 6's (\S+) \(PID (\d+)\) grew ([\d.]+) (GiB|MiB)/min", leak)
    assert m, leak
    with sqlite3.connect(str(demo_db)) as con:  # the script it runs (NVML says `python`), from the history
        commands = [c for (c,) in con.execute("SELECT DISTINCT command FROM process_commands WHERE pid = ?",
                                              (int(m.group(2)),))]
    assert m.group(1) == "eval_server.py" and commands and m.group(1) in commands[0].split(), (m.group(1), commands)
    assert re.search(r"(at|until) \d\d:\d\d:\d\d", leak), leak
    healthy = next(line for line in lines if "healthy" in line)
    assert healthy.startswith("  - GPUs 0, 1, 2, 4, 5 and 7 look healthy:"), healthy
    node = lines[-1]
    assert re.match(rf"  - 8 GPUs over 6m 00s from {STATUS_TIME}: \d+ % utilization on average, [\d.,]+ (Wh|kWh) used\.$",
                    node), node


def test_demo_xid_is_recorded_and_in_the_timeline(demo_db, tmp_path):
    with sqlite3.connect(str(demo_db)) as con:
        xids = con.execute("SELECT x.gpu, x.xid, x.uuid, x.time_ms - (SELECT min(time_ms) FROM gpu_samples) "
                           "FROM xid_events x").fetchall()
        uuid6 = con.execute("SELECT uuid FROM gpus WHERE gpu_index = 6").fetchone()[0]
    assert [(g, x) for g, x, _, _ in xids] == [(6, 31)], xids  # demo.yaml: GPU 6, Xid 31 at 15 s
    assert xids[0][2] == uuid6 and 14_000 <= xids[0][3] <= 16_000
    out = tmp_path / "d.html"
    report(demo_db, "-o", str(out))
    html = out.read_text()
    timeline = html[html.index('<section class="timeline"'):html.index('<section class="processes"')]
    row = re.search(r'<tr class="event event-xid [^"]*" data-kind="xid"><td class="time">([^<]+)</td><td>6</td>'
                    r'<td>xid</td><td>Xid 31: [^<]+</td></tr>', timeline)
    assert row, timeline[:2000]
    assert re.fullmatch(STATUS_TIME, row.group(1))
    # the findings replay the recorded Xid too
    j = json.loads(report(demo_db, "--format", "json"))
    assert any(f["kind"] == "xid" and f["gpus"] == [6] for f in j["findings"]), [f["kind"] for f in j["findings"]]
    # the processes, each with its GPU, PID and name as recorded
    procs = html[html.index('<section class="processes"'):html.index('<section class="gpu-details"')]
    with sqlite3.connect(str(demo_db)) as con:
        pids = {pid for (pid,) in con.execute("SELECT DISTINCT pid FROM process_samples")}
    assert len(pids) >= 8 and all(f"<td class=\"num\">{pid}</td>" in procs for pid in pids)


def test_units_and_times(demo_db):
    text = report(demo_db)
    assert not re.search(r"\de-\d", text), "no scientific notation"
    assert not re.search(r"\d C\b", text), "°C, not C"
    assert re.search(r"\d °C", text)
    rows = [line for line in text.splitlines() if re.match(r"^\d+\s+NVIDIA", line)]
    assert len(rows) == 8 and all(re.search(r"\d+(\.\d+)? (Wh|kWh)\s", r) for r in rows), rows
    # status's format, in the local zone, or UTC with --utc
    head_local = report(demo_db, env=dict(os.environ, TZ="Asia/Kolkata")).splitlines()[0]
    head_utc = report(demo_db, "--utc", env=dict(os.environ, TZ="Asia/Kolkata")).splitlines()[0]
    # the end carries its date only when the range crosses midnight in that zone
    end = r"(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d"
    m_local = re.match(rf"gpuwatch report: ({STATUS_TIME}) – {end} \(UTC\+05:30\)$", head_local)
    m_utc = re.match(rf"gpuwatch report: ({STATUS_TIME}) – {end} \(UTC\)$", head_utc)
    for head, m in ((head_local, m_local), (head_utc, m_utc)):
        if m:
            end_day = re.match(r"(\d{4}-\d\d-\d\d) ", head.split(" – ")[1])
            assert not end_day or end_day.group(1) != m.group(1)[:10], head  # no date when it is the same day
    assert m_local and m_utc, (head_local, head_utc)
    local_h, utc_h = int(m_local.group(1)[11:13]), int(m_utc.group(1)[11:13])
    assert (local_h - utc_h) % 24 in (5, 6)  # +05:30, minutes carried or not
