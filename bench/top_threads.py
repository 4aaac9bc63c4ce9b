#!/usr/bin/env python3
"""Per-thread CPU of `gpuwatch top` (or nvtop) in a 200x50 tmux pane over SECONDS (issue 13).

Each thread's time on the CPU in nanoseconds (/proc/PID/task/TID/schedstat, field 1: user and
kernel, exact where bench/top_vs_nvtop.py counts 10 ms ticks), its wake-ups (field 3) and its
voluntary context switches, after a 3 s warm-up. With a third argument, `perf record` runs on
the process meanwhile and writes that file.

  GPUWATCH_BIN=build/gpuwatch python3 bench/top_threads.py [SECONDS] [PERF_DATA]
  GPUWATCH_BIN=build/gpuwatch python3 bench/top_threads.py --nvtop [SECONDS]
"""
import os
import subprocess
import sys
import time

from tmux_program import program_in_tmux

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
args = sys.argv[1:]
NVTOP = "--nvtop" in args
args = [a for a in args if a != "--nvtop"]
SECONDS = float(args[0]) if args else 30
PERF = args[1] if len(args) > 1 else None
COMMAND = f"{BIN} sim run demo -- nvtop -d 10" if NVTOP else f"{BIN} --simulate demo top -d 1s"
NAME = "nvtop" if NVTOP else "gpuwatch"


def threads(pid):
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns, _, slices = (int(x) for x in f.read().split())
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                voluntary = int(f.read().split("voluntary_ctxt_switches:")[1].split()[0])
            out[int(tid)] = (ns, slices, voluntary)
        except (OSError, ValueError, IndexError):
            pass
    return out


with program_in_tmux(COMMAND, NAME) as pid:
    time.sleep(3)  # warm-up: first samples, history, findings
    before, t0 = threads(pid), time.monotonic()
    perf = None
    if PERF:
        perf = subprocess.Popen(["perf", "record", "-F", "4999", "-g", "-o", PERF, "-p", str(pid), "--", "sleep", str(SECONDS)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(SECONDS)
    if perf:
        perf.wait()
    after, t1 = threads(pid), time.monotonic()
    total = 0
    for tid in sorted(after):
        if tid not in before:
            continue
        ns = after[tid][0] - before[tid][0]
        total += ns
        print(f"  thread {tid:7}  {ns / 1e6:7.1f} ms   wake-ups {after[tid][1] - before[tid][1]:4}"
              f"   voluntary switches {after[tid][2] - before[tid][2]:4}")
    print(f"{NAME}: {total / 1e6:.1f} ms in {t1 - t0:.1f} s = {100 * total / 1e9 / (t1 - t0):.3f} % of a core")
