"""gpuwatch report -o (issues 5 and 12) in a real browser: Debian's Chromium through
playwright-core (tests/e2e/report_check.mjs) opens the HTML file of the 8-GPU demo node from disk
with every host name resolving nowhere, and checks: nothing requested but the file itself, no
console or page error, the node charts drawn with all 8 GPUs overlaid (the SM clock and
held-back charts too), no text box of a chart over another, the summary first and above the fold
at 1920x1080, a page far shorter than the 6,200 px it was, each GPU's charts drawn when opened,
and no serious or critical axe-core violation. The screenshot goes under the build directory for
a person to look at. Skips only when Node.js, Chromium or playwright-core is missing
(scripts/install-deps installs them)."""
import json
import os
import pathlib
import re
import shutil
import subprocess

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SOURCE_DIR = pathlib.Path(os.environ.get("GPUWATCH_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
CHECK_SCRIPT = pathlib.Path(__file__).with_name("report_check.mjs")
NODE = shutil.which("node")


def find_chromium():
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
    for package in ("playwright-core", "axe-core"):
        if not (SOURCE_DIR / "node_modules" / package / "package.json").exists():
            return f"{package} is not in {SOURCE_DIR / 'node_modules'} (scripts/install-deps runs npm ci)"
    return None


def artifact_dir():
    """Screenshots for a person to look at: $GPUWATCH_ARTIFACT_DIR, else beside the binary (the build dir)."""
    folder = pathlib.Path(os.environ.get("GPUWATCH_ARTIFACT_DIR") or pathlib.Path(BIN).resolve().parent / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report-browser")
    db, out = tmp / "demo.db", tmp / "report.html"
    r = subprocess.run([BIN, "sim", "record", "demo", "--duration", "6m", "--db", str(db)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([BIN, "report", "--db", str(db), "--since", "10m", "-o", str(out)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture(scope="module")
def seen(demo_report, tmp_path_factory):
    missing = browser_missing()
    if missing:
        pytest.skip(missing)
    screenshot = artifact_dir() / "report-demo-1920.png"
    options = {"file": str(demo_report), "chromium": CHROMIUM, "sourceDir": str(SOURCE_DIR),
               "screenshot": str(screenshot), "width": 1920, "height": 1080}
    home = tmp_path_factory.mktemp("chromium-home")
    out = subprocess.run([NODE, str(CHECK_SCRIPT), json.dumps(options)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, HOME=str(home)))
    lines = out.stdout.strip().splitlines()
    assert lines, f"no result from the browser check (rc {out.returncode}): {out.stderr[-3000:]}"
    result = json.loads(lines[-1])
    assert out.returncode == 0 and "error" not in result, f"{result.get('error')}\n{out.stderr[-3000:]}"
    print(f"\nreport screenshot: {screenshot}")
    return result


def test_html_loads_nothing_from_the_network(demo_report):
    html = demo_report.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I), "remote src/href"
    for remote in ("<link", "@import", "url(http", "url(//"):
        assert remote not in html.lower()
    assert "var uPlot=" in html  # inlined, not fetched


def test_no_request_but_the_file_and_no_errors(seen, demo_report):
    assert seen["requests"] == [f"file://{demo_report}"], seen["requests"]
    assert seen["consoleErrors"] == [] and seen["pageErrors"] == [], (seen["consoleErrors"], seen["pageErrors"])


def test_node_charts_overlay_every_gpu(seen):
    charts = {c["series"]: c for c in seen["nodeCharts"]}
    assert set(charts) == {"utilization", "memory", "temperature", "power", "sm_clock", "held_back"}
    for key, chart in charts.items():
        assert chart["canvas"], key
        assert chart["legend"][1:] == [f"GPU {i}" for i in range(8)], (key, chart["legend"])  # [0]: the time
    assert charts["temperature"]["title"] == "Temperature (peak per point) [°C]"
    assert charts["sm_clock"]["title"] == "SM clock [MHz]"
    assert seen["chartsDrawn"] == 6


def test_no_label_overlaps_another(seen):
    assert seen["overlaps"] == [], seen["overlaps"][:10]
    assert seen["headerOverlaps"] == [], seen["headerOverlaps"][:10]
    assert seen["gpuOverlaps"] == [], seen["gpuOverlaps"][:10]


def test_trouble_first_and_a_short_page(seen):
    assert seen["sections"][:4] == ["summary", "findings", "gpus", "charts"], seen["sections"]
    assert seen["summaryBottom"] is not None and seen["summaryBottom"] <= 1080, "the summary is above the fold"
    assert any(line.startswith("GPU 3 spent") for line in seen["summary"]), seen["summary"]
    assert any(line.startswith("GPU 6's") for line in seen["summary"]), seen["summary"]
    assert seen["pageHeight"] < 4000, f"{seen['pageHeight']} px (it was 6,200 for 8 GPUs)"
    assert any(e["kind"] == "xid" and e["cells"][1] == "6" for e in seen["timeline"]), seen["timeline"]


def test_a_gpu_opens_to_its_own_charts(seen):
    assert seen["gpuChartsDrawn"] == 6


def test_axe_finds_no_serious_or_critical_violation(seen):
    assert seen["axe"] == [], json.dumps(seen["axe"], indent=1)


def test_dark_mode_charts_follow_the_page(seen):
    dark = seen["dark"]
    assert dark["page"] == "rgb(22, 24, 28)", dark  # report.css' dark --bg
    assert dark["canvas"] in ("rgba(0, 0, 0, 0)", "transparent"), dark  # no white box on the dark page
    assert dark["axisTextBrightness"] > 150, dark  # light labels, readable on it
    assert seen["darkRequests"] == seen["requests"]  # the same page, nothing more asked
