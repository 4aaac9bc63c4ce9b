"""NVLink throughput (issue 25) end to end on the simulated driver: an H100 SXM whose scenario moves
data over NVLink shows the rate (NVML's KiB counters between two samples, in bytes per second) in
`status --jsonl` from its second frame, in /metrics (gpuwatch_nvlink_*_throughput_bytes_per_second
and dcgm-exporter's DCGM_FI_PROF_NVLINK_*_BYTES); a PCIe board (L4) has none (null, [N/A], no
series), never 0; the JSON API's snapshot has the same keys; a one-shot read has no interval yet:
null / [N/A]."""
import json
import os
import re
import subprocess
import tempfile
import time
import urllib.request

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
KIB = 1024
TX_KBPS = 20_000_000  # ~20 GB/s transmitted while training (the scenario's KB/s)
RX_KBPS = 5_000_000

SCENARIO = f"""\
name: nvlink_e2e
description: An H100 SXM training with NVLink traffic beside an L4 (PCIe only).
gpus:
  - model: H100 SXM 80GB
    values: {{nvlink.tx_throughput: {TX_KBPS}, nvlink.rx_throughput: {RX_KBPS}}}
    phases:
      - {{kind: training, duration: 1h}}
  - model: L4
    phases:
      - {{kind: training, duration: 1h}}
"""


@pytest.fixture(scope="module")
def scenario():
    with tempfile.TemporaryDirectory(prefix="gpuwatch-nvlink-") as tmp:
        path = os.path.join(tmp, "nvlink.yaml")
        with open(path, "w") as f:
            f.write(SCENARIO)
        yield path


def env_for(scenario):
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=scenario, GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - 60_000))
    env.pop("GPUWATCH_SIM_CLOCK_MS", None)
    return env


def gpuwatch(scenario, *args, timeout=30):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB, *args], env=env_for(scenario), capture_output=True,
                          text=True, timeout=timeout)


def test_status_jsonl_has_the_rate_from_the_second_frame(scenario):
    r = gpuwatch(scenario, "status", "--jsonl", "--no-host", "-i", "300ms", "-c", "2")
    assert r.returncode == 0, r.stderr
    first, second = [json.loads(line) for line in r.stdout.splitlines()]
    # The first frame has no interval yet: null, never 0.
    assert first["gpus"][0]["nvlink_tx_throughput_bytes_per_s"] is None
    h100, l4 = second["gpus"]
    assert h100["nvlink_tx_throughput_bytes_per_s"] == pytest.approx(TX_KBPS * KIB, rel=0.02)
    assert h100["nvlink_rx_throughput_bytes_per_s"] == pytest.approx(RX_KBPS * KIB, rel=0.02)
    # A PCIe board has no NVLink: null in every frame.
    assert l4["nvlink_tx_throughput_bytes_per_s"] is None and l4["nvlink_rx_throughput_bytes_per_s"] is None


def test_query_knows_the_names_and_a_one_shot_has_no_interval(scenario):
    r = gpuwatch(scenario, "query", "--query-gpu=index,nvlink.tx,nvlink.rx_throughput", "--format=csv")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "index, nvlink.tx_throughput [KB/s], nvlink.rx_throughput [KB/s]"  # the alias's own name
    assert lines[1:] == ["0, [N/A], [N/A]", "1, [N/A], [N/A]"]


def metrics_value(body, name, gpu):
    match = re.search(r"^" + re.escape(name) + r'\{gpu="' + str(gpu) + r'"[^}]*\} (\S+)$', body, re.M)
    return float(match.group(1)) if match else None


def test_metrics_native_and_dcgm_names(scenario):
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--interval",
                             "200ms", "--no-record", "--no-host", "--metrics-compat", "dcgm"],
                            env=env_for(scenario), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"listening on (https?://[^/\s]+)/metrics", line)
        assert match, line
        body = ""
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            with urllib.request.urlopen(match.group(1) + "/metrics", timeout=5) as response:
                body = response.read().decode()
            if metrics_value(body, "gpuwatch_nvlink_tx_throughput_bytes_per_second", 0) is not None:
                break
            time.sleep(0.2)
        tx = metrics_value(body, "gpuwatch_nvlink_tx_throughput_bytes_per_second", 0)
        assert tx == pytest.approx(TX_KBPS * KIB, rel=0.02), body
        assert metrics_value(body, "gpuwatch_nvlink_rx_throughput_bytes_per_second", 0) == pytest.approx(
            RX_KBPS * KIB, rel=0.02)
        assert "# TYPE gpuwatch_nvlink_tx_throughput_bytes_per_second gauge" in body
        assert metrics_value(body, "DCGM_FI_PROF_NVLINK_TX_BYTES", 0) == pytest.approx(TX_KBPS * KIB, rel=0.02)
        assert metrics_value(body, "DCGM_FI_PROF_NVLINK_RX_BYTES", 0) == pytest.approx(RX_KBPS * KIB, rel=0.02)
        # The L4 has no NVLink: no series at all, never a 0.
        assert metrics_value(body, "gpuwatch_nvlink_tx_throughput_bytes_per_second", 1) is None
        assert metrics_value(body, "DCGM_FI_PROF_NVLINK_RX_BYTES", 1) is None
        assert metrics_value(body, "gpuwatch_memory_used_bytes", 1) is not None  # while the L4 is exported
        # The JSON API's snapshot has the same keys as `status --json` (the field table's).
        with urllib.request.urlopen(match.group(1) + "/api/v1/snapshot", timeout=5) as response:
            gpus = json.loads(response.read().decode())["gpus"]
        assert gpus[0]["nvlink_rx_throughput_bytes_per_s"] == pytest.approx(RX_KBPS * KIB, rel=0.02)
        assert gpus[1]["nvlink_rx_throughput_bytes_per_s"] is None
    finally:
        proc.terminate()
        proc.communicate(timeout=10)
