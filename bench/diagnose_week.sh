#!/usr/bin/env bash
# `gpuwatch diagnose --since all` over 7 days of 8 GPUs (issue 23: within 3x one plain SQLite
# scan of the same rows), both measured in this one run, on the same file, warm cache:
#   * diagnose: the command as a user runs it (read, diagnose, group, render the text);
#   * scan: the sqlite3 shell reading every row and column the diagnosis reads (the engine's
#     input columns of gpu_samples in time order, and the process rows), printed to /dev/null;
#   * sums: the same columns summed in SQL (no row leaves SQLite: the least a reader can do).
# Not a timed test: run by hand,
#   bench/diagnose_week.sh [BUILD_DIR] [INTERVAL] [RUNS]
# and copy the figures into docs/performance.md. Exits 1 when diagnose takes over 3x the scan.
# The history is made once by `gpuwatch sim record demo --duration 7d --interval INTERVAL`
# (demo: 8 GPUs; 10s by default: 483,840 GPU rows) and kept in
# BUILD_DIR/bench-diagnose-week-INTERVAL.db for later runs (delete it to make it again).
set -euo pipefail

BUILD_DIR=$(cd "${1:-build}" && pwd)
INTERVAL=${2:-10s}
RUNS=${3:-3}
GPUWATCH="$BUILD_DIR/gpuwatch"
DB="$BUILD_DIR/bench-diagnose-week-$INTERVAL.db"
export GPUWATCH_SIM_DRIVER_DIR=${GPUWATCH_SIM_DRIVER_DIR:-$BUILD_DIR/sim-driver}
command -v sqlite3 >/dev/null || { echo "bench/diagnose_week.sh needs the sqlite3 shell" >&2; exit 2; }

if [[ ! -e $DB ]]; then
  "$GPUWATCH" sim record demo --duration 7d --interval "$INTERVAL" --db "$DB.tmp"
  mv "$DB.tmp" "$DB"
fi

# The columns of gpu_samples the diagnosis reads (diagnose/input_fields.cpp; the fields the
# file has no column for are read as NULL by gpuwatch and skipped here).
wanted="utilization_gpu_percent utilization_memory_percent memory_used_bytes memory_total_bytes temperature_gpu_c
temperature_gpu_slowdown_c power_draw_mw power_draw_average_mw power_draw_instant_mw power_limit_mw
enforced_power_limit_mw power_default_limit_mw clocks_current_graphics_mhz clocks_current_sm_mhz
clocks_max_graphics_mhz clocks_max_sm_mhz clocks_event_reasons_active ecc_errors_uncorrected_aggregate_total
ecc_errors_uncorrected_volatile_total gpu_recovery_action pcie_link_gen_current pcie_link_gen_max
pcie_link_width_current pcie_link_width_max gpm_sm_active_percent utilization_gpu_idle_percent utilization_gpu_idle_gaps"
present=$(sqlite3 "$DB" "SELECT name FROM pragma_table_info('gpu_samples')")
columns=() sums=()
for c in $wanted; do
  if grep -qx "$c" <<<"$present"; then columns+=("$c"); sums+=("sum($c)"); fi
done
cols=$(IFS=,; echo "${columns[*]}")
sum_cols=$(IFS=,; echo "${sums[*]}")
scan_sql="SELECT time_ms, gpu_id, $cols FROM gpu_samples ORDER BY time_ms, gpu_id;
SELECT time_ms, gpu_id, pid, name, type, used_memory_bytes FROM process_samples ORDER BY time_ms, gpu_id;"
sums_sql="SELECT count(*), $sum_cols FROM gpu_samples; SELECT count(*), sum(pid), sum(length(name)), sum(type), sum(used_memory_bytes) FROM process_samples;"
rows=$(sqlite3 "$DB" "SELECT count(*) FROM gpu_samples")
process_rows=$(sqlite3 "$DB" "SELECT count(*) FROM process_samples")

times=$(mktemp)
trap 'rm -f "$times"' EXIT
best() {  # the best of RUNS wall times of "$@", in seconds
  local best_s="" t
  for ((i = 0; i < RUNS; i++)); do
    /usr/bin/time -o "$times" -f "%e" "$@" >/dev/null 2>&1
    t=$(tail -1 "$times")
    if [[ -z $best_s ]] || awk "BEGIN{exit !($t < $best_s)}"; then best_s=$t; fi
  done
  echo "$best_s"
}
cat "$DB" >/dev/null  # warm the page cache for all three
diagnose_s=$(best "$GPUWATCH" diagnose --db "$DB" --since all --fail-on never)
scan_s=$(best sqlite3 "$DB" "$scan_sql")
sums_s=$(best sqlite3 "$DB" "$sums_sql")
echo "history: $DB ($rows GPU rows, $process_rows process rows, ${#columns[@]} columns read)"
echo "diagnose --since all: $diagnose_s s (best of $RUNS)"
echo "plain SQLite scan (sqlite3, same rows and columns, to /dev/null): $scan_s s"
echo "SQLite sums of the same columns (nothing leaves SQLite): $sums_s s"
ratio=$(awk "BEGIN{printf \"%.2f\", $diagnose_s / ($scan_s > 0 ? $scan_s : 0.01)}")
ratio_sums=$(awk "BEGIN{printf \"%.2f\", $diagnose_s / ($sums_s > 0 ? $sums_s : 0.01)}")
echo "diagnose / scan: ${ratio}x (target <= 3x); diagnose / sums: ${ratio_sums}x"
awk "BEGIN{exit !($ratio <= 3)}" || { echo "over 3x the plain scan" >&2; exit 1; }
