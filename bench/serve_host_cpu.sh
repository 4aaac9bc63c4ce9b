#!/usr/bin/env bash
# Issue 25's host-signal cost: "the host signals add at most 5 % to serve's CPU at 1 s". Runs, side
# by side at the same time (so that both see the same load on the machine), ROUNDS times,
#   A: gpuwatch --simulate bench/serve_node.yaml serve --no-record --interval 1s --no-host
#   B: the same with the host signals on (the default): the collector's host thread reads this
#      machine's /proc and /sys every second (serve_node.yaml describes no simulated host, so the
#      real files are read), with the 50 GPU processes as process-tree roots (read every 5 s)
# both for DURATION seconds after it is ready (/readyz) and WARMUP seconds more, reading the time
# every thread of the gpuwatch process ran, in nanoseconds (/proc/PID/task/*/schedstat: the 10 ms
# ticks of /proc/PID/stat are too coarse for a 5 % difference of ~0.5 % of a core). A scrape of /metrics every
# SCRAPE seconds in both (as Prometheus would; the host series make the body longer). Prints each
# round's and the total CPU % of one core and B over A; exits 1 when B is more than LIMIT % above A
# or a serve did not start (or is not built), 2 when A served host series or B none, 77 when curl
# is missing. The scaffolding (serves, schedstat, side by side) is bench/lib/serve_cpu.sh's, shared
# with bench/push_cpu.sh. Not in CI (minutes, and load-sensitive).
#
#   bench/serve_host_cpu.sh [BUILD_DIR]                 (default: build)
#   DURATION=60 ROUNDS=2 WARMUP=3 INTERVAL=1s SCRAPE=5 LIMIT=5 bench/serve_host_cpu.sh /work/bu
#   (SCENARIO=bench/serve_node.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH=serve_host_cpu
BUILD_DIR=${1:-build}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
INTERVAL=${INTERVAL:-1s}
SCRAPE=${SCRAPE:-5}
LIMIT=${LIMIT:-5}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
GPUWATCH=$BUILD_DIR/gpuwatch
# shellcheck source-path=SCRIPTDIR/..
source bench/lib/serve_cpu.sh
awk -v s="$SCRAPE" 'BEGIN { exit !(s > 0) }' || { echo "serve_host_cpu: SCRAPE must be over 0 (the host series are read from the scrapes)" >&2; exit 1; }

echo "serve_host_cpu: $SCENARIO, --interval $INTERVAL, ${DURATION}s per round, a scrape every ${SCRAPE}s, $ROUNDS rounds of serve --no-host and serve (host signals on) side by side"
off_c=0 on_c=0 wall=0 host_series=0
for ((r = 1; r <= ROUNDS; r++)); do
  measure_pair "off$r" "on$r" "$SCRAPE" --no-host --
  off_host_series=$(grep -c '^gpuwatch_host_' "$TMP/off$r.prom" || true)
  on_host_series=$(grep -c '^gpuwatch_host_' "$TMP/on$r.prom" || true)
  ((off_host_series == 0)) || { echo "serve_host_cpu: --no-host served $off_host_series host series" >&2; exit 2; }
  off_c=$((off_c + A_CPU)); on_c=$((on_c + B_CPU)); wall=$((wall + WALL)); host_series=$on_host_series
  echo "  round $r ($(secs "$WALL") s): serve --no-host $(pct "$A_CPU" "$WALL") % of a core, serve (host on) $(pct "$B_CPU" "$WALL") % ($on_host_series host series)"
done
((host_series > 0)) || { echo "serve_host_cpu: the host signals were on but /metrics had no gpuwatch_host_ series" >&2; exit 2; }
off=$(pct "$off_c" "$wall")
on=$(pct "$on_c" "$wall")
more=$(awk -v a="$off" -v b="$on" 'BEGIN { printf "%.1f", (a > 0) ? 100 * (b - a) / a : 0 }')
echo "serve --no-host:      $off % of a core"
echo "serve (host signals): $on % of a core"
echo "host signals add:     $more % (limit $LIMIT %)"
awk -v m="$more" -v l="$LIMIT" 'BEGIN { exit !(m <= l) }' || { echo "serve_host_cpu: over the limit" >&2; exit 1; }
echo "serve_host_cpu: within the limit"
