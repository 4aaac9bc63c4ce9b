"""The dashboard's host panel (issue 25) in a real browser (Debian's Chromium through
playwright-core, tests/e2e/dashboard_host_check.mjs), serve on the simulator:
  - live: serve's own GET /api/v1/host ({"latest": {...}, "series": {"t": [...], key: [...]}}):
    the panel shows the host line and its five charts (CPU busy + iowait, disk, network, memory,
    swap) with points, the CPU chart holds the endpoint's values, no console or page error, nothing
    asked beyond the server, axe-core finds no serious or critical violation;
  - fixture: /api/v1/host answered by the check itself with known values: the line is the one
    `gpuwatch status` writes (IB absent is left out, never 0), a null is a gap in the chart (not 0),
    IB series are not drawn where there is no InfiniBand, a string in a number's place is not
    rendered as HTML; {"latest": null} and a 404 hide the panel, and a 404 is not asked again."""
import json
import os
import subprocess
import time

import pytest

from test_serve import Server, sim_env
from test_serve_dashboard import NODE, CHROMIUM, SOURCE_DIR, artifact_dir, browser_missing

CHECK = SOURCE_DIR / "tests" / "e2e" / "dashboard_host_check.mjs"
AXE = SOURCE_DIR / "node_modules" / "axe-core" / "axe.min.js"
CHART_KEYS = ["host-cpu", "host-disk", "host-network", "host-memory", "host-swap"]


def check(server, tmp_path, mode, axe=False):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    if axe and not AXE.exists():
        pytest.skip(f"axe-core is not in {AXE.parent.parent} (scripts/install-deps runs npm ci)")
    args = {"url": server.url, "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR), "outDir": str(artifact_dir(tmp_path)),
            "mode": mode, "axe": axe}
    out = subprocess.run([NODE, str(CHECK), json.dumps(args)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(tmp_path)))
    lines = out.stdout.strip().splitlines()
    assert lines, f"no result from the browser check (rc {out.returncode}): {out.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert out.returncode == 0 and "error" not in result, f"{result.get('error')}\n{out.stderr[-3000:]}\n{result}"
    assert not result["pageErrors"], result["pageErrors"]
    foreign = [u for u in result["requests"] if not u.startswith(server.url + "/")]
    assert not foreign, foreign
    return result


def wait_for_host_series(server, points=3, timeout=20.0):
    """/api/v1/host once it has POINTS samples with a CPU share (rates need two readings)."""
    deadline = time.monotonic() + timeout
    answer = None
    while time.monotonic() < deadline:
        status, _, body = server.get("/api/v1/host?seconds=300")
        assert status == 200, f"GET /api/v1/host: {status} {body[:300]} (serve's host endpoint, issue 25)"
        answer = json.loads(body)
        cpu = [v for v in answer["series"].get("cpu_busy_percent", []) if v is not None]
        if answer["latest"] is not None and len(cpu) >= points:
            return answer
        time.sleep(0.25)
    pytest.fail(f"/api/v1/host never had {points} CPU samples: {json.dumps(answer)[:500]}")


def test_host_charts_draw_from_the_endpoint(tmp_path):
    with Server(sim_env("thermal_runaway", seconds_in=30), "--no-record", "--interval", "500ms") as server:
        server.wait_ready()
        answer = wait_for_host_series(server)
        assert set(answer["series"]) >= {"t", "cpu_busy_percent", "cpu_iowait_percent", "disk_read_bytes_per_s",
                                         "net_rx_bytes_per_s", "memory_available_percent"}, sorted(answer["series"])
        assert all(len(v) == len(answer["series"]["t"]) for v in answer["series"].values())
        result = check(server, tmp_path, "live", axe=True)
        rc, _, err = server.stop()
        assert rc == 0, err
    shown = result["shown"]
    assert not shown["hidden"] and shown["bodyHost"] == "on"
    assert [c["key"] for c in shown["charts"]] == CHART_KEYS
    assert shown["line"].startswith("CPU "), shown["line"]
    assert shown["points"] >= 2
    for chart in shown["charts"]:
        assert chart["width"] > 200 and len(chart["x"]) >= 2, chart["key"]
    # What the CPU chart holds is the endpoint's: its latest value is among the values asked now.
    cpu = shown["charts"][0]
    assert cpu["labels"] == ["Busy", "iowait"]
    drawn = [v for v in cpu["data"][0] if v is not None]
    asked = [v for v in result["endpoint"]["series"]["cpu_busy_percent"] if v is not None]
    assert drawn and any(abs(drawn[-1] - v) < 1e-9 for v in asked), (drawn[-5:], asked[-10:])
    assert all(0 <= v <= 100 for v in drawn)
    assert not result["consoleErrors"], result["consoleErrors"]
    bad = [v for v in result["axe"] if v["impact"] in ("serious", "critical")]
    assert not bad, bad


def test_host_panel_from_known_values_and_hidden_without_host_signals(tmp_path):
    with Server(sim_env("thermal_runaway", seconds_in=30), "--no-record") as server:
        server.wait_ready()
        result = check(server, tmp_path, "fixture")
        server.stop()
    shown = result["shown"]
    assert not shown["hidden"]
    # The line as `gpuwatch status` writes it; IB (null) left out, the string in swap_total_bytes ignored.
    assert shown["line"] == ("CPU 42 % (iowait 7 %) | mem 63 % avail, swap 5 pg/s | disk R 12 MB/s W 3.0 MB/s, busy 55 % | "
                             "net RX 1.2 MB/s TX 300 kB/s"), shown["line"]
    assert shown["elements"] == 0  # nothing from the data became an element
    charts = {c["key"]: c for c in shown["charts"]}
    assert list(charts) == CHART_KEYS
    # A null is a gap (null in the chart's data), never 0; the values as sent, scaled to the unit.
    cpu = charts["host-cpu"]["data"][0]
    assert None in cpu and 0 not in cpu
    assert [v for v in cpu if v is not None] == [30 + i for i in range(11) if i != 5]
    reads = [v for v in charts["host-disk"]["data"][0] if v is not None]
    assert reads[0] == pytest.approx(10.0) and reads[-1] == pytest.approx(12.0)
    assert charts["host-disk"]["title"] == "Disk [MB/s]"
    # No InfiniBand here: its series are not drawn.
    assert charts["host-network"]["labels"] == ["RX", "TX"]
    assert charts["host-memory"]["labels"] == ["Available", "PSI some"]
    assert not result["consoleErrorsShown"], result["consoleErrorsShown"]
    # No host signals: hidden on {"latest": null}, hidden on 404 and not asked again.
    assert result["hiddenOnNull"]["hidden"] and result["hiddenOnNull"]["bodyHost"] == "off"
    assert result["hiddenOn404"]["hidden"]
    assert result["askedAfter404"] == 0
