"""gpuwatch status (the default command) on the simulated driver: text, JSON,
JSONL streaming, colours, processes from /proc and exit codes (issue 3)."""
import json
import os
import pathlib
import pty
import select
import subprocess
import sys
import tempfile
import time

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
MIB = 1024 * 1024

# Two H100s: GPU 0 trains with one process (a real `sleep` whose PID the scenario
# reads from H3_E2E_PID), GPU 1 has fallen off the bus.
PARTIAL_SCENARIO = """\
name: status_e2e
description: Two H100 SXM 80GB, the second one lost; one process on the first.
driver: {version: "550.54.15", cuda_version: "12.4"}
gpus:
  - model: H100 SXM 80GB
    phases:
      - {kind: training, duration: 1h}
    processes:
      - {command: "sleep 60", user: alice, memory: 40960, pid_env: H3_E2E_PID}
  - model: H100 SXM 80GB
    phases:
      - {kind: gpu_lost, duration: 1h}
"""


def env_for(scenario, **extra):
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env["GPUWATCH_SIM_SCENARIO"] = scenario
    env.update(extra)
    return env


def gpuwatch(args, scenario="idle", timeout=30, **extra):
    return subprocess.run([BIN, "--nvml-library", SIM_LIB] + args, env=env_for(scenario, **extra),
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture
def busy_node():
    """(scenario path, environment extras) of the two-GPU node with a real process."""
    sleeper = subprocess.Popen(["sleep", "60"])
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "status_e2e.yaml"
        path.write_text(PARTIAL_SCENARIO)
        yield str(path), {"H3_E2E_PID": str(sleeper.pid)}, sleeper.pid
    sleeper.kill()
    sleeper.wait()


def test_default_command_is_status_and_shows_the_gpu():
    for args in ([], ["status"]):
        r = gpuwatch(args)
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        assert "driver" in lines[0]
        assert "[simulated: idle]" in lines[0]
        assert lines[1].startswith("host  CPU ")  # the host line (issue 25: tests/e2e/test_status_host.py)
        assert lines[2].startswith("[0] NVIDIA H100 80GB HBM3 |")
        assert "/ 81559 MiB" in lines[2]
        assert " W" in lines[2] and "°C" in lines[2]
        assert "\x1b" not in r.stdout  # not a terminal: no colours


def test_json_uses_field_table_keys_base_units_and_null():
    r = gpuwatch(["status", "--json"])
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["device_count"] == 1
    assert doc["simulated_scenario"] == "idle"
    gpu = doc["gpus"][0]
    assert gpu["name"] == "NVIDIA H100 80GB HBM3"
    assert gpu["uuid"].startswith("GPU-")
    assert gpu["memory_total_bytes"] == 81559 * MIB
    assert gpu["enforced_power_limit_w"] == pytest.approx(700)
    assert 20 <= gpu["temperature_gpu_c"] <= 60
    assert 0 <= gpu["utilization_gpu_ratio"] <= 1
    assert 40 <= gpu["power_draw_w"] <= 120  # idle H100
    assert gpu["fan_speed_ratio"] is None     # an SXM H100 has no fan: null, never 0
    assert gpu["state"] == "ok" and gpu["error"] is None
    assert gpu["processes"] == []
    for key, value in gpu.items():
        assert not isinstance(value, str) or key in ("name", "uuid", "pci_bus_id", "state", "vendor"), key


def test_jsonl_streams_one_object_per_sample(busy_node):
    scenario, extra, _ = busy_node
    r = gpuwatch(["status", "--jsonl", "-i", "0.2", "--count", "3"], scenario, **extra)
    assert r.returncode == 5, r.stderr  # GPU 1 is lost: partial
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    docs = [json.loads(line) for line in lines]
    stamps = [d["timestamp_s"] for d in docs]
    assert stamps == sorted(stamps) and stamps[2] - stamps[0] >= 0.3
    assert all(len(d["gpus"]) == 2 for d in docs)


def test_lost_gpu_shows_its_error_and_others_normally(busy_node):
    scenario, extra, pid = busy_node
    r = gpuwatch(["status"], scenario, **extra)
    assert r.returncode == 5, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].find("driver 550.54.15") > 0
    assert "CUDA 12.4" in lines[0]  # nvmlSystemGetCudaDriverVersion_v2
    assert lines[2].startswith("[0] NVIDIA H100 80GB HBM3 |")  # after the host line (issue 25)
    gpu1 = [line for line in lines if line.startswith("[1]")]
    assert gpu1 and "ERROR" in gpu1[0] and "lost" in gpu1[0].lower()
    # the process line: PID, user and command line from /proc (a real process)
    proc = [line for line in lines if f" {pid} " in line]
    assert proc, r.stdout
    assert "sleep 60" in proc[0] and "40960 MiB" in proc[0]

    doc = json.loads(gpuwatch(["status", "--json"], scenario, **extra).stdout)
    assert doc["driver_version"] == "550.54.15" and doc["cuda_driver_version"] == 12040
    lost = doc["gpus"][1]
    assert lost["state"] == "lost" and lost["error"]
    assert lost["temperature_gpu_c"] is None and lost["memory_total_bytes"] is None
    p = doc["gpus"][0]["processes"][0]
    assert p["pid"] == pid and p["command"] == "sleep" and p["command_line"] == "sleep 60"
    assert p["used_memory_bytes"] == 40960 * MIB
    assert p["user"] == __import__("pwd").getpwuid(os.getuid()).pw_name


def run_on_terminal(args, **extra):
    """Runs gpuwatch with stdout on a pseudo-terminal; returns what it wrote."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB] + args, env=env_for("idle", **extra),
                            stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    os.close(slave)
    out = b""
    deadline = time.time() + 20
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(master)
    return proc.returncode, out.decode("utf-8", "replace")


def test_colours_on_a_terminal_and_never_with_no_color():
    rc, out = run_on_terminal(["status"])
    assert rc == 0
    assert "\x1b[" in out
    rc, out = run_on_terminal(["--no-color", "status"])
    assert rc == 0 and "\x1b" not in out and "NVIDIA H100" in out
    rc, out = run_on_terminal(["status"], NO_COLOR="1")
    assert rc == 0 and "\x1b" not in out and "NVIDIA H100" in out


def test_interval_redraws_in_place_on_a_terminal():
    rc, out = run_on_terminal(["--no-color", "status", "-i", "0.2", "--count", "2"])
    assert rc == 0
    assert out.count("\x1b[H\x1b[2J") == 2
    assert out.count("[0] NVIDIA H100") == 2


def test_nvml_unavailable_exits_3_with_the_loaders_message():
    r = subprocess.run([BIN, "--nvml-library", "/nonexistent/libnvidia-ml.so.1", "status"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 3
    assert "/nonexistent/libnvidia-ml.so.1" in r.stderr
    assert r.stdout == ""


def test_bad_interval_is_a_usage_error():
    assert gpuwatch(["status", "-i", "-1"]).returncode == 2
    assert gpuwatch(["status", "--json", "--jsonl"]).returncode == 2


def test_no_gpu_exits_4():
    r = gpuwatch(["status"], "no_gpus")
    assert r.returncode == 4
    assert "no GPU" in r.stderr and r.stdout == ""
    r = gpuwatch(["status", "--json"], "no_gpus")
    assert r.returncode == 4
    assert json.loads(r.stdout)["gpus"] == []


def test_demo_node_shows_eight_gpus_with_processes():
    r = subprocess.run([BIN, "--simulate", "demo", "status", "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert len(doc["gpus"]) == 8
    assert all(g["memory_total_bytes"] == 81559 * MIB for g in doc["gpus"])
    # --simulate starts real stand-in processes: /proc gives their user and command line
    procs = [p for g in doc["gpus"] for p in g["processes"]]
    assert len(procs) >= 8
    assert all(p["user"] and p["command_line"] for p in procs)
    assert any(p["command_line"].startswith("python train.py") for p in procs)


def demo_in_thermal_phase(args, **extra):
    """gpuwatch on the demo node 230 s in: GPU 3 is thermally slowed at about 92 C."""
    env = dict(os.environ, GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000) - 230_000), **extra)
    env.pop("NO_COLOR", None)
    return subprocess.run([BIN, "--simulate", "demo"] + args, env=env, capture_output=True, text=True, timeout=60)


def display_width(line):
    return len(line)  # Python counts code points, as a terminal counts these (°, └, ▼) columns


def test_issue_9_compact_form_fits_eight_gpus_in_80_columns():
    r = demo_in_thermal_phase(["status"], COLUMNS="80")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 2 + 8 * 2 <= 24, r.stdout  # the header, the host line (issue 25), 2 per GPU
    assert all(display_width(line) <= 80 for line in lines), r.stdout
    gpu3 = [line for line in lines if line.startswith("[3] ")][0]
    assert "▼thermal" in gpu3 and "MHz" in gpu3, gpu3
    assert "fan" not in r.stdout  # SXM boards have no fan: nothing shown, never 0 %
    assert all("PCIe RX" in lines[i] for i in range(3, len(lines), 2))


def test_issue_9_wide_form_shows_clock_pcie_throttle_and_process_usage():
    r = demo_in_thermal_phase(["status"])  # piped, no COLUMNS: the wide form, nothing cut
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    gpu0 = [line for line in lines if line.startswith("[0] ")][0]
    assert gpu0.startswith("[0] NVIDIA H100 80GB HBM3 |")
    assert " | SM " in gpu0 and " / 1980 MHz" in gpu0 and "PCIe RX" in gpu0 and "throttled" not in gpu0
    gpu3 = [line for line in lines if line.startswith("[3] ")][0]
    assert gpu3.endswith("▼ throttled: thermal"), gpu3
    procs = [line for line in lines if line.lstrip().startswith("└")]
    assert procs and all(" GPU " in p and " CPU " in p and " RSS " in p for p in procs)
    assert "python train.py --config configs/llama-7b.yaml --nproc-per-node 8" in procs[0]  # uncut


def test_issue_9_json_adds_clock_throttle_pcie_and_process_usage():
    r = demo_in_thermal_phase(["status", "--json"])
    assert r.returncode == 0, r.stderr
    gpus = json.loads(r.stdout)["gpus"]
    assert gpus[0]["clocks_max_sm_hz"] == pytest.approx(1980e6)
    assert gpus[0]["clocks_current_sm_hz"] > 0
    assert gpus[3]["clocks_current_sm_hz"] < gpus[3]["clocks_max_sm_hz"]
    assert {"sw_thermal_slowdown", "hw_thermal_slowdown"} & set(gpus[3]["throttle_reasons"])
    assert gpus[0]["throttle_reasons"] == []
    assert gpus[0]["temperature_gpu_slowdown_c"] > gpus[0]["temperature_gpu_c"]
    assert gpus[0]["pcie_rx_throughput_bytes_per_s"] >= 0 and gpus[0]["pcie_tx_throughput_bytes_per_s"] >= 0
    assert all(g["fan_speed_ratio"] is None for g in gpus)
    p = gpus[0]["processes"][0]
    assert 0 < p["utilization_gpu_ratio"] <= 1
    assert p["host_memory_rss_bytes"] > 0
    # issue 26: a one-shot status gives the average since the process started, as ps, and says so
    assert p["host_cpu_ratio"] is not None and p["host_cpu_ratio"] >= 0
    assert p["host_cpu_basis"] == "lifetime"


def test_issue_9_fan_where_the_board_has_one():
    r = gpuwatch(["status"], "consumer_card", COLUMNS="80")
    assert r.returncode == 0, r.stderr
    assert "fan " in r.stdout.splitlines()[2], r.stdout
    doc = json.loads(gpuwatch(["status", "--json"], "consumer_card").stdout)
    assert 0 <= doc["gpus"][0]["fan_speed_ratio"] <= 1


def test_issue_9_terminal_width_picks_the_form():
    import fcntl
    import struct
    import termios

    def on_terminal(columns):
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        env = env_for("demo", COLUMNS="999")  # the terminal's own width wins over COLUMNS
        proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "--no-color", "status"], env=env, stdout=slave,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        os.close(slave)
        out = b""
        while True:
            ready, _, _ = select.select([master], [], [], 20)
            if not ready:
                break
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        proc.wait(timeout=10)
        os.close(master)
        return out.decode("utf-8", "replace").replace("\r\n", "\n").splitlines()

    narrow = on_terminal(80)
    assert len(narrow) == 18 and all(len(line) <= 80 for line in narrow), narrow  # with the host line (issue 25)
    wide = on_terminal(160)
    assert any(" | SM " in line for line in wide) and all(len(line) <= 160 for line in wide), wide
