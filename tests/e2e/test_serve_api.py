"""gpuwatch serve's JSON API (issue 4, docs/api.md) on the simulated driver:
/api/v1/snapshot carries the same values as `gpuwatch query`, /api/v1/history grows and
stays bounded by --history, /api/v1/events streams `sample` events, the number of event
streams is capped (503 beyond) so /metrics always answers, and SIGTERM still stops the
server at once with streams open."""
import json
import socket
import subprocess
import time

import pytest

from test_serve import BIN, MIB, SIM_LIB, Server, sim_env  # the serve fixture shared by the serve tests


class EventStream:
    """A raw HTTP/1.1 client of /api/v1/events with socket timeouts (no library buffering)."""

    def __init__(self, server, path="/api/v1/events", timeout=5.0):
        self.sock = socket.create_connection((server.host, server.port), timeout=timeout)
        self.sock.sendall(f"GET {path} HTTP/1.1\r\nHost: {server.host}\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                break
            self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}

    def events(self, count, timeout):
        """The data of the first COUNT `sample` events, read within TIMEOUT seconds."""
        deadline = time.monotonic() + timeout
        while self.buffer.count(b"event: sample\n") < count or not self._complete(count):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            self.buffer += chunk
        text = self.buffer.decode()
        return [json.loads(line[len("data: "):]) for line in text.split("\n") if line.startswith("data: ")][:count]

    def _complete(self, count):
        return self.buffer.count(b"\n\n") > count  # "retry:" block plus COUNT events

    def close(self):
        self.sock.close()


def query(env, fields):
    out = subprocess.run([BIN, "--nvml-library", SIM_LIB, "query", "--query-gpu=" + ",".join(fields),
                          "--format=csv,noheader,nounits"], env=env, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    return [[c.strip() for c in row.split(",")] for row in out.stdout.strip().splitlines()]


@pytest.fixture(scope="module")
def training():
    env = sim_env("training", seconds_in=120)  # past the idle phase
    with Server(env, "--interval", "100ms", "--history", "1s") as server:
        server.wait_ready()
        yield server, env
        rc, _, err = server.stop()
        assert rc == 0, err


def test_snapshot_matches_query(training):
    server, env = training
    snap = server.get_json("/api/v1/snapshot")
    rows = query(env, ["index", "uuid", "name", "pci.bus_id", "driver_version", "memory.total", "power.limit",
                       "clocks.max.sm", "fan.speed"])
    assert len(rows) == 2 and len(snap["gpus"]) == 2
    assert snap["device_count"] == 2
    assert snap["collector_success"] is True
    assert snap["driver_version"] == "535.261.03"
    for (index, uuid, name, bus_id, driver, mem_total, power_limit, max_sm, fan), gpu in zip(rows, snap["gpus"]):
        assert gpu["index"] == int(index)
        assert gpu["state"] == "ok" and gpu["up"] is True
        assert 0 <= gpu["sample_age_seconds"] < 2.0
        assert gpu["uuid"] == uuid and gpu["name"] == name and gpu["pci_bus_id"] == bus_id
        assert driver == snap["driver_version"]
        assert gpu["memory_total_bytes"] == int(mem_total) * MIB
        assert gpu["power_limit_w"] == pytest.approx(float(power_limit))
        assert gpu["clocks_max_sm_hz"] == int(max_sm) * 1_000_000
        assert fan == "[N/A]" and gpu["fan_speed_ratio"] is None  # A100 SXM: absent is null, not 0
        assert 0 <= gpu["utilization_gpu_ratio"] <= 1
        assert gpu["memory_used_bytes"] + gpu["memory_free_bytes"] <= gpu["memory_total_bytes"]
        assert isinstance(gpu["processes"], list) and gpu["processes"], gpu
        for p in gpu["processes"]:
            assert p["pid"] > 0 and p["type"] in ("C", "G", "C+G")
            assert p["used_memory_bytes"] is None or p["used_memory_bytes"] > 0


def test_history_grows_and_is_bounded(training):
    server, _ = training
    # --history 1s at --interval 100ms: 10 samples per GPU at most.
    deadline = time.monotonic() + 10
    lengths = []
    while time.monotonic() < deadline:
        history = server.get_json("/api/v1/history")
        assert history["capacity"] == 10 and history["interval_s"] == pytest.approx(0.1)
        lengths.append([len(g["timestamp_s"]) for g in history["gpus"]])
        if len(lengths) > 15 and all(n == 10 for n in lengths[-1]):
            break
        time.sleep(0.1)
    assert all(n <= 10 for row in lengths for n in row), lengths
    assert lengths[-1] == [10, 10], lengths
    history = server.get_json("/api/v1/history")
    assert [g["index"] for g in history["gpus"]] == [0, 1]
    for gpu in history["gpus"]:
        ts = gpu["timestamp_s"]
        assert ts == sorted(ts) and len(set(ts)) == len(ts)
        assert time.time() - 5 < ts[-1] <= time.time() + 1
        for key in history["fields"] + ["up", "processes"]:
            assert len(gpu[key]) == len(ts), key
        assert all(v is None for v in gpu["fan_speed_ratio"])
        assert all(v == gpu["memory_total_bytes"][0] and v > 0 for v in gpu["memory_total_bytes"])
        assert all(0 <= v <= 1 for v in gpu["utilization_gpu_ratio"])
    # The window and the GPU filter.
    recent = server.get_json("/api/v1/history?seconds=0.35&gpu=1")
    assert recent["seconds"] == 0.35
    assert [g["index"] for g in recent["gpus"]] == [1]
    assert 1 <= len(recent["gpus"][0]["timestamp_s"]) <= 6
    assert all(t >= time.time() - 2 for t in recent["gpus"][0]["timestamp_s"])
    for bad in ("?gpu=2", "?gpu=x", "?seconds=0", "?seconds=abc"):
        status, content_type, body = server.get("/api/v1/history" + bad)
        assert status == 400 and content_type.startswith("application/json"), bad
        assert json.loads(body)["error"]


def test_events_stream_samples(training):
    server, _ = training
    stream = EventStream(server)
    try:
        assert stream.status == 200
        assert stream.headers["content-type"].startswith("text/event-stream")
        events = stream.events(4, timeout=5)
    finally:
        stream.close()
    assert len(events) >= 2, events
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    assert {e["gpu"] for e in events} <= {0, 1}
    for e in events:
        assert e["up"] is True and e["memory_total_bytes"] > 0 and e["fan_speed_ratio"] is None
    one = EventStream(server, "/api/v1/events?gpu=1")
    try:
        only = one.events(2, timeout=5)
    finally:
        one.close()
    assert len(only) == 2 and all(e["gpu"] == 1 for e in only)


def test_metrics_answer_while_streams_are_open_and_beyond_the_cap():
    env = sim_env("training", seconds_in=120)
    with Server(env, "--interval", "100ms", "--max-event-streams", "2") as server:
        server.wait_ready()
        streams = [EventStream(server) for _ in range(2)]  # --max-event-streams 2
        try:
            assert [s.status for s in streams] == [200, 200]
            assert all(len(s.events(1, timeout=5)) == 1 for s in streams)
            status, content_type, body = server.get("/api/v1/events", timeout=3)
            assert status == 503 and "too many event streams" in json.loads(body)["error"]
            for _ in range(3):
                started = time.monotonic()
                status, _, body = server.get("/metrics", timeout=3)
                assert status == 200 and "gpuwatch_up" in body
                assert time.monotonic() - started < 2.0
                assert server.get("/api/v1/snapshot", timeout=3)[0] == 200
            # A closed stream gives its slot back (noticed at its next write).
            streams.pop().close()
            deadline = time.monotonic() + 5
            while True:
                again = EventStream(server)
                if again.status == 200:
                    streams.append(again)
                    break
                again.close()
                assert time.monotonic() < deadline, "the closed stream's slot never came back"
                time.sleep(0.1)
            # SIGTERM with streams open still stops at once.
            started = time.monotonic()
            rc, _, err = server.stop(timeout=10)
            assert rc == 0, err
            assert time.monotonic() - started < 5
        finally:
            for s in streams:
                s.close()
