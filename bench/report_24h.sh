#!/usr/bin/env bash
# `gpuwatch report -o report.html` over 24 hours of 8 GPUs sampled every second (691,200 GPU
# rows): the whole command, as a user runs it (open the database, the figures of every source,
# the diagnosis of the range with its Xid events, the HTML page with charts written to disk).
# Issue 12's target: under 2 s. Not a timed test: run by hand,
#   bench/report_24h.sh [BUILD_DIR] [SCENARIO]
# and copy the figures into docs/performance.md. The history is made once by
# `gpuwatch sim record SCENARIO --duration 24h` (default: the 8-GPU `demo` node) and kept in
# BUILD_DIR/bench-report-24h-SCENARIO.db for later runs (delete it to make it again). Needs hyperfine.
set -euo pipefail

BUILD_DIR=$(cd "${1:-build}" && pwd)
SCENARIO=${2:-demo}
RUNS=${RUNS:-5}
GPUWATCH="$BUILD_DIR/gpuwatch"
DB="$BUILD_DIR/bench-report-24h-$SCENARIO.db"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for tool in hyperfine "$GPUWATCH"; do
  command -v "$tool" >/dev/null || [[ -e $tool ]] || { echo "missing: $tool" >&2; exit 1; }
done

if [[ ! -e $DB ]]; then
  "$GPUWATCH" sim record "$SCENARIO" --duration 24h --interval 1s --db "$DB.tmp"
  mv "$DB.tmp" "$DB"
fi
# The history ends when it was made: report from its first sample on.
rows=$(/usr/bin/python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM gpu_samples").fetchone()[0])' "$DB")
echo "history: $DB, $rows GPU rows"
"$GPUWATCH" report --db "$DB" --since all -o "$OUT/report.html" >/dev/null
echo "page: $(stat -c %s "$OUT/report.html") bytes"
hyperfine --shell=none --warmup 1 --runs "$RUNS" \
  "$GPUWATCH report --db $DB --since all -o $OUT/report.html --format json"
