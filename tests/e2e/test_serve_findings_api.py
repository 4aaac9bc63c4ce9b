"""GET /api/v1/findings (issue 23, docs/api.md): serve diagnoses a recorded range of its
database the way `gpuwatch diagnose` does: one finding per problem (kind, GPUs) with its
episodes, and one summary sentence per problem, most urgent first; a bad or too long range is
a 400 naming the problem; with no database (--no-record) the route is a 404 that says why. The
dashboard shows a stored range's grouped findings (dashboard_range_findings_check.mjs)."""
import json
import pathlib
import subprocess
import time

import pytest

from test_serve import BIN, Server, sim_env  # the serve fixture shared by the serve tests
from test_serve_dashboard import NODE, CHROMIUM, SOURCE_DIR, artifact_dir, browser_missing


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    db = tmp_path_factory.mktemp("findings") / "history.db"
    out = subprocess.run([BIN, "sim", "record", "demo", "--duration", "2h", "--interval", "10s", "--db", str(db)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    with Server(sim_env("demo"), "--db", str(db), "--history", "2m") as server:
        server.wait_ready()
        yield server
        rc, _, err = server.stop()
        assert rc == 0, err


def test_the_recorded_range_is_grouped_per_problem(recorded):
    started = time.monotonic()
    answer = recorded.get_json("/api/v1/findings?seconds=9000")  # the 2 recorded hours, and more
    assert time.monotonic() - started < 10
    assert answer["samples"] >= 700, answer["samples"]  # 2 h at 10 s
    assert answer["range"]["until_s"] - answer["range"]["since_s"] == pytest.approx(9000, abs=1)
    assert answer["range"]["first_sample_s"] >= answer["range"]["since_s"]
    keys = [(f["kind"], tuple(f["gpus"])) for f in answer["findings"]]
    assert len(keys) == len(set(keys)), keys  # one finding per problem
    by_key = {(f["kind"], tuple(f["gpus"])): f for f in answer["findings"]}
    throttle = by_key.get(("thermal_throttle", (3,)))
    assert throttle is not None, keys
    assert len(throttle["episodes"]) > 1, throttle  # came and went: one finding, its episodes
    assert 0 < throttle["share"] <= 1, throttle
    summary = answer["summary"]
    assert summary and summary[0].startswith("GPU 6:") and "leak" in summary[0], summary
    assert len(summary) == len(set(summary)), summary


def test_since_until_in_the_cli_grammar(recorded):
    whole = recorded.get_json("/api/v1/findings?since=3h")
    assert whole["samples"] >= 700
    now = time.time()
    # A range before anything was recorded: no samples, no findings, still a 200.
    empty = recorded.get_json(f"/api/v1/findings?since=@{int(now) - 86400}&until=@{int(now) - 80000}")
    assert empty["samples"] == 0 and empty["findings"] == [] and empty["summary"] == []
    assert empty["range"]["first_sample_s"] is None


@pytest.mark.parametrize("query, words", [
    ("seconds=abc", "seconds must be a positive number"),
    ("seconds=-5", "seconds must be a positive number"),
    ("seconds=99999999", "at most 31 days"),
    ("since=60d", "at most 31 days"),
    ("since=1h&until=2h", "since must be before until"),
    ("since=yesterday-ish", "since:"),
    ("seconds=60&since=1h", "either seconds or since/until"),
])
def test_a_bad_range_is_a_400_naming_the_problem(recorded, query, words):
    status, content_type, body = recorded.get("/api/v1/findings?" + query)
    assert status == 400, body
    assert content_type.startswith("application/json")
    assert words in json.loads(body)["error"], body


def test_no_database_is_a_404_that_says_why():
    with Server(sim_env("demo"), "--no-record") as server:
        server.wait_ready()
        status, _, body = server.get("/api/v1/findings?seconds=60")
        assert status == 404, body
        assert "no history database" in json.loads(body)["error"]
        assert server.get("/metrics")[0] == 200  # the rest of serve answers
        rc, _, err = server.stop()
        assert rc == 0, err


def test_the_dashboard_shows_a_stored_ranges_findings(recorded, tmp_path):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    screenshot = artifact_dir(tmp_path) / "dashboard-range-findings.png"
    args = {"url": recorded.url, "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR), "screenshot": str(screenshot)}
    out = subprocess.run([NODE, str(pathlib.Path(__file__).with_name("dashboard_range_findings_check.mjs")), json.dumps(args)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert "error" not in result, result["error"]
    assert not result["errors"], result["errors"]
    assert result["hiddenLive"]  # 1 minute is the ring's: the live findings panel covers it
    api = recorded.get_json("/api/v1/findings?seconds=21600")
    assert result["summary"] == api["summary"] and result["summary"][0].startswith("GPU 6:")
    assert len(result["rows"]) == len(api["findings"])
    throttle = next(r for r in result["rows"] if "GPU 3: thermal throttling" in r)
    assert "episodes ·" in throttle and "% of the range" in throttle, throttle
