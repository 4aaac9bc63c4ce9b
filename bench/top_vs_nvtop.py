#!/usr/bin/env python3
"""CPU and memory of `gpuwatch top` next to nvtop on the same simulated 8-GPU node (issue 13).

Each runs in its own detached tmux pane (200x50) at a 1 s refresh for SECONDS after a warm-up;
CPU is the process's user+system time over that window (/proc/PID/stat), memory its RSS at the
end, its peak (VmHWM), and how much of it is private (RssAnon) or file-backed pages of the
binary and libraries (RssFile). gpuwatch's CPU includes its sampling threads (one per GPU) and the
/proc reader; nvtop samples on its UI thread. Both read the simulated driver, whose calls are cheap:
on real hardware NVML's own cost comes on top of both.

  GPUWATCH_BIN=build/gpuwatch python3 bench/top_vs_nvtop.py [SECONDS]
"""
import os
import shutil
import sys
import time

from tmux_program import program_in_tmux

BIN = os.environ.get("GPUWATCH_BIN", "build/gpuwatch")
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 20
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_kib(pid):
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                values[key] = int(rest.split()[0])
    return values


def measure(name, command, process_name):
    with program_in_tmux(command, process_name) as pid:
        time.sleep(3)  # warm-up: first samples, history, findings
        c0, t0 = cpu_seconds(pid), time.monotonic()
        time.sleep(SECONDS)
        c1, t1 = cpu_seconds(pid), time.monotonic()
        mem = memory_kib(pid)
        print(f"{name:14} CPU {100 * (c1 - c0) / (t1 - t0):5.2f} % of a core   RSS {mem['VmRSS'] / 1024:6.1f} MiB"
              f"   peak {mem['VmHWM'] / 1024:6.1f} MiB   (private {mem['RssAnon'] / 1024:.1f} MiB,"
              f" file-backed {mem['RssFile'] / 1024:.1f} MiB)")


measure("gpuwatch top", f"{BIN} --simulate demo top -d 1s", "gpuwatch")
if shutil.which("nvtop"):
    measure("nvtop 3.0.1", f"{BIN} sim run demo -- nvtop -d 10", "nvtop")
