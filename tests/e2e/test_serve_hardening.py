"""gpuwatch serve's HTTP server against careless and hostile clients (issue 16, part 1), on
127.0.0.1 only, every loop bounded: slowloris connections trickling bytes do not slow
/metrics and cannot delay SIGTERM; thousands of idle connections do not lock scrapers out;
header floods are refused without growing memory; too many headers, a huge chunked body, a
target that is not UTF-8 are clear 4xx; pipelined requests are all answered, in order; the
connection cap answers 503."""
import resource
import select
import signal
import socket
import subprocess
import sys
import time

import pytest

from test_serve import Server, sim_env  # the serve fixture shared by the serve tests

# 2,000 client sockets here, and as many in serve (which raises its own soft limit).
_soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if _soft < 4096 and _hard >= 4096:
    resource.setrlimit(resource.RLIMIT_NOFILE, (4096, _hard))


def connect(server, timeout=5.0):
    return socket.create_connection((server.host, server.port), timeout=timeout)


def read_response(sock, timeout=5.0):
    """(status, {lower-case header: value}, body) of one response with a Content-Length (or
    none, then up to the close), leaving what follows in sock's buffer list."""
    sock.settimeout(timeout)
    data = getattr(sock, "_pending", b"")
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a full response head: {data[:200]!r}")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        length = int(headers["content-length"])
        while len(rest) < length:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("closed in the middle of a body")
            rest += chunk
        body, sock._pending = rest[:length], rest[length:]
    else:
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            rest += chunk
        body, sock._pending = rest, b""
    return status, headers, body.decode("utf-8", "replace")


class Sock(socket.socket):
    """A socket that read_response can leave bytes on."""
    _pending = b""


def raw_connect(server, timeout=5.0):
    s = Sock(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect((server.host, server.port))
    return s


def scrape_ms(server):
    """One /metrics scrape on a fresh connection: milliseconds from connect to the whole body."""
    started = time.perf_counter()
    with raw_connect(server) as s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        status, _, body = read_response(s)
    assert status == 200 and "gpuwatch_up" in body
    return (time.perf_counter() - started) * 1000


def p99(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def stop_within(server, seconds):
    started = time.monotonic()
    server.proc.send_signal(signal.SIGTERM)
    try:
        server.proc.wait(timeout=seconds + 3)
    except Exception:
        server.proc.kill()
        raise
    took = time.monotonic() - started
    assert server.proc.returncode == 0, server.proc.stderr.read()
    assert took < seconds, f"serve took {took:.2f} s to exit after SIGTERM"


@pytest.fixture
def server():
    with Server(sim_env("training", seconds_in=120), "--no-record", "--interval", "500ms") as s:
        s.wait_ready()
        yield s


# Slowloris in its own process (no GIL shared with the scraper being timed): COUNT connections
# that send a request line, then one header byte a second each, spread over the second.
TRICKLER = r"""
import socket, sys, time
port, count, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
conns = []
for _ in range(count):
    c = socket.create_connection(("127.0.0.1", port))
    c.sendall(b"GET /metrics HTTP/1.1\r\n")
    conns.append(c)
print("ready", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    for c in conns:
        time.sleep(1.0 / count)
        try:
            c.send(b"X")
        except OSError:
            pass
"""


def scrape_p99(server, seconds=5, limit=300):
    times = []
    deadline = time.monotonic() + seconds  # bounded
    while time.monotonic() < deadline and len(times) < limit:
        times.append(scrape_ms(server))
        time.sleep(0.01)
    assert len(times) >= 100
    return p99(times), times


def test_slowloris_does_not_slow_metrics_and_sigterm_is_prompt(server):
    for _ in range(5):  # warm up (first encodings, page cache)
        scrape_ms(server)
    # The machine's own noise: on a loaded shared machine scheduling alone puts the p99 of
    # a Python client near 20 ms; the bound is 20 ms or twice that floor, whichever is larger.
    floor, _ = scrape_p99(server, seconds=3)
    trickler = subprocess.Popen([sys.executable, "-c", TRICKLER, str(server.port), "200", "9"],
                                stdout=subprocess.PIPE, text=True)
    try:
        assert trickler.stdout.readline().strip() == "ready"
        loaded, times = scrape_p99(server, seconds=5)  # well inside the 10 s header deadline
        bound = max(20.0, 2 * floor)
        assert loaded < bound, (f"/metrics p99 {loaded:.1f} ms with 200 slowloris connections "
                                f"(without: {floor:.1f} ms): {sorted(times)[-5:]}")
        # SIGTERM while the 200 connections are still trickling: out within 2 s.
        stop_within(server, 2.0)
    finally:
        trickler.kill()
        trickler.wait(timeout=5)


def test_the_header_deadline_is_total_not_an_inactivity_timeout():
    with Server(sim_env("training", seconds_in=120), "--no-record", "--header-timeout", "1500ms") as server:
        s = connect(server)
        s.sendall(b"GET /metrics HTTP/1.1\r\n")
        started = time.monotonic()
        closed_after = None
        while time.monotonic() - started < 6:  # bounded
            try:
                s.send(b"X")  # a byte every 200 ms: an inactivity timeout would never fire
                readable, _, _ = select.select([s], [], [], 0.2)
                if readable and s.recv(1024) == b"":
                    closed_after = time.monotonic() - started
                    break
            except OSError:
                closed_after = time.monotonic() - started
                break
        s.close()
        assert closed_after is not None, "a trickling client kept its connection past the header deadline"
        assert 1.0 < closed_after < 3.5, closed_after
        assert server.get("/healthz")[0] == 200
        server.stop()


def test_two_thousand_idle_connections_do_not_lock_scrapers_out(server):
    idle = []
    try:
        for _ in range(2000):
            try:
                idle.append(connect(server))
            except OSError as e:  # the listen queue; serve closes the oldest idle ones
                pytest.fail(f"connect {len(idle)} failed: {e}")
        times = [scrape_ms(server) for _ in range(20)]
        assert max(times) < 1000, times
        assert server.get("/healthz")[0] == 200
        stop_within(server, 2.0)
    finally:
        for s in idle:
            s.close()


def test_header_flood_is_refused_without_growing_memory(server):
    flood = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X: y\r\n" * (1024 * 1024)  # 6 MB
    statuses = []
    for _ in range(10):
        s = raw_connect(server)
        try:
            s.sendall(flood + b"\r\n")
        except OSError:
            pass  # refused early: serve stopped reading
        try:
            statuses.append(read_response(s)[0])
        except OSError:
            statuses.append(None)
        s.close()
    assert 431 in statuses, statuses
    assert set(statuses) <= {431, None}, statuses
    rss = rss_mb(server.proc.pid)
    assert rss < 40, f"serve's RSS is {rss:.1f} MB after 10 requests of 6 MB of headers"
    assert scrape_ms(server) < 1000


def test_too_many_headers_are_431(server):
    with raw_connect(server) as s:  # 10,000 headers (60 kB): beyond the 16 KiB of headers
        s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X-%d: y\r\n" % i for i in range(10000)) + b"\r\n")
        status, _, body = read_response(s)
    assert status == 431 and "too large" in body
    with raw_connect(server) as s:  # 150 short headers (1.5 kB): beyond the 100 fields
        s.sendall(b"GET /metrics HTTP/1.1\r\n" + b"".join(b"X%d: y\r\n" % i for i in range(150)) + b"\r\n")
        status, _, body = read_response(s)
    assert status == 431 and "too many request headers (limit 100)" in body


def test_a_64_mb_chunked_post_is_refused_early(server):
    piece = b"10000\r\n" + b"a" * 0x10000 + b"\r\n"  # 64 KiB chunks
    sent = 0
    status = None
    with raw_connect(server) as s:
        s.sendall(b"POST /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        while sent < 64 * 1024 * 1024:
            readable, writable, _ = select.select([s], [s], [], 5)
            if readable:
                status, _, body = read_response(s)
                break
            if writable:
                try:
                    sent += s.send(piece)
                except OSError:
                    break
        if status is None:
            status, _, body = read_response(s)
    assert status == 413 and "body too large" in body
    assert sent < 8 * 1024 * 1024, f"{sent} bytes were taken before the 413"


def test_pipelined_requests_are_answered_in_order(server):
    with raw_connect(server) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /readyz HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"GET /nothing HTTP/1.1\r\nHost: x\r\n\r\n")
        answers = [read_response(s) for _ in range(3)]
        # and the connection is kept alive for a fourth
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        last = read_response(s)
    assert [(a[0], a[2]) for a in answers] == [(200, "ok\n"), (200, "ready\n"), (404, "not found\n")]
    assert last[0] == 200 and last[1]["connection"] == "close"


def test_a_target_that_is_not_utf8_is_400_without_internals(server):
    for path in ["/api/v1/history?gpu=%ff", "/api/v1/events?gpu=%ff", "/metrics?x=%zz", "/%c0%af"]:
        with raw_connect(server) as s:
            s.sendall(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            status, _, body = read_response(s)
        assert status == 400, (path, status, body)
        assert "exception" not in body.lower() and "what" not in body.lower(), body
        assert body.startswith("bad request target: "), body
    status, _, body = server.get("/api/v1/history?gpu=%ff")
    assert status == 400 and "query parameter 'gpu': not valid UTF-8" in body
    assert server.get("/metrics")[0] == 200


def test_the_connection_cap_answers_503_when_every_connection_is_busy():
    with Server(sim_env("training", seconds_in=120), "--no-record", "--interval", "200ms",
                "--max-connections", "4", "--max-event-streams", "4") as server:
        server.wait_ready()
        streams = []
        try:
            for _ in range(4):  # four event streams: busy, never evicted
                s = raw_connect(server)
                s.sendall(b"GET /api/v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
                s.settimeout(5)
                assert s.recv(4096).startswith(b"HTTP/1.1 200 ")
                streams.append(s)
            with raw_connect(server) as s:
                s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                status, headers, body = read_response(s)
            assert status == 503 and headers.get("retry-after") == "1", (status, headers)
            assert "too many connections (limit 4)" in body
            streams.pop().close()  # a slot comes back once serve notices (its next event)
            deadline = time.monotonic() + 5
            while True:
                with raw_connect(server) as s:
                    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                    if read_response(s)[0] == 200:
                        break
                assert time.monotonic() < deadline, "the closed stream's slot never came back"
                time.sleep(0.1)
            stop_within(server, 2.0)
        finally:
            for s in streams:
                s.close()
