"""gpuwatch serve (issue 4) on the simulated driver: /metrics carries the scenario's
values under the native gpuwatch_* names, promtool accepts it, absent values give no
series, a hung GPU call never delays a scrape and marks that GPU stale, a lost GPU does
not stop the others, a public bind without --insecure-allow-unauthenticated is refused,
and SIGINT/SIGTERM stop it cleanly."""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

BIN = os.environ["GPUWATCH_BIN"]
SIM_LIB = os.path.join(os.environ["GPUWATCH_SIM_DRIVER_DIR"], "libnvidia-ml.so.1")
MIB = 1024 * 1024
LISTENING = re.compile(r"listening on (https?://[^/\s]+)/metrics")


_STATE_DIRS = []
atexit.register(lambda: [shutil.rmtree(d, ignore_errors=True) for d in _STATE_DIRS])


def sim_env(scenario, seconds_in=0.0):
    """The simulated driver on SCENARIO, with scenario time SECONDS_IN at start. serve records
    into its default database unless told otherwise: each env gets its own empty
    XDG_STATE_HOME, so no test writes into the developer's ~/.local/state or shares a file."""
    state = tempfile.mkdtemp(prefix="gpuwatch-test-state-")
    _STATE_DIRS.append(state)
    env = dict(os.environ, GPUWATCH_SIM_SCENARIO=str(scenario), XDG_STATE_HOME=state,
               GPUWATCH_SIM_EPOCH_MS=str(int(time.time() * 1000 - seconds_in * 1000)))
    env.pop("STATE_DIRECTORY", None)
    return env


class Server:
    """`gpuwatch serve --listen 127.0.0.1:0 ...`; the bound address is read from stdout."""

    def __init__(self, env, *extra):
        # --simulate: the scenario's processes run as stand-ins (real pids, users).
        self.proc = subprocess.Popen([BIN, "--simulate", env["GPUWATCH_SIM_SCENARIO"], "serve",
                                      "--listen", "127.0.0.1:0", *extra],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()  # the first line says where it listens
        match = LISTENING.search(line)
        if not match:
            self.proc.kill()
            out, err = self.proc.communicate(timeout=10)
            pytest.fail(f"serve did not start: {line!r} {out!r} {err!r}")
        self.url = match.group(1)
        self.host, _, port = self.url.split("://", 1)[1].rpartition(":")
        self.port = int(port)

    def get(self, path, timeout=5.0):
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
                return r.status, r.headers.get("Content-Type"), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.headers.get("Content-Type"), e.read().decode()

    def get_json(self, path):
        status, content_type, body = self.get(path)
        assert status == 200, body
        assert content_type.startswith("application/json")
        return json.loads(body)

    def metrics(self):
        status, _, body = self.get("/metrics")
        assert status == 200
        return body

    def wait_ready(self, timeout=15.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.get("/readyz")[0] == 200:
                return
            time.sleep(0.05)
        pytest.fail("serve never became ready")

    def stop(self, sig=signal.SIGTERM, timeout=10):
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        try:
            out, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            out, err = self.proc.communicate()
            pytest.fail(f"serve did not stop within {timeout} s after {sig!r}: {err}")
        return self.proc.returncode, out, err

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.communicate()


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def parse(text):
    """[(name, {labels}, value)] of every sample line."""
    samples = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a sample line: {line!r}"
        labels = dict(LABEL.findall(m.group(2) or ""))
        samples.append((m.group(1), labels, float(m.group(3))))
    return samples


def value(samples, name, **labels):
    found = [v for n, l, v in samples if n == name and all(l.get(k) == str(x) for k, x in labels.items())]
    assert len(found) <= 1, f"{name} {labels}: several series {found}"
    return found[0] if found else None


def series(samples, name, **labels):
    return [(l, v) for n, l, v in samples if n == name and all(l.get(k) == str(x) for k, x in labels.items())]


def query(env, fields):
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "query", "--query-gpu=" + ",".join(fields),
                          "--format=csv,noheader,nounits"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return [[c.strip() for c in row.split(",")] for row in out.stdout.strip().splitlines()]


@pytest.fixture(scope="module")
def training():
    env = sim_env("training", seconds_in=120)  # past the 20 s idle phase
    with Server(env, "--interval", "200ms") as server:
        server.wait_ready()
        yield server, env
        rc, _, err = server.stop()
        assert rc == 0, err


def test_metrics_match_the_scenario(training):
    server, env = training
    status, content_type, body = server.get("/metrics")
    assert status == 200
    assert content_type.startswith("text/plain; version=0.0.4")
    samples = parse(body)
    rows = query(env, ["index", "uuid", "name", "pci.bus_id", "driver_version", "memory.total", "power.limit",
                       "clocks.max.sm", "fan.speed", "temperature.gpu", "utilization.gpu"])
    assert len(rows) == 2
    assert value(samples, "gpuwatch_gpus") == 2
    assert value(samples, "gpuwatch_collector_success") == 1
    for index, uuid, name, bus_id, driver, mem_total, power_limit, max_sm, fan, temp, util in rows:
        info = series(samples, "gpuwatch_gpu_info", gpu=index)
        assert len(info) == 1
        labels, one = info[0]
        assert one == 1
        assert labels["uuid"] == uuid and labels["name"] == name and labels["pci_bus_id"] == bus_id
        assert labels["driver_version"] == driver == "535.261.03"
        assert value(samples, "gpuwatch_up", gpu=index, uuid=uuid) == 1
        assert value(samples, "gpuwatch_memory_total_bytes", gpu=index, uuid=uuid) == int(mem_total) * MIB
        assert value(samples, "gpuwatch_power_limit_watts", gpu=index) == pytest.approx(float(power_limit))
        assert value(samples, "gpuwatch_clocks_max_sm_hertz", gpu=index) == int(max_sm) * 1_000_000
        # Dynamic values: the same scenario time, but maybe not the same sample.
        assert abs(value(samples, "gpuwatch_temperature_gpu_celsius", gpu=index) - int(temp)) <= 10
        util_ratio = value(samples, "gpuwatch_utilization_gpu_ratio", gpu=index)
        assert 0.5 < util_ratio <= 1.0 and abs(util_ratio - int(util) / 100) <= 0.3
        used = value(samples, "gpuwatch_memory_used_bytes", gpu=index)
        assert 0 < used <= int(mem_total) * MIB
        # Absent is absent: an A100 SXM has no fan reading, so there is no fan series (never 0).
        assert fan == "[N/A]"
        assert value(samples, "gpuwatch_fan_speed_ratio", gpu=index) is None
        assert value(samples, "gpuwatch_sample_age_seconds", gpu=index) < 2
        assert value(samples, "gpuwatch_processes", gpu=index) == 1  # the scenario's training job
    build = series(samples, "gpuwatch_build_info")
    assert len(build) == 1 and build[0][0]["version"]


def test_counters_grow(training):
    server, _ = training
    first = value(parse(server.metrics()), "gpuwatch_energy_joules_total", gpu=0)
    time.sleep(1.2)
    second = value(parse(server.metrics()), "gpuwatch_energy_joules_total", gpu=0)
    assert first is not None and second > first


def test_promtool_accepts_the_metrics(training):
    server, _ = training
    promtool = shutil.which("promtool")
    if promtool is None:
        pytest.skip("promtool missing: scripts/install-deps installs it (Debian package prometheus)")
    out = subprocess.run([promtool, "check", "metrics"], input=server.metrics(), capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, out.stdout + out.stderr


def test_openmetrics_when_the_scraper_asks(training):
    server, _ = training
    request = urllib.request.Request(server.url + "/metrics", headers={
        "Accept": "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"})
    with urllib.request.urlopen(request, timeout=5) as r:
        content_type, body = r.headers.get("Content-Type"), r.read().decode()
    assert content_type.startswith("application/openmetrics-text; version=1.0.0")
    assert body.endswith("\n# EOF\n")
    assert "# TYPE gpuwatch_energy_joules counter\n" in body
    assert "\ngpuwatch_energy_joules_total{" in body
    assert "# TYPE gpuwatch_energy_joules_total" not in body


def test_health_endpoints(training):
    server, _ = training
    assert server.get("/healthz")[0] == 200
    assert server.get("/readyz")[0] == 200
    assert server.get("/no-such-page")[0] == 404


def test_per_process_series_only_when_asked(training):
    server, _ = training
    assert "gpuwatch_process_" not in server.metrics()
    with Server(sim_env("training", seconds_in=120), "--per-process-metrics", "--interval", "200ms") as proc_server:
        proc_server.wait_ready()
        samples = parse(proc_server.metrics())
        memory = series(samples, "gpuwatch_process_memory_used_bytes", gpu=0)
        assert memory, "no per-process series"
        labels, used = memory[0]
        assert int(labels["pid"]) > 0 and labels["process_name"]
        assert "user" in labels and labels["type"] == "C"
        assert used == 61440 * MIB  # the scenario's process memory
        rc, _, err = proc_server.stop(signal.SIGINT)
        assert rc == 0, err


HUNG_SCENARIO = """\
name: serve_hung_gpu
description: Two H100s; from 3 s every temperature call on GPU 1 hangs for 30 s.
gpus:
  - model: H100 SXM 80GB
    count: 2
    phases:
      - {kind: training, duration: 1h}
faults:
  - {function: nvmlDeviceGetTemperature, gpu: 1, from: 3s, hang_s: 30}
"""


def test_hung_gpu_never_delays_a_scrape_and_is_marked_stale(tmp_path):
    scenario = tmp_path / "serve_hung_gpu.yaml"
    scenario.write_text(HUNG_SCENARIO)
    with Server(sim_env(scenario), "--interval", "200ms", "--stale-after", "1s") as server:
        server.wait_ready()
        assert value(parse(server.metrics()), "gpuwatch_up", gpu=1) == 1
        deadline = time.monotonic() + 15
        slowest = 0.0
        stale = None
        while time.monotonic() < deadline:
            started = time.monotonic()
            samples = parse(server.metrics())
            slowest = max(slowest, time.monotonic() - started)
            if value(samples, "gpuwatch_up", gpu=1) == 0:
                stale = samples
                break
            time.sleep(0.1)
        assert stale is not None, "GPU 1 never marked down while its temperature call hangs"
        # The call hangs for 30 s: a scrape that waited on it would take that long. The bound leaves
        # room for a loaded CI machine (ctest -j2 beside Chromium and Prometheus).
        assert slowest < 2.0, f"a scrape took {slowest:.3f} s while an NVML call hung"
        # Stale, not gone: identity and a growing sample age; its field series are dropped.
        assert value(stale, "gpuwatch_sample_age_seconds", gpu=1) > 1
        assert series(stale, "gpuwatch_gpu_info", gpu=1)[0][0]["uuid"].startswith("GPU-")
        assert value(stale, "gpuwatch_memory_used_bytes", gpu=1) is None
        assert value(stale, "gpuwatch_collector_success") == 0
        # The healthy GPU keeps reporting fresh samples.
        time.sleep(0.5)
        samples = parse(server.metrics())
        assert value(samples, "gpuwatch_up", gpu=0) == 1
        assert value(samples, "gpuwatch_sample_age_seconds", gpu=0) < 1
        assert value(samples, "gpuwatch_memory_used_bytes", gpu=0) > 0
        # A thread stuck in NVML does not stop a clean exit.
        started = time.monotonic()
        rc, _, err = server.stop(signal.SIGTERM)
        assert rc == 0, err
        assert time.monotonic() - started < 5


def test_lost_gpu_leaves_the_others_reporting():
    # gpu_lost: GPU 1 falls off the bus at t = 30 s. Start at 28 s so it is seen healthy first.
    with Server(sim_env("gpu_lost", seconds_in=28), "--interval", "200ms") as server:
        server.wait_ready()
        first = parse(server.metrics())
        uuid1 = series(first, "gpuwatch_gpu_info", gpu=1)[0][0]["uuid"]
        assert uuid1.startswith("GPU-")
        deadline = time.monotonic() + 15
        samples = first
        while time.monotonic() < deadline and value(samples, "gpuwatch_gpu_lost", gpu=1) != 1:
            time.sleep(0.2)
            samples = parse(server.metrics())
        assert value(samples, "gpuwatch_gpu_lost", gpu=1) == 1, "GPU 1 never reported lost"
        assert value(samples, "gpuwatch_up", gpu=1, uuid=uuid1) == 0  # identity kept from before
        assert value(samples, "gpuwatch_memory_used_bytes", gpu=1) is None
        assert value(samples, "gpuwatch_gpu_lost", gpu=0) == 0
        assert value(samples, "gpuwatch_up", gpu=0) == 1
        assert value(samples, "gpuwatch_memory_used_bytes", gpu=0) > 0
        errors = series(samples, "gpuwatch_nvml_errors_total", code=15)
        assert errors and errors[0][1] >= 1
        # The JSON API says why in NVML's own words, not a bare code.
        lost = server.get_json("/api/v1/snapshot")["gpus"][1]
        assert lost["error"] == "GPU is lost", lost
        rc, _, err = server.stop()
        assert rc == 0, err


def test_public_bind_without_auth_is_refused():
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", "0.0.0.0:0"],
                         env=sim_env("training"), capture_output=True, text=True, timeout=10)
    assert out.returncode == 2
    assert "--insecure-allow-unauthenticated" in out.stderr and "0.0.0.0:0" in out.stderr


@pytest.mark.parametrize("args", [["--listen", "nonsense"], ["--listen", "127.0.0.1:99999"],
                                  ["--interval", "soon"], ["--threads", "0"]])
def test_bad_arguments_are_usage_errors(args):
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "serve", *args], env=sim_env("training"),
                         capture_output=True, text=True, timeout=10)
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip()


def test_port_in_use_is_a_clear_error(training):
    server, _ = training
    port = server.url.rsplit(":", 1)[1]
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "serve", "--listen", f"127.0.0.1:{port}"],
                         env=sim_env("training"), capture_output=True, text=True, timeout=10)
    assert out.returncode == 1
    assert "cannot listen on 127.0.0.1:" + port in out.stderr


def test_dcgm_compat_names_for_existing_dashboards():
    with Server(sim_env("training", seconds_in=120), "--interval", "200ms", "--metrics-compat", "dcgm") as server:
        server.wait_ready()
        body = server.metrics()
        samples = parse(body)
        native = value(samples, "gpuwatch_memory_used_bytes", gpu=0)
        util = series(samples, "DCGM_FI_DEV_GPU_UTIL", gpu=0)
        assert len(util) == 1
        labels, percent = util[0]
        assert labels["UUID"].startswith("GPU-") and labels["modelName"] == "NVIDIA A100-SXM4-80GB"
        assert labels["device"].startswith("nvidia") and labels["Hostname"] and labels["pci_bus_id"]
        assert 50 < percent <= 100 and percent == int(percent)
        assert value(samples, "DCGM_FI_DEV_FB_USED", gpu=0) == native / MIB
        # Every dcgm-exporter dashboard query's metric is there (an A100 has no tensor-core GPM metric yet).
        for name in ["DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_POWER_USAGE",
                     "DCGM_FI_DEV_SM_CLOCK"]:
            assert len(series(samples, name)) == 2, name
        promtool = shutil.which("promtool")
        if promtool:
            out = subprocess.run([promtool, "check", "metrics"], input=body, capture_output=True, text=True,
                                 timeout=30)
            # dcgm-exporter's own names break promtool's naming lint (no unit suffix, counters without
            # _total); only those lint warnings are allowed, never a format error.
            problems = [l for l in (out.stdout + out.stderr).splitlines()
                        if l.strip() and not l.startswith("DCGM_FI_")]
            assert not problems, out.stdout + out.stderr
        rc, _, err = server.stop()
        assert rc == 0, err


def test_unknown_compat_family_is_a_usage_error():
    out = subprocess.run([BIN, "--simulate", "training", "serve", "--metrics-compat", "dcgm,bogus"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "bogus" in out.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stop_signal_right_after_start_exits_cleanly(sig):
    with Server(sim_env("training")) as server:
        started = time.monotonic()
        rc, _, err = server.stop(sig)
        assert rc == 0, err
        assert time.monotonic() - started < 5
