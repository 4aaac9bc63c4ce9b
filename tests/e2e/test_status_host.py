"""The host line of `gpuwatch status` (issue 25): a real status on this machine shows the host's
CPU, memory, disks and network from the real /proc, in text and in JSON, and --no-host leaves it
out. GPUWATCH_HOST_ROOT pointed at a fake tree is read instead of /proc (without --simulate,
which sets its own host root: the scenario comes from GPUWATCH_SIM_SCENARIO here)."""
import json
import os
import pathlib
import re
import subprocess
import tempfile

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")


def gpuwatch(args, env_extra=None, timeout=60):
    env = dict(os.environ)
    env.pop("GPUWATCH_HOST_ROOT", None)
    env["NO_COLOR"] = "1"
    env.update(env_extra or {})
    return subprocess.run([BIN] + args, env=env, capture_output=True, text=True, timeout=timeout)


def host_line(text):
    lines = text.splitlines()
    assert len(lines) >= 2, text
    return lines[1]


def test_simulated_status_shows_the_real_hosts_cpu():
    # One-shot: one reading after the GPUs (bench/speed_guard.sh keeps one-shot status from waiting
    # for a window): PSI and memory, no rates; the CPU share is measured with an interval.
    out = gpuwatch(["--simulate", "demo", "status"])
    assert out.returncode == 0, out.stderr
    line = host_line(out.stdout)
    assert line.startswith("host  CPU "), line
    if os.path.exists("/proc/pressure/cpu"):
        assert re.match(r"host  CPU N/A \(PSI \d+ %\)", line), line
    assert " | mem " in line and "% avail" in line, line
    assert "[0]" in out.stdout.splitlines()[2]  # the GPUs follow
    out = gpuwatch(["--simulate", "demo", "status", "-i", "0.2", "--count", "2"])
    assert out.returncode == 0, out.stderr
    lines = [l for l in out.stdout.splitlines() if l.startswith("host  CPU ")]
    match = re.search(r"host  CPU (\d+) % \(iowait \d+ %", lines[-1])
    assert match, lines
    assert 0 <= int(match.group(1)) <= 100
    assert " | net RX " in lines[-1], lines[-1]  # this machine has an interface besides lo


def test_simulated_status_json_has_the_host_object():
    out = gpuwatch(["--simulate", "demo", "status", "--json"])
    assert out.returncode == 0, out.stderr
    host = json.loads(out.stdout)["host"]
    # A one-shot status waits for nothing (bench/speed_guard.sh): its rates cover the few ms the GPUs
    # took to answer, so CPU time (10 ms ticks per core) may not have moved at all: then absent, never 0.
    assert host["cpu_busy_percent"] is None and host["interval_s"] is None  # one reading: no rates, never 0
    # With an interval the share is measured.
    out = gpuwatch(["--simulate", "demo", "status", "--jsonl", "-i", "0.2", "--count", "2"])
    assert out.returncode == 0, out.stderr
    second = json.loads(out.stdout.splitlines()[1])["host"]
    assert 0 <= second["cpu_busy_percent"] <= 100 and second["interval_s"] >= 0.15
    assert 0 < host["memory_available_percent"] <= 100
    assert host["memory_total_bytes"] > 0
    assert len(host["cores"]) == os.cpu_count()
    assert all(c["busy_percent"] is None or 0 <= c["busy_percent"] <= 100 for c in host["cores"])
    assert "lo" not in [i["name"] for i in host["interfaces"]]
    if not os.path.exists("/sys/class/infiniband"):
        assert host["ib_rx_bytes_per_s"] is None and host["ib_ports"] == []  # absent, never 0
    if not os.path.exists("/proc/pressure/cpu"):
        assert host["cpu_pressure_some_percent"] is None


def test_no_host_leaves_the_line_and_the_object_out():
    text = gpuwatch(["--simulate", "demo", "status", "--no-host"])
    assert text.returncode == 0, text.stderr
    assert not any(line.startswith("host ") for line in text.stdout.splitlines())
    js = gpuwatch(["--simulate", "demo", "status", "--json", "--no-host"])
    assert "host" not in json.loads(js.stdout)


def test_a_fake_host_root_is_read_instead_of_proc():
    with tempfile.TemporaryDirectory() as tmp:
        root = pathlib.Path(tmp)
        (root / "proc/net").mkdir(parents=True)
        # The counters do not move between the two readings: 0 % busy, 0 B/s, whatever this machine does.
        (root / "proc/stat").write_text("cpu  100 0 0 900 0 0 0 0 0 0\ncpu0 100 0 0 900 0 0 0 0 0 0\n")
        (root / "proc/meminfo").write_text("MemTotal: 1000 kB\nMemAvailable: 250 kB\nSwapTotal: 0 kB\nSwapFree: 0 kB\n")
        (root / "proc/net/dev").write_text("h\nh\n fake0: 1 0 0 0 0 0 0 0 2 0 0 0 0 0 0 0\n")
        # Two frames: the second has rates over the counters of the fake tree.
        out = gpuwatch(["--nvml-library", SIM_LIB, "status", "--jsonl", "-i", "0.1", "--count", "2"],
                       {"GPUWATCH_SIM_SCENARIO": "idle", "GPUWATCH_HOST_ROOT": str(root)})
        assert out.returncode == 0, out.stderr
        host = json.loads(out.stdout.splitlines()[-1])["host"]
        assert host["cpu_busy_percent"] is None  # no tick passed in the fake tree: no share to give
        assert host["memory_available_percent"] == 25.0
        assert [i["name"] for i in host["interfaces"]] == ["fake0"]
        assert host["net_rx_bytes_per_s"] == 0.0
        assert host["cpu_pressure_some_percent"] is None  # the tree has no /proc/pressure: absent
        assert host["disks"] == [] and host["disk_read_bytes_per_s"] is None
        text = gpuwatch(["--nvml-library", SIM_LIB, "status"],
                        {"GPUWATCH_SIM_SCENARIO": "idle", "GPUWATCH_HOST_ROOT": str(root)})
        assert host_line(text.stdout) == "host  mem 25 % avail", text.stdout  # one reading: no rates
