"""serve's host signals (issue 25): with GPUWATCH_HOST_ROOT pointed at a fake /proc and /sys that
the test keeps changing, /metrics carries gpuwatch_host_* gauges whose values follow from the
files (CPU busy and iowait shares, PSI, memory, swap, per disk / interface / InfiniBand port
rates, the GPU process's tree), /api/v1/host gives the latest sample and the columnar series,
/api/v1/snapshot carries "host", promtool accepts the exposition, and --no-host gives none of it;
and the simulated host of host_cpu_bound comes through serve.
The simulated driver is loaded with --nvml-library (--simulate would set its own host root);
GPUWATCH_SIM_PIDS gives GPU 0 the process 4242, whose tree (a worker, 4243) is in the fake tree."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
LISTENING = re.compile(r"listening on (https?://[^/\s]+)/metrics")
SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$")


class FakeHost:
    """A host tree whose counters move by fixed steps every 0.1 s (each file replaced at once), so
    any two readings give fixed proportions: per step 25 of 100 CPU ticks busy and 5 in iowait,
    fake0 receives 1000 and sends 3000 bytes, sda reads 100 and writes 200 sectors, 10 pages
    swap in and 30 out, and the GPU process's tree uses 5 ticks."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.step = 0
        self.memory_available_kb = 250
        self.stop = threading.Event()
        for folder in ["proc/net", "proc/pressure", "sys/block/sda", "proc/4242/task/4242", "proc/4243/task/4243",
                       "sys/class/infiniband/mlx5_0/ports/1/counters"]:
            (self.root / folder).mkdir(parents=True, exist_ok=True)
        self.write("sys/block/sda/size", "1000\n")
        self.write("proc/pressure/cpu", "some avg10=5.00 avg60=1.00 avg300=0.50 total=100\n")
        self.write("proc/pressure/memory", "some avg10=3.00 avg60=1.00 avg300=0.50 total=100\n"
                                          "full avg10=1.50 avg60=1.00 avg300=0.50 total=50\n")
        self.write("proc/pressure/io", "some avg10=2.00 avg60=1.00 avg300=0.50 total=100\n"
                                      "full avg10=1.00 avg60=1.00 avg300=0.50 total=50\n")
        self.write("proc/4242/task/4242/children", "4243 ")
        self.write("proc/4243/task/4243/children", "")
        self.advance()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def write(self, relative, text):
        path = self.root / relative
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        os.replace(tmp, path)

    def advance(self):
        n = self.step = self.step + 1
        cpu = f"{1000 + 20 * n} 0 {500 + 5 * n} {9000 + 70 * n} {100 + 5 * n} 0 0 0 0 0"
        self.write("proc/stat", f"cpu  {cpu}\ncpu0 {cpu}\n")
        self.write("proc/meminfo", f"MemTotal: 1000 kB\nMemAvailable: {self.memory_available_kb} kB\n"
                                   "SwapTotal: 2000 kB\nSwapFree: 1500 kB\n")
        self.write("proc/vmstat", f"pswpin {10 * n}\npswpout {30 * n}\n")
        self.write("proc/diskstats", f"   8       0 sda 10 0 {100 * n} 0 10 0 {200 * n} 0 0 {10 * n} 0 0 0 0 0 0 0\n"
                                     f"   8       1 sda1 10 0 {100 * n} 0 10 0 {200 * n} 0 0 {10 * n} 0 0 0 0 0 0 0\n")
        self.write("proc/net/dev", "Inter-|   Receive\n face |bytes\n"
                                   f"    lo: {n * 7} 1 0 0 0 0 0 0 {n * 7} 1 0 0 0 0 0 0\n"
                                   f" fake0: {1000 * n} {n} 0 0 0 0 0 0 {3000 * n} {n} 0 0 0 0 0 0\n")
        counters = "sys/class/infiniband/mlx5_0/ports/1/counters/"
        self.write(counters + "port_rcv_data", f"{250 * n}\n")
        self.write(counters + "port_xmit_data", f"{500 * n}\n")
        self.write(counters + "port_rcv_packets", f"{n}\n")
        self.write(counters + "port_xmit_packets", f"{2 * n}\n")
        self.write("proc/4242/stat", f"4242 (python) S 1 1 1 0 -1 0 0 0 0 0 {100 + 4 * n} {n} 0 0 20 0 4 0 123 0 0\n")
        self.write("proc/4243/stat", "4243 (pt_data_worker) S 4242 1 1 0 -1 0 0 0 0 0 300 10 0 0 20 0 1 0 130 0 0\n")

    def run(self):
        deadline = time.monotonic() + 120  # bounded, whatever happens to the test
        while not self.stop.wait(0.1) and time.monotonic() < deadline:
            self.advance()


@pytest.fixture
def fake_host():
    with tempfile.TemporaryDirectory(prefix="gpuwatch-fake-host-") as tmp:
        host = FakeHost(tmp)
        yield host
        host.stop.set()
        host.thread.join(timeout=5)


class Serve:
    def __init__(self, root, *extra):
        self.state = tempfile.mkdtemp(prefix="gpuwatch-test-state-")
        env = dict(os.environ, GPUWATCH_SIM_SCENARIO="training", GPUWATCH_SIM_PIDS="0:0=4242",
                   GPUWATCH_HOST_ROOT=str(root), XDG_STATE_HOME=self.state)
        env.pop("STATE_DIRECTORY", None)
        self.proc = subprocess.Popen([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "127.0.0.1:0", "--no-record",
                                      "--no-alerts", "--interval", "250ms", *extra],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        match = LISTENING.search(line)
        if not match:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=10)
            pytest.fail(f"serve did not start: {line!r} {out!r} {err!r}")
        self.url = match.group(1)

    def get(self, path):
        with urllib.request.urlopen(self.url + path, timeout=5) as r:
            assert r.status == 200
            return r.read().decode()

    def json(self, path):
        return json.loads(self.get(path))

    def until(self, what, predicate, timeout=15.0):
        """The first answer of WHAT() that PREDICATE accepts, polled for at most TIMEOUT seconds."""
        deadline = time.monotonic() + timeout
        while True:
            answer = what()
            if predicate(answer):
                return answer
            assert time.monotonic() < deadline, f"never: {answer!r}"[:4000]
            time.sleep(0.1)

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        shutil.rmtree(self.state, ignore_errors=True)


def samples(text):
    """{(name, labels): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if match:
            out[(match.group(1), match.group(2) or "")] = float(match.group(3))
    return out


def metrics(serve):
    return samples(serve.get("/metrics"))


def moving(m):
    """A scrape whose rates cover at least one step of every counter."""
    return (m.get(("gpuwatch_host_net_interface_rx_bytes_per_second", '{interface="fake0"}'), 0) > 0
            and m.get(("gpuwatch_host_disk_device_read_bytes_per_second", '{device="sda"}'), 0) > 0
            and m.get(("gpuwatch_host_swap_in_pages_per_second", ""), 0) > 0
            and ("gpuwatch_host_cpu_busy_ratio", "") in m)


def test_metrics_follow_the_fake_host(fake_host):
    serve = Serve(fake_host.root, "--per-process-metrics")
    try:
        m = serve.until(lambda: metrics(serve),
                        lambda m: moving(m) and m.get(("gpuwatch_host_process_tree_cpu_cores", '{pid="4242"}'), 0) > 0)
        near = lambda name, expected, labels="": abs(m[(name, labels)] - expected) < 1e-9  # noqa: E731
        assert near("gpuwatch_host_cpu_busy_ratio", 0.25), m  # 25 of every 100 ticks
        assert near("gpuwatch_host_cpu_iowait_ratio", 0.05)
        assert near("gpuwatch_host_cpu_steal_ratio", 0.0)
        assert near("gpuwatch_host_cpu_pressure_some_ratio", 0.05)
        assert near("gpuwatch_host_memory_pressure_some_ratio", 0.03)
        assert near("gpuwatch_host_memory_pressure_full_ratio", 0.015)
        assert near("gpuwatch_host_io_pressure_full_ratio", 0.01)
        assert near("gpuwatch_host_memory_total_bytes", 1024000)
        assert near("gpuwatch_host_memory_available_bytes", 256000)
        assert near("gpuwatch_host_memory_available_ratio", 0.25)
        assert near("gpuwatch_host_swap_used_bytes", 512000)
        assert 0.1 < m[("gpuwatch_host_interval_seconds", "")] < 2
        # Rates over one window of the same file keep the file's proportions.
        rx = m[("gpuwatch_host_net_interface_rx_bytes_per_second", '{interface="fake0"}')]
        tx = m[("gpuwatch_host_net_interface_tx_bytes_per_second", '{interface="fake0"}')]
        assert abs(tx - 3 * rx) < 1e-6 * tx, (rx, tx)
        assert abs(m[("gpuwatch_host_net_rx_bytes_per_second", "")] - rx) < 1e-6 * rx  # lo left out of the sum
        assert not any('interface="lo"' in labels for _, labels in m)
        read = m[("gpuwatch_host_disk_device_read_bytes_per_second", '{device="sda"}')]
        written = m[("gpuwatch_host_disk_device_write_bytes_per_second", '{device="sda"}')]
        assert abs(written - 2 * read) < 1e-6 * written, (read, written)
        assert not any('device="sda1"' in labels for _, labels in m)  # a partition is not a disk
        assert abs(m[("gpuwatch_host_disk_read_bytes_per_second", "")] - read) < 1e-6 * read
        swap_in, swap_out = m[("gpuwatch_host_swap_in_pages_per_second", "")], m[("gpuwatch_host_swap_out_pages_per_second", "")]
        assert abs(swap_out - 3 * swap_in) < 1e-6 * swap_out
        assert 0 <= m[("gpuwatch_host_disk_device_busy_ratio", '{device="sda"}')] <= 1
        port = '{device="mlx5_0",port="1"}'
        assert m[("gpuwatch_host_ib_port_rx_bytes_per_second", port)] >= 0
        assert m[("gpuwatch_host_ib_port_tx_packets_per_second", port)] >= 0
        assert ("gpuwatch_host_ib_rx_bytes_per_second", "") in m
        assert m[("gpuwatch_host_process_tree_processes", '{pid="4242"}')] == 2  # the process and its worker
        assert m[("gpuwatch_host_process_tree_cpu_cores", '{pid="4242"}')] < 2  # 5 ticks per 0.1 s: about 0.5

        # The files change between scrapes: the gauges follow.
        fake_host.memory_available_kb = 500
        serve.until(lambda: metrics(serve),
                    lambda m: abs(m.get(("gpuwatch_host_memory_available_ratio", ""), 0) - 0.5) < 1e-9)

        promtool = shutil.which("promtool")
        if promtool:
            out = subprocess.run([promtool, "check", "metrics"], input=serve.get("/metrics"), capture_output=True,
                                 text=True, timeout=30)
            assert out.returncode == 0, out.stdout + out.stderr
    finally:
        serve.close()


def test_api_host_gives_the_latest_sample_and_its_series(fake_host):
    serve = Serve(fake_host.root)
    try:
        answer = serve.until(lambda: serve.json("/api/v1/host"),
                             lambda a: a["latest"] is not None and a["latest"]["net_rx_bytes_per_s"]
                             and len(a["series"]["t"]) >= 4)
        latest = answer["latest"]
        assert latest["cpu_busy_percent"] == 25.0  # status --json's keys and units
        assert latest["memory_available_percent"] == 25.0
        assert latest["memory_total_bytes"] == 1024000
        assert latest["cpu_pressure_some_percent"] == 5.0
        assert [d["name"] for d in latest["disks"]] == ["sda"]
        assert [i["name"] for i in latest["interfaces"]] == ["fake0"]
        assert [(p["device"], p["port"]) for p in latest["ib_ports"]] == [("mlx5_0", "1")]
        trees = {t["pid"]: t for t in latest["process_trees"]}
        assert trees[4242]["processes"] == 2
        series = answer["series"]
        t = series["t"]
        assert t == sorted(t) and abs(t[-1] - time.time()) < 10
        for key in ["interval_s", "cpu_busy_percent", "memory_available_percent", "net_rx_bytes_per_s",
                    "ib_tx_bytes_per_s", "cpu_steal_percent"]:
            assert len(series[key]) == len(t), key
        assert series["cpu_busy_percent"][0] is None  # the first reading has no rates: null, never 0
        assert series["interval_s"][0] is None
        assert all(v == 25.0 for v in series["memory_available_percent"])
        assert all(v is None or v == 25.0 for v in series["cpu_busy_percent"])
        assert series["memory_total_bytes"][-1] == 1024000 and isinstance(series["memory_total_bytes"][-1], int)
        # ?seconds= bounds the window, as /api/v1/history's does.
        recent = serve.json("/api/v1/host?seconds=0.6")["series"]
        assert 1 <= len(recent["t"]) < len(serve.json("/api/v1/host")["series"]["t"])
        assert all(x >= time.time() - 5 for x in recent["t"])
        with pytest.raises(urllib.error.HTTPError) as bad:
            serve.get("/api/v1/host?seconds=-1")
        assert bad.value.code == 400
        # The snapshot carries the same object.
        snapshot = serve.json("/api/v1/snapshot")
        assert snapshot["host"]["memory_available_percent"] == 25.0
        assert snapshot["host"]["memory_total_bytes"] == 1024000
    finally:
        serve.close()


def test_no_host_gives_no_host_series(fake_host):
    serve = Serve(fake_host.root, "--no-host")
    try:
        serve.until(lambda: serve.get("/metrics"), lambda text: 'gpuwatch_up{gpu="0"' in text)
        time.sleep(0.6)  # a few host ticks, had there been a host thread
        text = serve.get("/metrics")
        assert "gpuwatch_host_" not in text
        answer = serve.json("/api/v1/host")
        assert answer["latest"] is None and answer["series"]["t"] == []
        assert serve.json("/api/v1/snapshot")["host"] is None
    finally:
        serve.close()


def test_simulated_cpu_bound_host_is_served():
    """The simulated host of host_cpu_bound (sim/scenarios/host_cpu_bound.yaml: CPU 97 %, CPU PSI
    45 %, the trainer and 7 DataLoader workers at 0.97 cores each, 60 MB/s read from nvme0n1)
    through serve, as `sim run host_cpu_bound -- gpuwatch serve` would serve it."""
    state = tempfile.mkdtemp(prefix="gpuwatch-test-state-")
    env = dict(os.environ, XDG_STATE_HOME=state)
    env.pop("GPUWATCH_HOST_ROOT", None)
    proc = subprocess.Popen([BIN, "--simulate", "host_cpu_bound", "serve", "--listen", "127.0.0.1:0", "--no-record",
                             "--no-alerts", "--per-process-metrics"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        match = LISTENING.search(proc.stdout.readline())
        assert match, proc.stderr.read() if proc.poll() is not None else "no address"
        url = match.group(1)

        def scrape():
            with urllib.request.urlopen(url + "/metrics", timeout=5) as r:
                return samples(r.read().decode())

        deadline = time.monotonic() + 20
        while True:
            m = scrape()
            trees = [v for (name, _), v in m.items() if name == "gpuwatch_host_process_tree_cpu_cores"]
            if trees and ("gpuwatch_host_cpu_busy_ratio", "") in m:
                break
            assert time.monotonic() < deadline, sorted(k for k in m if k[0].startswith("gpuwatch_host"))
            time.sleep(0.2)
        assert abs(m[("gpuwatch_host_cpu_busy_ratio", "")] - 0.97) < 0.02
        assert abs(m[("gpuwatch_host_cpu_pressure_some_ratio", "")] - 0.45) < 1e-9
        assert abs(m[("gpuwatch_host_disk_device_read_bytes_per_second", '{device="nvme0n1"}')] - 60e6) < 3e6
        assert [v for (name, _), v in m.items() if name == "gpuwatch_host_process_tree_processes"] == [8]
        assert abs(trees[0] - (1.0 + 7 * 0.97)) < 0.5  # the trainer and its 7 workers
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        shutil.rmtree(state, ignore_errors=True)
