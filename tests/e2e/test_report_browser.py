"""gpuwatch report -o (issue 5) in a real browser: Debian's Chromium, headless, opens the
HTML file from disk with the network cut off, runs the inlined uPlot, and dumps the DOM.
It must hold one rendered uPlot chart (class "uplot", a canvas) per series per GPU.
Skips only when chromium is not installed (scripts/install-deps installs it)."""
import os
import re
import shutil
import subprocess
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SERIES = ("utilization", "memory", "temperature", "power")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (scripts/install-deps adds it)")


def sim_env():
    # the training scenario idles for its first 20 s: start 2 minutes in
    return dict(os.environ, GPUWATCH_SIM_SCENARIO="training",
                GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - 120_000))


def chromium(tmp_path, *args, timeout=90):
    """Headless Chromium, no sandbox (CI runs as root), nothing reached over the network:
    every host resolves nowhere, so a remote asset would fail rather than load."""
    profile = tmp_path / "chromium-profile"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND",
           f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0", *args]
    env = dict(os.environ, HOME=str(tmp_path))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def report_html(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report-browser")
    db, out = tmp / "history.db", tmp / "report.html"
    r = subprocess.run([BIN, "--simulate", "training", "record", "--db", str(db), "--interval", "100ms",
                        "--count", "10"], env=sim_env(), capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([BIN, "report", "--db", str(db), "--since", "10m", "-o", str(out), "--format", "json"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return out


def test_html_loads_nothing_from_the_network(report_html):
    html = report_html.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I), "remote src/href"
    for remote in ("<link", "@import", "url(http", "url(//"):
        assert remote not in html.lower()
    assert "var uPlot=" in html  # inlined, not fetched


def test_chromium_draws_one_uplot_chart_per_series_per_gpu(report_html, tmp_path):
    r = chromium(tmp_path, "--dump-dom", "--virtual-time-budget=5000", f"file://{report_html}")
    assert r.returncode == 0, r.stderr[-3000:]
    dom = r.stdout
    # our script counts the charts it made after uPlot built each one
    drawn = re.search(r'data-charts-drawn="(\d+)"', dom)
    assert drawn, "the chart script did not finish:\n" + r.stderr[-3000:]
    gpus = 2  # the training scenario
    assert int(drawn.group(1)) == gpus * len(SERIES)
    # each placeholder holds a rendered uPlot root with a canvas, for every GPU and series
    for gpu in range(gpus):
        for series in SERIES:
            m = re.search(rf'<div class="chart" data-gpu="{gpu}" data-series="{series}">(.*?)<table class="u-legend',
                          dom, re.S)
            assert m, f"no chart for GPU {gpu} {series}"
            assert 'class="uplot' in m.group(1) and "<canvas" in m.group(1), (gpu, series)
    assert len(re.findall(r'<div class="uplot', dom)) == gpus * len(SERIES)
    assert len(re.findall(r"<canvas", dom)) == gpus * len(SERIES)
    for title in ("GPU utilization [%]", "Memory used (peak per point) [MiB]", "Temperature (peak per point) [C]",
                  "Power draw [W]"):
        assert dom.count(f'<div class="u-title">{title}</div>') == gpus, title
    assert "Uncaught" not in r.stderr, r.stderr[-3000:]


def test_chromium_screenshot_is_not_blank(report_html, tmp_path):
    png = tmp_path / "report.png"
    r = chromium(tmp_path, f"--screenshot={png}", "--window-size=1280,1600", "--virtual-time-budget=5000",
                 f"file://{report_html}")
    assert r.returncode == 0, r.stderr[-3000:]
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 20_000  # a blank page compresses to a few kB; charts and tables do not
