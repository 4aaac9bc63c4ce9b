#!/usr/bin/env bash
# Issue 4's footprint benchmark: `gpuwatch serve --per-process-metrics` at 1 s sampling on
# the simulated 8-GPU / 50-process node (bench/serve_node.yaml) for DURATION seconds while
# a Prometheus-like scraper GETs /metrics every SCRAPE_EVERY seconds, then reports from
# /proc/PID: the largest RSS (VmHWM, and the largest VmRSS seen once a second) and the
# average CPU as % of one core ((utime + stime) / wall time, every thread of the process,
# from readiness to the end). Targets: RSS <= 25 MB, CPU <= 1 % of one core. serve records
# its history as by default (SQLite, a flush every 5 s), into a database in a temporary folder.
#
#   bench/serve_footprint.sh [BUILD_DIR]     (default: build)
#   DURATION=300 SCRAPE_EVERY=5 INTERVAL=1s EXTRA_ARGS=--no-record bench/serve_footprint.sh build
#
# The CPU figure is the process's own CPU time, so other load on the machine changes
# it little. The simulated driver runs inside the process (its NVML calls are counted).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
DURATION=${DURATION:-300}
SCRAPE_EVERY=${SCRAPE_EVERY:-5}
INTERVAL=${INTERVAL:-1s}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
EXTRA_ARGS=${EXTRA_ARGS:-}
GPUWATCH=$BUILD_DIR/gpuwatch
[[ -x $GPUWATCH ]] || { echo "serve_footprint: $GPUWATCH not built (make build)" >&2; exit 1; }
command -v curl >/dev/null || { echo "serve_footprint: curl missing" >&2; exit 77; }

TMP=$(mktemp -d /tmp/gpuwatch-serve-footprint.XXXXXX)
SERVE_PID=""
cleanup() {
  if [[ -n $SERVE_PID ]]; then
    kill "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

DB_ARGS=(--db "$TMP/history.db")
[[ " $EXTRA_ARGS " == *" --no-record "* ]] && DB_ARGS=()
# shellcheck disable=SC2086  # EXTRA_ARGS: extra serve flags, word-split on purpose
"$GPUWATCH" --simulate "$SCENARIO" serve --listen 127.0.0.1:0 --per-process-metrics --interval "$INTERVAL" \
  "${DB_ARGS[@]}" $EXTRA_ARGS >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
for ((i = 0; i < 150; i++)); do
  grep -q "listening on" "$TMP/serve.out" && break
  kill -0 "$SERVE_PID" 2>/dev/null || break
  sleep 0.1
done
URL=$(grep -o 'http://[^ ]*/metrics' "$TMP/serve.out" | head -1 || true)
[[ -n $URL ]] || { echo "serve_footprint: serve did not start: $(cat "$TMP/serve.err")" >&2; exit 1; }
for ((i = 0; i < 150; i++)); do
  curl -sf -o /dev/null "${URL%/metrics}/readyz" && break
  sleep 0.1
done

TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$SERVE_PID/stat"; }  # utime + stime
kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$SERVE_PID/status"; }
now_ns() { date +%s%N; }

start_ticks=$(cpu_ticks)
start_ns=$(now_ns)
threads=$(kb Threads)
max_rss=0
scrapes=0
failed=0
body_bytes=0
next_scrape=0
echo "serve_footprint: pid $SERVE_PID, $URL, ${DURATION}s at --interval $INTERVAL, a scrape every ${SCRAPE_EVERY}s"
for ((t = 0; t < DURATION; t++)); do
  if ((t >= next_scrape)); then
    if bytes=$(curl -sf --max-time 5 -w '%{size_download}' -o /dev/null "$URL"); then
      scrapes=$((scrapes + 1))
      body_bytes=$bytes
    else
      failed=$((failed + 1))
    fi
    next_scrape=$((t + SCRAPE_EVERY))
  fi
  rss=$(kb VmRSS)
  ((rss > max_rss)) && max_rss=$rss
  if ((t % 60 == 59)); then
    echo "  ${t}s: RSS $((rss / 1024)) MB, CPU so far $(awk -v c="$(( $(cpu_ticks) - start_ticks ))" -v tk="$TICKS" \
      -v w="$(( $(now_ns) - start_ns ))" 'BEGIN { printf "%.2f", 100 * c / tk / (w / 1e9) }') %"
  fi
  sleep 1
done
end_ticks=$(cpu_ticks)
end_ns=$(now_ns)
hwm=$(kb VmHWM)
rss=$(kb VmRSS)

awk -v c="$((end_ticks - start_ticks))" -v tk="$TICKS" -v w="$((end_ns - start_ns))" -v hwm="$hwm" \
  -v maxrss="$max_rss" -v rss="$rss" -v scrapes="$scrapes" -v failed="$failed" -v bytes="$body_bytes" \
  -v threads="$threads" 'BEGIN {
  wall = w / 1e9; cpu = 100 * c / tk / wall; hwm_mb = hwm / 1024; max_mb = maxrss / 1024
  printf "\n| measure (%.0f s, %d scrapes of %d bytes, %d failed, %d threads) | value | target |\n", wall, scrapes, bytes, failed, threads
  print "|---|---|---|"
  printf "| peak RSS (VmHWM) | %.1f MB | <= 25 MB: %s |\n", hwm_mb, (hwm_mb <= 25 ? "met" : "MISSED")
  printf "| largest VmRSS seen (1 s polls); at the end | %.1f MB; %.1f MB | |\n", max_mb, rss / 1024
  printf "| CPU, (utime+stime)/wall | %.2f %% of one core (%.2f s in %.0f s) | <= 1 %%: %s |\n", cpu, c / tk, wall, (cpu <= 1 ? "met" : "MISSED")
}'
