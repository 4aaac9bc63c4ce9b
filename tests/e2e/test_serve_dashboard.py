"""gpuwatch serve's live dashboard at / (issue 4) in a real browser: Debian's Chromium, headless,
driven by playwright-core (npm devDependency, GPUWATCH_SOURCE_DIR/node_modules) through
tests/e2e/dashboard_check.mjs. On the simulated 8-GPU `demo` node it must draw one overview row per
GPU and the node charts, show the processes as /api/v1/snapshot has them, advance the charts from the
server-sent events, switch the range, load nothing but from the server itself, log no console
error, and say "disconnected" when the server goes away. On `gpu_lost` the lost GPU is marked.
The assets themselves are checked over plain HTTP: types, CSP, ETag/304, 404 for anything else.
Screenshots go to $GPUWATCH_ARTIFACT_DIR (else the test's tmp dir); their paths are printed."""
import http.client
import json
import os
import pathlib
import pwd
import shutil
import subprocess
import time

import pytest

from test_serve import BIN, Server, sim_env  # the serve fixture shared by the serve tests

SOURCE_DIR = pathlib.Path(os.environ.get("GPUWATCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CHECK_SCRIPT = pathlib.Path(__file__).with_name("dashboard_check.mjs")
NODE = shutil.which("node")
PLAYWRIGHT = SOURCE_DIR / "node_modules" / "playwright-core" / "package.json"


def find_chromium():
    """The Chromium binary playwright-core can launch: Debian's real binary behind the
    /usr/bin/chromium shell wrapper (the wrapper works too), or $GPUWATCH_CHROMIUM."""
    for candidate in (os.environ.get("GPUWATCH_CHROMIUM"), "/usr/lib/chromium/chromium",
                      shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


CHROMIUM = find_chromium()


def browser_missing():
    if NODE is None:
        return "node is not on PATH (scripts/install-deps installs Node.js)"
    if CHROMIUM is None:
        return "chromium is not installed (scripts/install-deps installs Debian's chromium)"
    if not PLAYWRIGHT.exists():
        return f"playwright-core is not in {PLAYWRIGHT.parent.parent} (scripts/install-deps runs npm ci)"
    return None


def artifact_dir(tmp_path):
    folder = pathlib.Path(os.environ.get("GPUWATCH_ARTIFACT_DIR") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def run_check(server, mode, screenshot, home, kill=False, disconnected_screenshot=None, restart=None):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    options = {"url": server.url, "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR), "mode": mode,
               "screenshot": str(screenshot), "killPid": server.proc.pid if kill else None,
               "disconnectedScreenshot": str(disconnected_screenshot) if disconnected_screenshot else None,
               "restart": restart}
    out = subprocess.run([NODE, str(CHECK_SCRIPT), json.dumps(options)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(home)))  # Chromium's profile and caches
    lines = out.stdout.strip().splitlines()
    assert lines, f"no result from the browser check (rc {out.returncode}): {out.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert out.returncode == 0 and "error" not in result, f"{result.get('error')}\n{out.stderr[-3000:]}\n{result}"
    print(f"\ndashboard screenshot ({mode}): {screenshot}")
    return result


def raw_get(server, path, headers=None):
    """GET PATH exactly as written (urllib would normalise ../ and %2e)."""
    conn = http.client.HTTPConnection(server.host, server.port, timeout=5)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    body = response.read()
    conn.close()
    return response.status, response.headers, body


@pytest.fixture(scope="module")
def training(tmp_path_factory):
    db = tmp_path_factory.mktemp("dashboard") / "history.db"  # serve records; not into ~/.local/state
    with Server(sim_env("training", seconds_in=120), "--interval", "500ms", "--db", str(db)) as server:
        server.wait_ready()
        yield server
        server.stop()


def test_page_and_assets_come_from_the_bundle(training):
    status, headers, body = raw_get(training, "/")
    assert status == 200
    assert headers["Content-Type"] == "text/html; charset=utf-8"
    csp = headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "unsafe-inline" not in csp
    assert headers["X-Content-Type-Options"] == "nosniff"
    page = body.decode()
    for link in ("/metrics", "/api/v1/snapshot", "/api/v1/events", "/healthz", "/readyz"):
        assert f'href="{link[1:]}' in page, link  # the endpoint list lives on in the footer
    etag = headers["ETag"]
    status, headers, body = raw_get(training, "/", {"If-None-Match": etag})
    assert status == 304 and body == b""

    for name, content_type in (("uPlot.iife.min.js", "text/javascript"), ("dashboard.js", "text/javascript"),
                               ("dashboard_charts.js", "text/javascript"), ("dashboard.css", "text/css"),
                               ("uPlot.min.css", "text/css")):
        assert f'"assets/{name}"' in page
        status, headers, body = raw_get(training, "/assets/" + name)
        assert status == 200, name
        assert headers["Content-Type"] == content_type + "; charset=utf-8"
        assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
        assert len(body) > 500
    for path in ("/assets/missing.js", "/assets/dashboard.html", "/assets/../metrics", "/assets/..%2fmetrics",
                 "/assets/%2e%2e/%2e%2e/etc/passwd", "/assets/", "/dashboard.js", "/assets/dashboard.js/x"):
        status, _, body = raw_get(training, path)
        assert status == 404, path
        assert b"gpuwatch_" not in body and b"root:" not in body


def test_live_dashboard_in_chromium(tmp_path):
    env = sim_env("demo", seconds_in=5)
    folder = artifact_dir(tmp_path)
    with Server(env, "--interval", "500ms", "--per-process-metrics", "--db", str(tmp_path / "history.db")) as server:
        server.wait_ready()
        snapshot = server.get_json("/api/v1/snapshot")
        # After the disconnect the check starts serve again on the same address.
        restart = {"argv": [BIN, "--simulate", "demo", "serve", "--listen", f"127.0.0.1:{server.port}",
                            "--interval", "500ms", "--db", str(tmp_path / "history-2.db")], "env": env}
        result = run_check(server, "live", folder / "dashboard-demo.png", tmp_path, kill=True,
                           disconnected_screenshot=folder / "dashboard-disconnected.png", restart=restart)
        rc, _, err = server.stop()
        assert rc == 0, err

    assert result["status"] == 200
    assert "default-src 'self'" in result["headers"]["content-security-policy"]
    # One overview row per GPU: 8 H100s in index order, named as the snapshot names them; five
    # node charts with one series per GPU.
    assert result["gpus"] == 8
    assert result["nodeCharts"] == [{"chart": c, "series": 8} for c in
                                    ("utilization", "memory", "power", "temperature", "clocks")]
    cards = result["charts"]
    assert [c["gpu"] for c in cards] == list(range(8))
    for card, gpu in zip(cards, snapshot["gpus"]):
        assert gpu["name"].startswith("NVIDIA H100") and gpu["name"].endswith(card["name"]) and "H100" in card["name"]
        assert gpu["uuid"] in card["ids"]
        assert card["state"] == "ok" and card["badge"] == "OK" and card["error"] == ""
        assert card["points"] > 0, card
    # The process table = the snapshot's processes (pid, command line, user, GPUs compared in the page).
    for table in result["processTables"]:
        assert table["table"] == table["snapshot"], table
        assert table["table"], table  # the demo runs a job on every GPU
    gpu7 = next(t for t in result["processTables"] if t["gpu"] == 7)
    assert len(gpu7["table"]) == 2  # the training job and tensorboard
    # Users, command lines, RSS from /proc (the scenario's stand-in processes run as us), memory in MiB
    me = pwd.getpwuid(os.getuid()).pw_name
    for row in gpu7["rows"]:
        assert row[1] == me and row[4].endswith(" MiB") and row[7].endswith(" MiB"), row
    assert gpu7["rows"][0][4] == "62314 MiB"  # largest first: the scenario's 62314 MiB job
    assert "train.py" in gpu7["rows"][0][2]  # the whole command line, not just `python`
    # Live: samples arrived over SSE and moved GPU 0's charts forward.
    assert result["live"]["after"]["events"] > result["live"]["before"]["events"]
    assert result["live"]["after"]["last"] > result["live"]["before"]["last"] > 0
    assert result["live"]["after"]["connection"] == "live"
    assert result["rangeInfo"].startswith("last 1 h")
    # [time, GPU temperature, memory temperature, slowdown, band max, band min]: nulls kept, a null
    # row put into the 18 s pause; live columns have no min/max band
    assert result["gapCheck"] == [[100, 101, 102, 103.5, 120], [50, None, 52, None, 53], [None] * 5,
                                  [87, 87, 87, None, 87], [None] * 5, [None] * 5]
    # Only the server's own origin was asked, for the page, its assets and the API.
    assert result["requests"], "no request recorded"
    foreign = [u for u in result["requests"] if not u.startswith(server.url + "/")]
    assert not foreign, foreign
    asked = {u[len(server.url):].split("?")[0] for u in result["requests"]}
    assert {"/", "/assets/uPlot.iife.min.js", "/assets/dashboard.js", "/api/v1/history", "/api/v1/events",
            "/api/v1/snapshot"} <= asked, asked
    assert not result["pageErrors"], result["pageErrors"]
    assert not result["consoleErrorsBeforeStop"], result["consoleErrorsBeforeStop"]
    # The server went away: said clearly.
    assert result["disconnected"]["connection"] == "disconnected"
    assert "Disconnected" in result["disconnected"]["banner"]
    # ... and back by itself when the server is.
    assert result["reconnected"]["connection"] == "live"
    assert (folder / "dashboard-demo.png").stat().st_size > 20_000


def test_lost_gpu_is_marked(tmp_path):
    # gpu_lost: GPU 1 falls off the bus 30 s in; start 27 s in, so it has samples (and its identity) first.
    env = sim_env("gpu_lost", seconds_in=27)
    folder = artifact_dir(tmp_path)
    with Server(env, "--interval", "500ms", "--db", str(tmp_path / "history.db")) as server:
        snapshot = None
        for _ in range(150):  # bounded: 15 s
            snapshot = server.get_json("/api/v1/snapshot")
            if [g["state"] for g in snapshot["gpus"]] == ["ok", "lost"]:
                break
            time.sleep(0.1)
        assert [g["state"] for g in snapshot["gpus"]] == ["ok", "lost"], snapshot
        result = run_check(server, "lost", folder / "dashboard-gpu-lost.png", tmp_path)
        server.stop()
    cards = {c["gpu"]: c for c in result["charts"]}
    assert cards[0]["state"] == "ok" and cards[0]["badge"] == "OK"
    assert cards[1]["state"] == "lost" and cards[1]["badge"] == "LOST"
    assert "lost" in cards[1]["error"].lower()
    assert "\nGPU-" in cards[1]["ids"]  # a lost GPU keeps its identity (name, UUID, PCI bus id on hover)
    lost_table = next(t for t in result["processTables"] if t["gpu"] == 1)
    assert lost_table["table"] == [] and lost_table["snapshot"] == []  # its processes are not passed off as current
    assert not result["pageErrors"] and not result["consoleErrors"], result


def test_a_page_without_event_stream_polls(tmp_path):
    # --max-event-streams 1: the second page is refused one and polls the history.
    with Server(sim_env("training", seconds_in=120), "--interval", "500ms", "--max-event-streams", "1",
                "--db", str(tmp_path / "history.db")) as server:
        server.wait_ready()
        result = run_check(server, "polling", artifact_dir(tmp_path) / "dashboard-polling.png", tmp_path)
        server.stop()
    assert result["polling"]["first"] == "live"
    assert result["polling"]["second"] == "polling (no live stream)"
    assert result["polling"]["secondEvents"] == 0
    # Two pages open (one with the event stream): /metrics still answers at once.
    assert max(result["metricsMs"]) < 1000, result["metricsMs"]
    assert not result["pageErrors"], result["pageErrors"]
    assert not result["consoleErrors"], result["consoleErrors"]  # the first page's; the second's 503 is expected


def test_a_gpu_with_a_finding_is_not_ok(tmp_path):
    # issue 10: ecc_errors (10x time) has uncorrectable ECC errors and Xid 48 a few seconds in; the
    # card's badge says CRITICAL (not a green OK) with the finding's one-line reason.
    env = sim_env("ecc_errors", seconds_in=10)
    folder = artifact_dir(tmp_path)
    with Server(env, "--interval", "500ms", "--no-record") as server:
        snapshot = None
        for _ in range(300):  # bounded: 30 s
            snapshot = server.get_json("/api/v1/snapshot")
            findings = snapshot["gpus"][0]["findings"]
            if findings and findings[0]["severity"] == "critical":
                break
            time.sleep(0.1)
        assert snapshot["gpus"][0]["findings"][0]["severity"] == "critical", snapshot["gpus"][0]["findings"]
        result = run_check(server, "lost", folder / "dashboard-gpu-finding.png", tmp_path)
        server.stop()
    card = {c["gpu"]: c for c in result["charts"]}[0]
    assert card["state"] == "critical" and card["badge"] == "CRITICAL", card
    assert card["error"], "the card says why in one line"
    assert not result["pageErrors"] and not result["consoleErrors"], result
