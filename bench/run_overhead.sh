#!/usr/bin/env bash
# What `gpuwatch run` itself costs while a job runs (issue 14's target: under 0.5 % of one core
# at the default 1 s interval): the CPU time (utime + stime from /proc/PID/stat, its sampling
# threads included) the gpuwatch process uses over DURATION seconds of a job that only sleeps,
# on the simulated 8-GPU `demo` node (the simulated driver runs inside the process, so its cost
# counts too). Not a timed test: run by hand,
#   bench/run_overhead.sh [BUILD_DIR] [DURATION_S] [INTERVAL]
# and copy the figure into docs/performance.md.
set -euo pipefail

BUILD_DIR=$(cd "${1:-build}" && pwd)
DURATION=${2:-60}
INTERVAL=${3:-1s}
GPUWATCH="$BUILD_DIR/gpuwatch"
[[ -x $GPUWATCH ]] || { echo "missing: $GPUWATCH" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"; [[ -n ${PID:-} ]] && kill "$PID" 2>/dev/null || true' EXIT

cpu_ticks() { awk '{ s = $0; sub(/^.*\) /, "", s); split(s, f, " "); print f[12] + f[13] }' "/proc/$1/stat"; }

"$GPUWATCH" --simulate demo run --no-record --interval "$INTERVAL" --summary-json "$OUT/s.json" \
  -- sleep $((DURATION + 5)) 2>"$OUT/err" &
PID=$!
sleep 3  # start-up (NVML, the simulated driver, the first samples) is not the steady cost
start=$(cpu_ticks "$PID")
t0=$(date +%s.%N)
sleep "$DURATION"
end=$(cpu_ticks "$PID")
t1=$(date +%s.%N)
hz=$(getconf CLK_TCK)
wait "$PID" || true
PID=
python3 - "$start" "$end" "$t0" "$t1" "$hz" "$INTERVAL" <<'PY'
import sys
start, end, t0, t1, hz = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
cpu = (end - start) / hz
wall = t1 - t0
print(f"gpuwatch run, 8 simulated GPUs, interval {sys.argv[6]}: {cpu:.2f} s CPU over {wall:.1f} s = "
      f"{100 * cpu / wall:.3f} % of one core")
PY
grep -q '"uses_gpu": false' "$OUT/s.json" && echo "(the sleeping job used no GPU, as expected)"
