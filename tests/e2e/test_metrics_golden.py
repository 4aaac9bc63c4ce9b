"""The golden /metrics (issue 27): `gpuwatch serve` on bench/serve_node.yaml (8 H100s, 50
processes) at a fixed simulated time, compared byte for byte with
tests/e2e/golden/metrics_serve_node.prom, as node_exporter compares its end-to-end output. A
renamed or dropped metric, label, HELP or TYPE line, or a changed value or series order fails
here with a diff, so no rename reaches a dashboard unnoticed.

Determinism: the simulated driver's clock is stopped (GPUWATCH_SIM_CLOCK_MS, 2026-01-01T00:00Z)
10 minutes into the scenario (GPUWATCH_SIM_EPOCH_MS), so every sample reads the same values.
With a clock that never moves, the driver's sample buffer holds no new sample between two
readings, so the two sample-buffer families (gpuwatch_utilization_gpu_idle_ratio,
gpuwatch_utilization_gpu_idle_gaps) are absent here; tests/e2e/test_sample_buffer_serve.py pins
them. What still differs from run to run or machine to machine is replaced by NORMALIZE below
(label and sample values only, never a name).

Flags: --per-process-metrics and --metrics-compat dcgm,nvidia-smi, so the per-process and the
compatibility names (which other exporters' dashboards query) are pinned too; --no-record.

Regenerate after an intended change, then review the diff of the .prom file:
    GPUWATCH_UPDATE_GOLDEN=1 ctest -R e2e.test_metrics_golden     (from the build folder)
"""
import difflib
import os
import re
import shutil
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SOURCE = Path(os.environ.get("GPUWATCH_SOURCE_DIR", Path(__file__).resolve().parents[2]))
SCENARIO = SOURCE / "bench" / "serve_node.yaml"
GOLDEN = SOURCE / "tests" / "e2e" / "golden" / "metrics_serve_node.prom"
# --no-host: the host signals (gpuwatch_host_*, issue 25) are this machine's, never the same twice;
# tests/e2e/test_serve_host.py checks them on a fake host tree.
FLAGS = ["--per-process-metrics", "--metrics-compat", "dcgm,nvidia-smi", "--no-record", "--no-host"]
CLOCK_MS = 1767225600000            # 2026-01-01T00:00:00Z: every driver call reads this time
EPOCH_MS = CLOCK_MS - 600 * 1000    # scenario time 0, so the clock stands 10 min into the training phase
LISTENING = re.compile(r"listening on (https?://[^/\s]+)/metrics")

# What is replaced before comparing, and why (values only: a name stays as it is).
NORMALIZE = [
    # gpuwatch's own timing: the age of the latest sample and how long sampling took.
    (re.compile(r"^(gpuwatch_(?:sample_age|collector_duration)_seconds\{[^}]*\}) \S+$", re.M), r"\1 <seconds>"),
    # The stand-in processes get whatever PIDs are free.
    (re.compile(r'([{,]pid=)"\d+"'), r'\1"<pid>"'),
    # The stand-ins run as whoever runs the test.
    (re.compile(r'([{,]user=)"[^"]*"'), r'\1"<user>"'),
    # dcgm-exporter's Hostname label: this machine's name.
    (re.compile(r'([{,]Hostname=)"[^"]*"'), r'\1"<hostname>"'),
]


def normalize(text):
    for pattern, replacement in NORMALIZE:
        text = pattern.sub(replacement, text)
    return text


def get(url, timeout=5.0):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def stable_scrape(base, deadline):
    """The normalized /metrics once two scrapes one sample interval apart agree (a series that
    appears only after a later sample is then in); fails with what kept changing."""
    previous, current = None, ""
    while time.monotonic() < deadline:
        status, body = get(base + "/metrics")
        assert status == 200, body
        current = normalize(body)
        if current == previous:
            return current
        previous = current
        time.sleep(1.1)  # serve samples every second (default --interval)
    changed = [l for l in difflib.unified_diff((previous or "").splitlines(), current.splitlines(), lineterm="", n=0)]
    pytest.fail("/metrics never settled: these lines changed between scrapes (make them deterministic, or add a "
                "normalization to NORMALIZE with its reason):\n" + "\n".join(changed[:60]))


@pytest.fixture(scope="module")
def scrape():
    state = tempfile.mkdtemp(prefix="gpuwatch-golden-")
    env = dict(os.environ, XDG_STATE_HOME=state, GPUWATCH_SIM_CLOCK_MS=str(CLOCK_MS),
               GPUWATCH_SIM_EPOCH_MS=str(EPOCH_MS))
    env.pop("STATE_DIRECTORY", None)
    errors = open(os.path.join(state, "serve.stderr"), "w+")
    proc = subprocess.Popen([BIN, "--simulate", str(SCENARIO), "serve", "--listen", "127.0.0.1:0", *FLAGS],
                            env=env, stdout=subprocess.PIPE, stderr=errors, text=True)
    try:
        line = proc.stdout.readline()  # the first line says where it listens
        match = LISTENING.search(line)
        if not match:
            proc.kill()
            proc.communicate(timeout=10)
            errors.seek(0)
            pytest.fail(f"serve did not start: {line!r} {errors.read()}")
        base = match.group(1)
        deadline = time.monotonic() + 15
        while get(base + "/readyz")[0] != 200:
            assert time.monotonic() < deadline, "serve never became ready"
            time.sleep(0.05)
        yield stable_scrape(base, deadline)
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        errors.close()
        shutil.rmtree(state, ignore_errors=True)


def test_metrics_match_the_golden_file(scrape):
    if os.environ.get("GPUWATCH_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(scrape)
        pytest.skip(f"GPUWATCH_UPDATE_GOLDEN=1: wrote {GOLDEN}; review its diff before committing")
    assert GOLDEN.exists(), f"{GOLDEN} is missing: GPUWATCH_UPDATE_GOLDEN=1 writes it"
    golden = GOLDEN.read_text()
    if scrape != golden:
        diff = list(difflib.unified_diff(golden.splitlines(), scrape.splitlines(), fromfile=f"golden {GOLDEN.name}",
                                         tofile="/metrics now (normalized)", lineterm="", n=1))
        shown = "\n".join(diff[:200]) + (f"\n... {len(diff) - 200} more diff lines" if len(diff) > 200 else "")
        pytest.fail(f"/metrics differs from the golden file ({len(diff)} diff lines). If the change is intended, "
                    f"regenerate it: GPUWATCH_UPDATE_GOLDEN=1 ctest -R e2e.test_metrics_golden\n{shown}")


def test_the_golden_file_covers_every_exporter_family(scrape):
    """The golden file is not a trivial one: native, per-process and both compatibility
    families, for all 8 GPUs and 50 processes."""
    golden = GOLDEN.read_text() if GOLDEN.exists() else scrape
    families = re.findall(r"^# TYPE (\S+) ", golden, re.M)
    assert len(families) == len(set(families))
    for name in ("gpuwatch_up", "gpuwatch_power_draw_watts", "gpuwatch_process_memory_used_bytes",
                 "DCGM_FI_DEV_GPU_UTIL", "nvidia_smi_utilization_gpu_ratio", "nvidia_smi_compute_app_info"):
        assert name in families, name
    assert len(re.findall(r"^gpuwatch_up\{", golden, re.M)) == 8
    assert len(re.findall(r"^gpuwatch_process_memory_used_bytes\{", golden, re.M)) == 50
