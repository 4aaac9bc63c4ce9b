"""A mixed node end to end (issue 28): `--simulate demo_mixed` is 4 NVIDIA H100s (the simulated
NVML driver), 2 AMD MI300Xs (amdgpu's sysfs, hwmon and fdinfo files under the simulated host root)
and 2 Intel Max 1550s (i915's files, and Level Zero Sysman through Debian's real libze_loader and
the simulated Level Zero driver). Every surface shows all eight: status (values checked against
the files the simulator wrote), top, /metrics (promtool-clean, a vendor label, the NVIDIA-only
compatibility names only on NVIDIA GPUs), the dashboard in Chromium, record -> report."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from test_serve import Server, sim_env
from test_serve_dashboard import artifact_dir, run_check
from test_top import Top

BIN = os.environ["GPUWATCH_BIN"]
PROMTOOL = shutil.which("promtool")
MIB = 1024 * 1024
FROZEN_MS = "1764547300000"  # scenario time ~100 s: every GPU in its training phase
VENDORS = ["nvidia"] * 4 + ["amd"] * 2 + ["intel"] * 2


def gw(*args, env=None, timeout=120):
    return subprocess.run([BIN, *args], capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def frozen_node(tmp_path_factory):
    """status --json on demo_mixed at a frozen clock, and a copy of the simulated host's files as
    that status read them (the same clock renders the same files)."""
    out = tmp_path_factory.mktemp("mixed")
    env = dict(os.environ, GPUWATCH_SIM_CLOCK_MS=FROZEN_MS, GPUWATCH_SIM_EPOCH_MS="1764547200000")
    script = (f'{BIN} status --json > {out}/status.json && {BIN} status > {out}/status.txt && '
              f'cp -r "$GPUWATCH_HOST_ROOT" {out}/root')
    r = gw("sim", "run", "demo_mixed", "--", "sh", "-c", script, env=env)
    assert r.returncode == 0, r.stderr
    return json.loads((out / "status.json").read_text()), (out / "status.txt").read_text(), out / "root"


def read(root, path):
    return (root / path).read_text().strip()


def test_status_lists_every_vendor_in_order(frozen_node):
    doc, text, _ = frozen_node
    assert [g["vendor"] for g in doc["gpus"]] == VENDORS
    assert [g["index"] for g in doc["gpus"]] == list(range(8))
    assert all(g["state"] == "ok" for g in doc["gpus"])
    names = [g["name"] for g in doc["gpus"]]
    assert names[4] == names[5] == "AMD Instinct MI300X"
    assert "Max 1550" in names[6] and "Max 1550" in names[7]
    for index, vendor in enumerate(VENDORS):
        assert re.search(rf"^\[{index}\] {vendor}\s", text, re.M), text


def test_amd_fields_are_the_files_the_simulator_wrote(frozen_node):
    doc, _, root = frozen_node
    for gpu, card in ((doc["gpus"][4], "card0"), (doc["gpus"][5], "card1")):
        dev = Path("sys/class/drm") / card / "device"
        assert "DRIVER=amdgpu" in read(root, Path("sys/class/drm") / card / "device/uevent")
        assert gpu["name"] == read(root, dev / "product_name")
        assert gpu["uuid"] == "AMD-" + read(root, dev / "unique_id").lower()
        assert gpu["utilization_gpu_ratio"] == pytest.approx(int(read(root, dev / "gpu_busy_percent")) / 100)
        assert gpu["utilization_gpu_ratio"] > 0.5  # training
        assert gpu["memory_used_bytes"] == int(read(root, dev / "mem_info_vram_used"))
        assert gpu["memory_total_bytes"] == int(read(root, dev / "mem_info_vram_total"))
        hwmon = next((root / dev / "hwmon").iterdir()).relative_to(root)
        assert gpu["temperature_gpu_c"] == round(int(read(root, hwmon / "temp1_input")) / 1000) or \
            gpu["temperature_gpu_c"] == int(read(root, hwmon / "temp1_input")) // 1000
        power_file = hwmon / "power1_average" if (root / hwmon / "power1_average").exists() else hwmon / "power1_input"
        assert gpu["power_draw_w"] == pytest.approx(int(read(root, power_file)) / 1e6)
        assert gpu["enforced_power_limit_w"] == pytest.approx(int(read(root, hwmon / "power1_cap")) / 1e6)
        current = [line for line in read(root, dev / "pp_dpm_sclk").splitlines() if line.endswith("*")]
        assert current and gpu["clocks_current_sm_hz"] == int(re.search(r"(\d+)Mhz", current[0]).group(1)) * 1_000_000
        # What amdgpu does not give is absent, never 0.
        for key in ("fan_speed_ratio", "pstate", "utilization_encoder_ratio", "memory_reserved_bytes"):
            assert gpu[key] is None, key
        processes = gpu["processes"]
        assert len(processes) == 1 and processes[0]["used_memory_bytes"] == 163840 * MIB


def test_intel_fields_from_files_and_level_zero(frozen_node):
    doc, _, root = frozen_node
    for gpu, card in ((doc["gpus"][6], "card2"), (doc["gpus"][7], "card3")):
        assert "DRIVER=i915" in read(root, Path("sys/class/drm") / card / "device/uevent")
        hwmon = next((root / "sys/class/drm" / card / "device/hwmon").iterdir()).relative_to(root)
        assert gpu["enforced_power_limit_w"] == pytest.approx(int(read(root, hwmon / "power1_max")) / 1e6)
        assert gpu["clocks_current_sm_hz"] == int(read(root, Path("sys/class/drm") / card / "gt_act_freq_mhz")) * 1_000_000
        # Level Zero (the simulated driver behind Debian's loader) gives what i915's files lack.
        assert gpu["memory_total_bytes"] == 131072 * MIB
        assert gpu["memory_used_bytes"] >= 98304 * MIB
        assert gpu["temperature_gpu_c"] is not None and 20 < gpu["temperature_gpu_c"] < 100
        assert gpu["uuid"].startswith("GPU-")
        for key in ("fan_speed_ratio", "pstate", "pcie_rx_throughput_bytes_per_s", "utilization_encoder_ratio"):
            assert gpu[key] is None, key


def test_metrics_carry_the_vendor_and_pass_promtool(tmp_path):
    with Server(sim_env("demo_mixed"), "--no-record", "--metrics-compat", "dcgm,nvidia-smi") as server:
        server.wait_ready()
        status, _, body = server.get("/metrics")
    assert status == 200
    assert re.search(r'gpuwatch_up\{[^}]*gpu="4"[^}]*vendor="amd"', body) or \
        re.search(r'gpuwatch_up\{[^}]*vendor="amd"[^}]*gpu="4"', body), body[:2000]
    for gpu, vendor in enumerate(VENDORS):
        assert re.search(rf'gpuwatch_\w+\{{[^}}]*\bgpu="{gpu}"[^}}]*vendor="{vendor}"', body), (gpu, vendor)
    # dcgm-exporter's and nvidia_gpu_exporter's names stay NVIDIA's.
    dcgm_gpus = set(re.findall(r'^DCGM_FI_DEV_GPU_TEMP\{[^}]*gpu="(\d+)"', body, re.M))
    assert dcgm_gpus == {"0", "1", "2", "3"}
    smi_gpus = set(re.findall(r'^nvidia_smi_temperature_gpu\{[^}]*uuid="([^"]+)"', body, re.M))
    assert len(smi_gpus) == 4 and not any(u.startswith(("AMD-", "INTEL-")) for u in smi_gpus), smi_gpus
    assert not re.search(r'^nvidia_smi_\w+\{[^}]*(MI300X|Max 1550)', body, re.M)
    if PROMTOOL is None:
        pytest.skip("promtool missing (Debian package prometheus)")
    check = subprocess.run([PROMTOOL, "check", "metrics"], input=body, capture_output=True, text=True, timeout=30)
    # Only naming-lint warnings about the foreign exporters' own names (as test_serve_nvidia_smi_compat.py).
    problems = [line for line in (check.stdout + check.stderr).splitlines()
                if line.strip() and not line.startswith("DCGM_FI_")
                and not re.match(r"nvidia_smi_ecc_errors_\w+_total non-counter metrics should not have", line)]
    assert not problems, check.stdout + check.stderr


def test_dashboard_shows_all_eight(tmp_path):
    with Server(sim_env("demo_mixed"), "--no-record") as server:
        server.wait_ready()
        result = run_check(server, "live", artifact_dir(tmp_path) / "dashboard-mixed.png", tmp_path)
    assert result["gpus"] == 8
    names = [c["name"] for c in result["charts"]]
    assert sum("MI300X" in n for n in names) == 2 and sum("Max 1550" in n for n in names) == 2, names
    assert sum("H100" in n for n in names) == 4, names
    assert result["consoleErrors"] == [] and result["pageErrors"] == []


def test_top_shows_all_eight(tmp_path):
    with Top(tmp_path, [], width=160, height=50, simulate="demo_mixed") as top:
        screen = top.wait_for(lambda s: "MI300X" in s and "Max 1550" in s, seconds=20)
    assert screen.count("H100") >= 4, screen


def test_record_then_report(tmp_path):
    db = tmp_path / "mixed.db"
    r = gw("sim", "record", "demo_mixed", "--duration", "2m", "--db", str(db))
    assert r.returncode == 0, r.stderr
    report = gw("report", "--db", str(db), "--since", "3m", "--format", "json")
    assert report.returncode in (0, 1), report.stderr
    doc = json.loads(report.stdout)
    text = json.dumps(doc)
    assert text.count("MI300X") >= 2 and text.count("Max 1550") >= 2
    html = tmp_path / "report.html"
    r = gw("report", "--db", str(db), "--since", "3m", "-o", str(html))
    assert r.returncode in (0, 1), r.stderr
    page = html.read_text()
    assert "MI300X" in page and "Max 1550" in page and "H100" in page
