#!/usr/bin/env bash
# `gpuwatch history --since all` over 24 hours of 8 GPUs sampled every second (691,200 GPU rows):
# wall time and peak RSS of each format, as a user runs it. Streamed, the output never sits in
# memory: the CSV and JSONL peaks stay flat, the table keeps only its cells (issue 31's leftover;
# before, every row was a whole Snapshot: 10.8 GB). Not a timed test: run by hand,
#   bench/history_24h.sh [BUILD_DIR] [MAX_RSS_MB]
# and copy the figures into docs/performance.md. Exits 1 when a peak exceeds MAX_RSS_MB (256).
# The history is made once by `gpuwatch sim record demo --duration 24h` and kept in
# BUILD_DIR/bench-history-24h.db for later runs (delete it to make it again).
set -euo pipefail

BUILD_DIR=$(cd "${1:-build}" && pwd)
MAX_RSS_MB=${2:-256}
GPUWATCH="$BUILD_DIR/gpuwatch"
DB="$BUILD_DIR/bench-history-24h.db"
export GPUWATCH_SIM_DRIVER_DIR=${GPUWATCH_SIM_DRIVER_DIR:-$BUILD_DIR/sim-driver}

if [[ ! -e $DB ]]; then
  "$GPUWATCH" sim record demo --duration 24h --interval 1s --db "$DB.tmp"
  mv "$DB.tmp" "$DB"
fi
status=0
times=$(mktemp)
trap 'rm -f "$times"' EXIT
for format in table csv jsonl; do
  /usr/bin/time -o "$times" -f "%e %M" "$GPUWATCH" history --db "$DB" --since all --format "$format" >/dev/null 2>&1
  read -r seconds rss_kb <"$times"
  echo "history --since all --format $format: $seconds s, peak RSS $((rss_kb / 1024)) MB"
  if (( rss_kb / 1024 > MAX_RSS_MB )); then
    echo "  over the bound of $MAX_RSS_MB MB" >&2
    status=1
  fi
done
exit $status
