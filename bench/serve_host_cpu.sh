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
# round's and the total CPU % of one core and B over A; exits 1 when B is more than LIMIT % above A,
# 2 when A served host series or B none.
# Not in CI (minutes, and load-sensitive).
#
#   bench/serve_host_cpu.sh [BUILD_DIR]                 (default: build)
#   DURATION=60 ROUNDS=2 INTERVAL=1s LIMIT=5 bench/serve_host_cpu.sh /work/bu
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
INTERVAL=${INTERVAL:-1s}
SCRAPE=${SCRAPE:-5}
LIMIT=${LIMIT:-5}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
GPUWATCH=$BUILD_DIR/gpuwatch
[[ -x $GPUWATCH ]] || { echo "serve_host_cpu: $GPUWATCH not built" >&2; exit 1; }
command -v curl >/dev/null || { echo "serve_host_cpu: curl missing" >&2; exit 77; }

TMP=$(mktemp -d /tmp/gpuwatch-host-cpu.XXXXXX)
SERVE_PIDS=""
cleanup() {
  for pid in $SERVE_PIDS; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ns on a CPU, summed over the threads (serve's threads live as long as it does)
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ s += $1 } END { printf "%d", s }'; }
now_ns() { date +%s%N; }

# start_serve LABEL [serve flags...]: starts serve, waits until /readyz; sets PID_OUT and URL_OUT.
start_serve() {
  local label=$1
  shift
  XDG_STATE_HOME=$TMP/state "$GPUWATCH" --simulate "$SCENARIO" serve --no-record --listen 127.0.0.1:0 \
    --interval "$INTERVAL" "$@" >"$TMP/$label.out" 2>"$TMP/$label.err" &
  PID_OUT=$!
  local url="" i
  for ((i = 0; i < 150; i++)); do
    url=$(grep -o 'http://[^ ]*/metrics' "$TMP/$label.out" | head -1 || true)
    [[ -n $url ]] && break
    kill -0 "$PID_OUT" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "serve_host_cpu: serve ($label) did not start: $(cat "$TMP/$label.err")" >&2; exit 1; }
  for ((i = 0; i < 150; i++)); do curl -sf -o /dev/null "${url%/metrics}/readyz" && break; sleep 0.1; done
  URL_OUT=$url
}

# run_pair ROUND: both serves side by side, at the same time (the same load on the machine), for
# DURATION seconds; sets OFF_CPU, ON_CPU, WALL (ns) and ON_HOST_SERIES, OFF_HOST_SERIES.
run_pair() {
  local r=$1 off_pid on_pid off_url on_url
  start_serve "off$r" --no-host
  off_pid=$PID_OUT off_url=$URL_OUT
  SERVE_PIDS="$off_pid"
  start_serve "on$r"
  on_pid=$PID_OUT on_url=$URL_OUT
  SERVE_PIDS="$off_pid $on_pid"
  sleep "$WARMUP"
  local a0 b0 n0 a1 b1 n1 end
  a0=$(cpu_ns "$off_pid"); b0=$(cpu_ns "$on_pid"); n0=$(now_ns)
  end=$((SECONDS + DURATION))
  while ((SECONDS < end)); do
    curl -sf -o "$TMP/off$r.prom" "$off_url" || true
    curl -sf -o "$TMP/on$r.prom" "$on_url" || true
    sleep "$SCRAPE"
  done
  a1=$(cpu_ns "$off_pid"); b1=$(cpu_ns "$on_pid"); n1=$(now_ns)
  OFF_HOST_SERIES=$(grep -c '^gpuwatch_host_' "$TMP/off$r.prom" || true)
  ON_HOST_SERIES=$(grep -c '^gpuwatch_host_' "$TMP/on$r.prom" || true)
  kill "$off_pid" "$on_pid"; wait "$off_pid" "$on_pid" 2>/dev/null || true
  SERVE_PIDS=""
  OFF_CPU=$((a1 - a0)) ON_CPU=$((b1 - b0)) WALL=$((n1 - n0))
}

pct() { awk -v c="$1" -v w="$2" 'BEGIN { printf "%.4f", 100 * c / w }'; }
secs() { awk -v w="$1" 'BEGIN { printf "%.3f", w / 1e9 }'; }

echo "serve_host_cpu: $SCENARIO, --interval $INTERVAL, ${DURATION}s per round, a scrape every ${SCRAPE}s, $ROUNDS rounds of serve --no-host and serve (host signals on) side by side"
off_c=0 on_c=0 wall=0 host_series=0
for ((r = 1; r <= ROUNDS; r++)); do
  run_pair "$r"
  ((OFF_HOST_SERIES == 0)) || { echo "serve_host_cpu: --no-host served $OFF_HOST_SERIES host series" >&2; exit 2; }
  off_c=$((off_c + OFF_CPU)); on_c=$((on_c + ON_CPU)); wall=$((wall + WALL)); host_series=$ON_HOST_SERIES
  echo "  round $r ($(secs "$WALL") s): serve --no-host $(pct "$OFF_CPU" "$WALL") % of a core, serve (host on) $(pct "$ON_CPU" "$WALL") % ($ON_HOST_SERIES host series)"
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
