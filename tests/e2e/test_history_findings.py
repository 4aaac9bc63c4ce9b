"""gpuwatch history --findings (issue 10): the findings of the selected window instead of its
samples, on histories made by `gpuwatch sim record` (6 minutes of a scenario, ending now)."""
import json
import os
import re
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]


def gpuwatch(*args):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    db = tmp_path_factory.mktemp("history-findings") / "demo.db"
    r = gpuwatch("sim", "record", "demo", "--duration", "6m", "--db", str(db))
    assert r.returncode == 0, r.stderr
    return db


def findings(db, *extra):
    r = gpuwatch("history", "--db", str(db), "--since", "10m", "--findings", *extra)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_table_lists_the_demo_findings(demo_db):
    lines = [line for line in findings(demo_db).splitlines() if not line.startswith("#")]
    assert lines[0].split() == ["start", "end", "gpu", "severity", "kind", "episodes", "summary"]
    rows = [line.split(None, 5) for line in lines[1:]]
    kinds = {(r[2], r[3], r[4]) for r in rows}
    assert ("3", "critical", "thermal_throttle") in kinds and ("6", "critical", "memory_leak") in kinds
    assert {r[2] for r in rows} <= {"3", "6"}, rows  # nothing on the healthy GPUs
    starts = [r[0] for r in rows]
    assert starts == sorted(starts), "in time order"


def test_gpu_selects_the_findings_involving_it(demo_db):
    rows = [line.split(None, 5) for line in findings(demo_db, "--gpu", "6").splitlines()
            if not line.startswith(("#", "start "))]
    assert rows and all(r[2] == "6" for r in rows)
    assert "memory_leak" in {r[4] for r in rows}
    assert findings(demo_db, "--gpu", "0").splitlines()[-1].startswith("No findings in the ")
    # by UUID too
    uuid = json.loads(findings(demo_db, "--gpu", "6", "--format", "json"))["findings"][0]["uuids"][0]
    assert {tuple(f["gpus"]) for f in json.loads(findings(demo_db, "--gpu", uuid, "--format", "json"))["findings"]} == {(6,)}


def test_json_and_jsonl(demo_db):
    j = json.loads(findings(demo_db, "--format", "json"))
    assert list(j) == ["findings"]
    for f in j["findings"]:
        assert set(f) == {"kind", "severity", "gpus", "uuids", "start", "end", "active", "pid", "evidence", "detail",
                          "impact", "advice", "summary", "cause", "episodes", "share", "job", "cause_gpus"}
    lines = findings(demo_db, "--gpu", "6", "--format", "jsonl").splitlines()
    assert lines and all(json.loads(line)["gpus"] == [6] for line in lines)
    csv = findings(demo_db, "--format", "csv").splitlines()
    assert csv[0] == "start,end,gpu,severity,kind,episodes,summary" and len(csv) == len(j["findings"]) + 1


def test_since_and_until_bound_the_window(demo_db):
    # a window before the recording: no samples, no findings
    r = gpuwatch("history", "--db", str(demo_db), "--since", "2h", "--until", "1h", "--findings", "--format", "json")
    assert r.returncode == 0 and json.loads(r.stdout) == {"findings": []}
    assert "no samples" in r.stderr
    # the first two minutes only: GPU 3 has not started throttling yet
    j = json.loads(gpuwatch("history", "--db", str(demo_db), "--since", "7m", "--until", "5m", "--findings",
                            "--format", "json").stdout)
    assert all(f["kind"] != "thermal_throttle" for f in j["findings"]), j


def test_training_has_no_warning(tmp_path):
    db = tmp_path / "t.db"
    assert gpuwatch("sim", "record", "training", "--duration", "6m", "--db", str(db)).returncode == 0
    j = json.loads(findings(db, "--format", "json"))
    assert all(f["severity"] == "info" for f in j["findings"]), j


def test_usage_errors(demo_db):
    for extra in (["--format", "xml"], ["--processes"], ["--resolution", "1m"], ["--fields", "utilization.gpu"]):
        r = gpuwatch("history", "--db", str(demo_db), "--findings", *extra)
        assert r.returncode == 2, (extra, r.stderr)
    r = gpuwatch("history", "--db", str(demo_db), "--findings", "--gpu", "9")
    assert r.returncode == 2 and "no GPU 9" in r.stderr
