#!/usr/bin/env python3
"""Keypress-to-redraw latency of `gpuwatch top` (issue 13: p99 under 50 ms), in tmux.

`top` runs in a detached 200x50 tmux pane; one tmux control-mode client (`tmux -C`, a single
process, so no process start per probe) sends N presses of `r` (sort order: the process list's
header flips between ▼ and ▲) and polls `capture-pane` until the header shows the flip. The
time from sending the key to the first capture that shows it is the latency; tmux's own round
trips are in it (an empty probe's round trip is printed too). The keys are spaced 10-40 ms
apart, at random, so some land while a refresh is being built.

Two runs: the simulated 8-GPU `demo` node at a 1 s refresh, and `sick_gpu` with its 10 s
temperature hang moved to the start (GPU 1 shows STALE throughout, which is checked).

  GPUWATCH_BIN=build/gpuwatch python3 bench/top_keypress_latency.py [N]
"""
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
import uuid

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
N = int(sys.argv[1]) if len(sys.argv) > 1 else 200
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Control:
    """One tmux control-mode client: a command and its output block (%begin .. %end)."""

    def __init__(self, socket):
        self.proc = subprocess.Popen(["tmux", "-L", socket, "-C", "attach", "-t", "t"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1,
                                     errors="replace")  # tmux may split a UTF-8 character across %output lines
        self.command("refresh-client -f no-output")  # no %output notifications of the pane

    def command(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        out, inside = [], False
        while True:
            text = self.proc.stdout.readline()
            if not text:
                raise SystemExit("tmux control client ended")
            text = text.rstrip("\n")
            if text.startswith("%begin"):
                inside = True
                out = []
            elif text.startswith("%end") or text.startswith("%error"):
                if inside:
                    return out
            elif inside:
                out.append(text)

    def close(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        self.proc.wait(timeout=5)


def header(screen):
    return next((l for l in screen if "PID" in l and "COMMAND" in l), "")


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def run(name, command, check_stale=False):
    socket = f"gw-keys-{uuid.uuid4().hex[:8]}"
    tmux = ["tmux", "-L", socket]
    subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-s", "t", command],
                   check=True)
    control = None
    try:
        control = Control(socket)
        capture = lambda: control.command("capture-pane -p -t t")
        deadline = time.monotonic() + 20
        while not (header(capture()) and (not check_stale or any("STALE" in l for l in capture()))):
            if time.monotonic() > deadline:
                raise SystemExit(f"{name}: top did not come up\n" + "\n".join(capture()))
            time.sleep(0.05)
        t0 = time.monotonic()
        for _ in range(20):
            capture()
        round_trip = (time.monotonic() - t0) / 20
        latencies = []
        for _ in range(N):
            before = "▼" in header(capture())
            t0 = time.monotonic()
            control.command("send-keys -t t r")
            while True:
                h = header(capture())
                if h and ("▼" in h) != before:
                    break
                if time.monotonic() - t0 > 5:
                    raise SystemExit(f"{name}: the key was not answered within 5 s")
            latencies.append(time.monotonic() - t0)
            time.sleep(random.uniform(0.01, 0.04))
        stale = any("STALE" in l for l in capture())
        if check_stale and not stale:
            raise SystemExit(f"{name}: GPU 1 was no longer stale at the end")
        ms = [v * 1000 for v in latencies]
        print(f"{name:34} {N} keys: p50 {percentile(ms, 50):5.1f} ms  p90 {percentile(ms, 90):5.1f} ms  "
              f"p99 {percentile(ms, 99):5.1f} ms  max {max(ms):5.1f} ms   (a capture-pane round trip: "
              f"{round_trip * 1000:.1f} ms{', GPU 1 STALE throughout' if check_stale else ''})")
    finally:
        if control:
            control.close()
        pane = subprocess.run(tmux + ["display", "-p", "-t", "t", "#{pane_pid}"], capture_output=True, text=True)
        if pane.stdout.strip():
            for child in subprocess.run(["pgrep", "-P", pane.stdout.strip()], capture_output=True,
                                        text=True).stdout.split() + [pane.stdout.strip()]:
                try:
                    os.kill(int(child), signal.SIGTERM)
                except (ProcessLookupError, ValueError):
                    pass
        time.sleep(0.5)
        subprocess.run(tmux + ["kill-server"], capture_output=True)


run("demo (8 GPUs), -d 1s", f"{BIN} --simulate demo top -d 1s")
with tempfile.TemporaryDirectory() as tmp:
    # sick_gpu with its hang from the start: GPU 1's temperature call hangs 10 s at a time.
    text = open(os.path.join(ROOT, "sim/scenarios/sick_gpu.yaml")).read()
    text = re.sub(r"from: 60s, until: 90s", "from: 1s, until: 10m", text).replace("name: sick_gpu", "name: sick_now")
    scenario = os.path.join(tmp, "sick_now.yaml")
    with open(scenario, "w") as f:
        f.write(text)
    run("sick_gpu, hang from 1 s, -d 1s", f"{BIN} --simulate {scenario} top -d 1s", check_stale=True)
