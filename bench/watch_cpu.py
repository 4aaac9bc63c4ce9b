#!/usr/bin/env python3
"""CPU of the watch loops side by side (issue 26): `gpuwatch status -i 1`, `gpuwatch dmon`,
`gpustat -i 1` and nvtop (1 s refresh), each in its own 200x50 tmux pane on the simulated 8-GPU
`demo` node, all measured over the same SECONDS (default 60) after a 5 s warm-up. CPU is the time
on the CPU from /proc/PID/schedstat (user and kernel, in ns), as a share of one core.
Issue 26's targets: status -i 1 at most 0.15 %, dmon at most 0.05 %.

  GPUWATCH_BIN=build/gpuwatch python3 bench/watch_cpu.py [SECONDS]
"""
import contextlib
import os
import shutil
import sys
import time

from tmux_program import program_in_tmux

BIN = os.path.abspath(os.environ.get("GPUWATCH_BIN", "build/gpuwatch"))
SECONDS = float(sys.argv[1]) if len(sys.argv) > 1 else 60

PROGRAMS = [
    ("gpuwatch status -i 1", f"{BIN} --simulate demo status -i 1", "gpuwatch"),
    ("gpuwatch dmon", f"{BIN} --simulate demo dmon", "gpuwatch"),
    ("gpustat -i 1", f"{BIN} sim run demo -- gpustat -i 1", "gpustat"),
    ("nvtop -d 10 (1 s)", f"{BIN} sim run demo -- nvtop -d 10", "nvtop"),
]


TICKS = os.sysconf("SC_CLK_TCK")


def ticks_ns(pid):
    """utime + stime of the whole process, threads that ended included (10 ms ticks)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e9 / TICKS


def process_cpu_ns(pid):
    """The live threads' time on the CPU, in ns (exact; a thread that ended is not in it)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def main():
    programs = [p for p in PROGRAMS if p[2] not in ("gpustat", "nvtop") or shutil.which(p[2])]
    with contextlib.ExitStack() as stack:
        pids = {name: stack.enter_context(program_in_tmux(command, process)) for name, command, process in programs}
        time.sleep(5)
        start = {name: (process_cpu_ns(pid), ticks_ns(pid)) for name, pid in pids.items()}
        t0 = time.monotonic()
        time.sleep(SECONDS)
        elapsed = time.monotonic() - t0
        end = {name: (process_cpu_ns(pid), ticks_ns(pid)) for name, pid in pids.items()}
    print(f"CPU over the same {elapsed:.0f} s, 8 simulated GPUs, 1 s refresh, as a share of one core:")
    print(f"  {'program':22} {'live threads':>13} {'whole process':>14}")
    for name in pids:
        exact = (end[name][0] - start[name][0]) / 1e9 / elapsed * 100
        ticks = (end[name][1] - start[name][1]) / 1e9 / elapsed * 100
        print(f"  {name:22} {exact:12.3f} % {ticks:13.3f} %")
    print("  (live threads: schedstat, exact; whole process: /proc/PID/stat in 10 ms ticks, ended threads too)")


if __name__ == "__main__":
    main()
