"""Problems, not samples (issue 23): over a day (and a week) of `sim record demo`, `diagnose`,
`report` and `history --findings` give one finding per problem (kind and GPUs), with its
episodes and its share of the range, and a summary that names each problem once, the most
urgent first (GPU 6's leak before GPU 3's throttling). Before: 895 findings, GPU 3's sentence
six times in the report's summary, and no word of the leak."""
import json
import os
import subprocess
from collections import Counter

import pytest

BIN = os.environ["GPUWATCH_BIN"]


def run(args, timeout=120):
    r = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout)
    assert r.returncode in (0, 1), r.stderr  # 1: warnings found (diagnose's default --fail-on)
    return r.stdout


def record(tmp_path_factory, duration, interval):
    db = tmp_path_factory.mktemp("grouping") / f"demo-{duration}.db"
    run(["sim", "record", "demo", "--duration", duration, "--interval", interval, "--db", str(db)], timeout=240)
    return db


@pytest.fixture(scope="module")
def day(tmp_path_factory):
    return record(tmp_path_factory, "24h", "10s")


@pytest.fixture(scope="module")
def week(tmp_path_factory):
    return record(tmp_path_factory, "7d", "10s")  # coarser sampling sees no thermal throttling


def findings_of(db):
    return json.loads(run(["diagnose", "--db", str(db), "--since", "all", "--json"]))


def summary_lines(text):
    """The "  - sentence" lines under "Summary:" (report and diagnose alike)."""
    lines = text.splitlines()
    start = lines.index("Summary:") + 1
    out = []
    for line in lines[start:]:
        if not line.startswith("  - "):
            break
        out.append(line[4:])
    return out


def assert_one_per_problem(findings):
    per_problem = Counter((f["kind"], tuple(sorted(f["gpus"]))) for f in findings)
    repeated = {k: n for k, n in per_problem.items() if n > 1}
    assert repeated == {}, f"the same problem as several findings: {repeated}"


def test_a_day_is_one_finding_per_problem_with_its_episodes_and_share(day):
    out = findings_of(day)
    findings = out["findings"]
    assert_one_per_problem(findings)
    assert len(findings) <= 6, [f["summary"] for f in findings]  # was 895
    thermal = [f for f in findings if f["kind"] == "thermal_throttle" and f["gpus"] == [3]]
    assert len(thermal) == 1
    t = thermal[0]
    assert len(t["episodes"]) > 100  # every ~5 min all day
    assert 0.05 < t["share"] < 0.95
    assert f"{len(t['episodes'])} episodes" in t["summary"]
    assert f"{round(t['share'] * 100)} % of the day" in t["summary"]
    assert "every ~5 min" in t["summary"], t["summary"]
    assert t["start"] == min(e["start"] for e in t["episodes"]) and t["end"] == max(e["end"] for e in t["episodes"])
    assert t["severity"] == max((e["severity"] for e in t["episodes"]), key=["info", "warning", "critical"].index)
    # One leak on GPU 6, whatever PIDs it restarted with; the summary names it first.
    leaks = [f for f in findings if f["kind"] == "memory_leak"]
    assert len(leaks) == 1 and leaks[0]["gpus"] == [6] and len(leaks[0]["episodes"]) > 100
    assert out["summary"][0].startswith("GPU 6: memory leak"), out["summary"]
    assert len(set(out["summary"])) == len(out["summary"])
    # The text: the same sentences under "Summary:", and the episodes' count, not their list.
    text = run(["diagnose", "--db", str(day), "--since", "all"])
    assert summary_lines(text) == out["summary"]
    assert f"episodes: {len(t['episodes'])} (--episodes lists them)" in text
    assert len(text.splitlines()) < 80  # was 6,265 lines


def test_episodes_flag_lists_each_episode_under_its_finding(day):
    findings = findings_of(day)["findings"]
    total = sum(len(f["episodes"]) for f in findings)
    text = run(["diagnose", "--db", str(day), "--since", "all", "--episodes"])
    thermal = next(f for f in findings if f["kind"] == "thermal_throttle")
    assert f"episodes ({len(thermal['episodes'])}):" in text
    episode_lines = [line for line in text.splitlines() if line.startswith("           20")]
    assert len(episode_lines) == total
    assert any("°C" in line for line in episode_lines)


def test_report_summary_names_each_problem_once_the_leak_first(day):
    text = run(["report", "--db", str(day), "--since", "all", "--utc"])
    lines = summary_lines(text)
    assert len(lines) == len(set(lines)), lines
    assert lines[0].startswith("GPU 6") and ("grew" in lines[0] or "leak" in lines[0]), lines
    gpu3 = [line for line in lines if line.startswith("GPU 3")]
    assert len(gpu3) == 1 and "episodes" in gpu3[0], lines
    assert "more finding" not in text and "more problem" not in text
    report = json.loads(run(["report", "--db", str(day), "--since", "all", "--format", "json"]))
    assert_one_per_problem(report["findings"])
    assert all(f["episodes"] and f["share"] is not None for f in report["findings"])


def test_history_findings_are_grouped_in_every_format(day):
    as_json = json.loads(run(["history", "--db", str(day), "--since", "all", "--findings", "--format", "json"]))
    assert_one_per_problem(as_json["findings"])
    rows = run(["history", "--db", str(day), "--since", "all", "--findings", "--format", "csv"]).splitlines()
    assert len(rows) == len(as_json["findings"]) + 1
    lines = run(["history", "--db", str(day), "--since", "all", "--findings", "--format", "jsonl"]).splitlines()
    assert_one_per_problem([json.loads(line) for line in lines])
    table = [line for line in run(["history", "--db", str(day), "--since", "all", "--findings"]).splitlines()
             if not line.startswith("#")]  # the simulated-data note
    assert "episodes" in table[0] and len(table) == len(as_json["findings"]) + 1


def test_a_week_is_one_finding_per_kind_and_gpu(week):
    out = findings_of(week)
    findings = out["findings"]
    assert_one_per_problem(findings)
    thermal = next(f for f in findings if f["kind"] == "thermal_throttle" and f["gpus"] == [3])
    assert "of the week" in thermal["summary"] and len(thermal["episodes"]) > 100
    assert out["summary"][0].startswith("GPU 6: memory leak"), out["summary"]
    text = run(["report", "--db", str(week), "--since", "all"])
    lines = summary_lines(text)
    assert len(lines) == len(set(lines)) and lines[0].startswith("GPU 6"), lines
