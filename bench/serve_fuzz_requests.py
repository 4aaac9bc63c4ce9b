#!/usr/bin/env python3
"""Fires mutated and malformed HTTP requests at one `gpuwatch serve` (bench/serve_fuzz_rss.sh).

Each request starts from a well-formed one (the routes the dashboard, Prometheus and the API use)
and gets zero or more mutations: flipped, inserted or deleted bytes, a cut, bad percent-escapes,
invalid UTF-8, a flood of headers, an oversized header, a chunked or oversized body, two
pipelined requests. Random but seeded (--seed), so a run repeats. Every request is sent on its
own connection, whose write side is then shut (so an incomplete request ends at once instead of
waiting for the server's header deadline), and the answer is read until the server closes.

Prints one JSON line: requests sent, answers by status code, connections the server closed
without an answer (a cut request), reset or that timed out. Exits 1 if the server stopped answering /healthz at the end.
"""
import argparse
import collections
import json
import random
import socket
import sys
import threading
import time

ROUTES = [
    "/metrics", "/healthz", "/readyz", "/", "/api/v1/snapshot", "/api/v1/alerts", "/api/v1/findings",
    "/api/v1/history?seconds=60", "/api/v1/history?seconds=600&gpu=1", "/api/v1/history?seconds=1e18",
    "/api/v1/events?gpu=%ff", "/assets/dashboard.js", "/assets/uPlot.min.css", "/assets/../metrics",
    "/assets/%2e%2e%2fdashboard.js", "/metrics?x=%zz", "/api/v1/history?gpu=%ff", "http://127.0.0.1/metrics",
]
HEADERS = [
    ("Host", "127.0.0.1"), ("User-Agent", "gpuwatch-fuzz/1"), ("Accept", "application/openmetrics-text;version=1.0.0"),
    ("Accept-Encoding", "gzip"), ("Connection", "close"), ("Authorization", "Basic YWxpY2U6czNjcmV0"),
]
NASTY = [b"%", b"%f", b"%zz", b"%00", b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\r", b"\n", b"\r\n", b" ", b"\x00",
         b"..", b"/", b"?", b"&", b"=", b"#", b":", b"HTTP/1.1", b"Transfer-Encoding: chunked\r\n", b"Content-Length: -1\r\n"]


def base_request(rng):
    method = rng.choice(["GET", "GET", "GET", "HEAD", "POST", "PUT", "OPTIONS", "BREW"])
    version = rng.choice(["HTTP/1.1"] * 8 + ["HTTP/1.0", "HTTP/2.0", "HTTP/0.9", "HTTX/1.1"])
    lines = [f"{method} {rng.choice(ROUTES)} {version}"]
    lines += [f"{k}: {v}" for k, v in rng.sample(HEADERS, rng.randint(1, len(HEADERS)))]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def mutate(rng, data):
    kind = rng.randrange(12)
    if kind == 0 and data:  # flip bytes
        b = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == 1:  # insert something nasty
        i = rng.randrange(len(data) + 1)
        return data[:i] + rng.choice(NASTY) * rng.randint(1, 4) + data[i:]
    if kind == 2 and data:  # delete a run
        i = rng.randrange(len(data))
        return data[:i] + data[i + rng.randint(1, 16):]
    if kind == 3:  # cut short
        return data[:rng.randrange(len(data) + 1)]
    if kind == 4:  # a flood of header lines (beyond the count limit)
        head, _, rest = data.partition(b"\r\n")
        return head + b"\r\n" + b"X: y\r\n" * rng.choice([50, 150, 2000]) + rest
    if kind == 5:  # one oversized header (beyond the byte limit)
        head, _, rest = data.partition(b"\r\n")
        return head + b"\r\nX-Big: " + b"a" * rng.choice([8000, 20000, 100000]) + b"\r\n" + rest
    if kind == 6:  # a chunked body, sometimes broken, sometimes over the limit
        size = rng.choice([5, 4097, 70000])
        body = b"%x\r\n" % size + b"b" * size + b"\r\n0\r\n\r\n"
        if rng.random() < 0.3:
            body = b"zz\r\n" + body
        return data.replace(b"\r\n\r\n", b"\r\nTransfer-Encoding: chunked\r\n\r\n", 1) + body
    if kind == 7:  # Content-Length body: short, long, lying
        length = rng.choice([0, 10, 5000, 10**12])
        return data.replace(b"\r\n\r\n", b"\r\nContent-Length: %d\r\n\r\n" % length, 1) + b"c" * min(length, 6000)
    if kind == 8:  # pipelined
        return data.replace(b"Connection: close\r\n", b"") + base_request(rng)
    if kind == 9:  # a bad escape or invalid UTF-8 in the target
        sp = data.find(b" ")
        if sp > 0:
            return data[:sp + 1] + b"/api/v1/history?gpu=" + rng.choice(NASTY) + b"&seconds=" + rng.choice(NASTY) + data[sp + 1:]
    if kind == 10:  # a bare line feed world
        return data.replace(b"\r\n", b"\n")
    return data


def one(host, port, payload, timeout):
    """The first bytes of the answer; reading stops at the server's close, or after TIMEOUT in
    all (a mutation can turn a request into an endless event stream)."""
    deadline = time.monotonic() + timeout
    with socket.create_connection((host, port), timeout=timeout) as s:
        try:
            s.sendall(payload)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server may refuse (431, 413) and close before reading everything
        first = b""
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            if not first:
                first = chunk[:16]
        return first


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=3.0)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    payloads = []
    for _ in range(args.requests):
        data = base_request(rng)
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            data = mutate(rng, data)
        payloads.append(data)

    counts = collections.Counter()
    lock = threading.Lock()
    index = iter(range(len(payloads)))

    def worker():
        while True:
            with lock:
                i = next(index, None)
            if i is None:
                return
            try:
                first = one(args.host, args.port, payloads[i], args.timeout)
                key = first[9:12].decode("ascii", "replace") if first.startswith(b"HTTP/1.") else "no answer"
            except socket.timeout:
                key = "timeout"
            except ConnectionResetError:
                key = "reset"
            except OSError as e:
                key = f"error {e.errno}"
            with lock:
                counts[key] += 1

    threads = [threading.Thread(target=worker) for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        alive = one(args.host, args.port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                    args.timeout).startswith(b"HTTP/1.1 200")
    except OSError:
        alive = False
    print(json.dumps({"requests": len(payloads), "answers": dict(sorted(counts.items())), "alive": alive}))
    return 0 if alive else 1


if __name__ == "__main__":
    sys.exit(main())
