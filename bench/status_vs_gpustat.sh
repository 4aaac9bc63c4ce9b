#!/usr/bin/env bash
# `gpuwatch status --json` vs `gpustat --json`, each as a whole process, on the same
# simulated node (default: the 8-GPU `demo` scenario) at the same scenario time.
# Issue 3's target: gpuwatch at least 20x faster. Not a timed test: run by hand,
#   bench/status_vs_gpustat.sh [BUILD_DIR] [SCENARIO]
# and copy the figures into docs/performance.md. Needs hyperfine (scripts/install-deps).
set -euo pipefail

BUILD_DIR=$(cd "${1:-build}" && pwd)
SCENARIO=${2:-demo}
RUNS=${RUNS:-30}
GPUWATCH="$BUILD_DIR/gpuwatch"
DRIVER_DIR="$BUILD_DIR/sim-driver"

for tool in hyperfine /usr/bin/gpustat "$GPUWATCH" "$DRIVER_DIR/libnvidia-ml.so.1"; do
  command -v "$tool" >/dev/null || [[ -e $tool ]] || { echo "missing: $tool" >&2; exit 1; }
done

export GPUWATCH_SIM_SCENARIO="$SCENARIO"
export GPUWATCH_SIM_EPOCH_MS=$(( $(date +%s) * 1000 - 60000 ))   # one minute into the scenario
export LD_LIBRARY_PATH="$DRIVER_DIR"                               # gpustat's pynvml finds the sim here
unset NO_COLOR

# Both must succeed and see the same GPUs before timing means anything.
ours=$("$GPUWATCH" --nvml-library "$DRIVER_DIR/libnvidia-ml.so.1" status --json)
theirs=$(/usr/bin/gpustat --json)
/usr/bin/python3 - "$ours" "$theirs" <<'PY'
import json, sys
ours, theirs = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert [g["uuid"] for g in ours["gpus"]] == [g["uuid"] for g in theirs["gpus"]], "different GPUs"
print(f"same {len(ours['gpus'])} GPUs in both outputs")
PY

results=$(mktemp --suffix=.json)
trap 'rm -f "$results"' EXIT
hyperfine --shell=none --warmup 3 --runs "$RUNS" --export-json "$results" \
  --command-name "gpuwatch status --json" "$GPUWATCH --nvml-library $DRIVER_DIR/libnvidia-ml.so.1 status --json" \
  --command-name "gpustat --json" "/usr/bin/gpustat --json"

/usr/bin/python3 - "$results" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
ours, theirs = r["gpuwatch status --json"], r["gpustat --json"]
ratio = theirs["mean"] / ours["mean"]
print(f"gpuwatch status --json: mean {ours['mean']*1e3:.1f} ms (min {ours['min']*1e3:.1f} ms)")
print(f"gpustat --json:         mean {theirs['mean']*1e3:.1f} ms (min {theirs['min']*1e3:.1f} ms)")
print(f"gpuwatch is {ratio:.1f}x faster (target: 20x) -> {'PASS' if ratio >= 20 else 'FAIL'}")
sys.exit(0 if ratio >= 20 else 1)
PY
