#!/usr/bin/env bash
# The speed guard (issue 26): catches the next slowdown of the commands people run most, with
# figures a shared machine's noise cannot move. Run by .ci/run after `make test`.
#
#  * Work: user-space instructions (callgrind; `perf stat` is not supported on these machines)
#    of seven workloads on the simulated driver, each against its baseline in
#    bench/speed_baselines.txt. More than 20 % over a baseline fails.
#  * Threads: the clone/clone3 calls of 10 dmon samples on 8 GPUs (strace). The watch loops keep
#    one sampling thread per GPU; a thread per GPU per sample (80) fails.
#  * Waiting: wall time, best of several runs, as a ratio to the C client of the same NVML calls
#    (bench/nvml_c_client.c) run alternately in the same loop: `status --json` and one `dmon`
#    sample. A sleep costs no instructions, so this is what catches one. Over 3x fails.
#
#   bench/speed_guard.sh [BUILD_DIR]            check (exit 1 on a regression, saying which)
#   bench/speed_guard.sh [BUILD_DIR] --update   measure and rewrite the baselines
# Updating a baseline is a reviewed commit that says why the work grew or shrank.
# Needs valgrind, strace and tmux (scripts/install-deps).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-build}")
mode=${2:-check}
baselines=$root/bench/speed_baselines.txt
tolerance=20       # % over a baseline that fails
wait_bound=3.0     # x the C client that fails
thread_bound=16    # clone calls in 10 dmon samples on 8 GPUs (one thread per GPU: 8)

gw=$build/gpuwatch
driver=$build/sim-driver/libnvidia-ml.so.1
client=$build/bench/nvml_c_client
for need in "$gw" "$driver" "$client" "$build/src/capi/libgpuwatch.so.1"; do
  [[ -e $need ]] || { echo "speed-guard: missing $need (build it first: make build)" >&2; exit 2; }
done
for tool in valgrind callgrind_control strace tmux; do
  command -v "$tool" >/dev/null || { echo "speed-guard: $tool is missing: run scripts/install-deps" >&2; exit 2; }
done

tmp=$(mktemp -d /tmp/gpuwatch-speed-guard.XXXXXX)
tmux_socket="speed-guard-$$"
serve_pid=""
cleanup() {
  [[ -n $serve_pid ]] && kill "$serve_pid" 2>/dev/null || true
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true
  sleep 0.2
  rm -rf "$tmp" 2>/dev/null || true
}
trap cleanup EXIT

# The same inputs every run: no history of the user's, no colour, UTC, one minute into the scenario.
export HOME=$tmp/home XDG_STATE_HOME=$tmp/home/state NO_COLOR=1 TZ=UTC PYTHONHASHSEED=0 LC_ALL=C.UTF-8
mkdir -p "$HOME"
export GPUWATCH_SIM_SCENARIO=demo
export GPUWATCH_SIM_EPOCH_MS=$(( $(date +%s) * 1000 - 60000 ))
unset GPUWATCH_SIM_SPEED || true

declare -A work=()

# Instructions of a whole command under callgrind.
instructions() {  # name command...
  local name=$1 out=$tmp/$1.callgrind
  shift
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err" ||
    { echo "speed-guard: $name failed under callgrind:" >&2; tail -5 "$tmp/$name.err" >&2; exit 2; }
  work[$name]=$(awk '/^summary:/ {print $2; exit}' "$out")
}

# Instructions of a running program between two points: zeroed, then dumped.
callgrind_pid() {  # output file prefix
  local pid=""
  for _ in $(seq 1 200); do
    pid=$(pgrep -f "^/usr/bin/valgrind[.a-z]* .*callgrind-out-file=$1" | head -1 || true)
    [[ -n $pid ]] && { echo "$pid"; return; }
    sleep 0.1
  done
  echo "speed-guard: the program did not start under valgrind" >&2
  exit 2
}
dumped_total() {  # pid prefix
  callgrind_control -d "$1" >/dev/null 2>&1
  local file=""
  for _ in $(seq 1 100); do
    file=$(ls "$2".*.1 2>/dev/null | head -1 || true)
    [[ -n $file ]] && break
    sleep 0.1
  done
  [[ -n $file ]] || { echo "speed-guard: no callgrind dump from $2" >&2; exit 2; }
  sleep 0.2  # the dump is written whole before the next command reads it
  awk '/^summary:/ {print $2; exit}' "$file"
}

measure_work() {
  local nvml=(--nvml-library "$driver")
  instructions status_json "$gw" "${nvml[@]}" status --json --timeout 60s
  instructions dmon_10_samples "$gw" "${nvml[@]}" dmon -c 10 --timeout 60s

  # One /metrics scrape of the 8-GPU, 50-process node: serve samples once an hour here, so only
  # the scrapes are counted; 20 of them, divided by 20, each 0.1 s after the last so that none
  # reuses the body of the one before (exporter/metrics_cache.hpp: a 50 ms window).
  local prefix=$tmp/serve.callgrind
  # Only the routes' own work is counted (--toggle-collect on their handlers: the cache, the
  # encoding and the answer), not serve's other threads, whose wake-ups in the window vary.
  local route='std::_Function_handler<void (gpuwatch::exporter::http::HttpRequest const&, gpuwatch::exporter::http::HttpResponse&), gpuwatch::exporter::(anonymous namespace)::add_routes*'
  valgrind --tool=callgrind --callgrind-out-file="$prefix.%p" --collect-atstart=no --toggle-collect="$route" \
    "$gw" --simulate "$root/bench/serve_node.yaml" \
    serve --listen 127.0.0.1:0 --per-process-metrics --no-record --no-alerts --no-attribution --interval 1h \
    --stale-after 2h \
    >"$tmp/serve.out" 2>"$tmp/serve.err" &
  serve_pid=$!
  local url=""
  for _ in $(seq 1 600); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.out" 2>/dev/null | head -1 || true)
    [[ -n $url ]] && break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "speed-guard: serve did not start:" >&2; tail -5 "$tmp/serve.err" >&2; exit 2; }
  # Counted once every GPU's first sample is in (under callgrind that takes a few seconds).
  local ready=0
  for _ in $(seq 1 600); do
    curl -sf "$url/metrics" -o "$tmp/metrics.txt" || true
    if grep -q '^gpuwatch_.*gpu="7"' "$tmp/metrics.txt" 2>/dev/null; then ready=1; break; fi
    sleep 0.2
  done
  ((ready)) || { echo "speed-guard: serve's /metrics never showed GPU 7" >&2; exit 2; }
  curl -sf "$url/metrics" -o /dev/null  # one more, so that every cache is warm
  local pid
  pid=$(callgrind_pid "$prefix")
  callgrind_control -z "$pid" >/dev/null 2>&1
  for _ in $(seq 1 20); do
    sleep 0.1
    curl -sf "$url/metrics" -o "$tmp/metrics.txt"
  done
  local total
  total=$(dumped_total "$pid" "$prefix")
  work[metrics_scrape]=$(( total / 20 ))
  kill "$serve_pid" 2>/dev/null || true
  wait "$serve_pid" 2>/dev/null || true
  serve_pid=""
  grep -q '^gpuwatch_' "$tmp/metrics.txt" || { echo "speed-guard: /metrics had no gpuwatch series" >&2; exit 2; }

  # report over a fixed hour, diagnose over a fixed day (recorded on the simulator's clock).
  unset GPUWATCH_SIM_SCENARIO
  "$gw" sim record demo --duration 1h --interval 1s --db "$tmp/hour.db" >/dev/null
  "$gw" sim record demo --duration 24h --interval 10s --db "$tmp/day.db" >/dev/null
  instructions report_1h "$gw" report --db "$tmp/hour.db" --since all
  instructions diagnose_day "$gw" diagnose --db "$tmp/day.db" --since all --fail-on never
  export GPUWATCH_SIM_SCENARIO=demo

  # 10 s of top in a 200x50 terminal, after 5 s of warm-up.
  prefix=$tmp/top.callgrind
  tmux -L "$tmux_socket" -f /dev/null new-session -d -x 200 -y 50 \
    "valgrind --tool=callgrind --callgrind-out-file=$prefix.%p $gw --simulate demo top -d 1s 2>$tmp/top.err; sleep 60"
  pid=$(callgrind_pid "$prefix")
  sleep 5
  callgrind_control -z "$pid" >/dev/null 2>&1
  sleep 10
  work[top_10s]=$(dumped_total "$pid" "$prefix")
  tmux -L "$tmux_socket" kill-server 2>/dev/null || true

  # 10,000 monitor.step() calls: the same script with 10,000 calls and with none, the difference.
  local steps_py=$tmp/steps.py
  cat >"$steps_py" <<'PY'
import sys
import gpuwatch
calls = int(sys.argv[1])
with gpuwatch.Monitor(interval=3600) as m:
    for i in range(calls):
        m.step(i, loss=0.5)
PY
  # (exported, not through env(1): valgrind follows no exec)
  export PYTHONPATH=$root/python GPUWATCH_LIBRARY=$build/src/capi/libgpuwatch.so.1 LD_LIBRARY_PATH=$build/sim-driver
  instructions monitor_none /usr/bin/python3 "$steps_py" 0
  instructions monitor_steps /usr/bin/python3 "$steps_py" 10000
  unset PYTHONPATH GPUWATCH_LIBRARY LD_LIBRARY_PATH
  work[monitor_step_10k]=$(( work[monitor_steps] - work[monitor_none] ))
  unset 'work[monitor_none]' 'work[monitor_steps]'
}

names=(status_json dmon_10_samples metrics_scrape report_1h diagnose_day top_10s monitor_step_10k)

measure_work
failed=0

if [[ $mode == --update ]]; then
  {
    echo "# Baselines of bench/speed_guard.sh: instructions (callgrind) per workload on the simulated"
    echo "# driver. A change that moves one by more than 20 % updates it here, in a commit that says why."
    echo "# Measured $(date -u +%F) with: bench/speed_guard.sh build --update"
    for name in "${names[@]}"; do echo "$name ${work[$name]}"; done
  } >"$baselines"
  echo "speed-guard: baselines written to bench/speed_baselines.txt"
fi

echo "speed-guard: work, in instructions (callgrind), against bench/speed_baselines.txt (fails over +${tolerance} %)"
printf '  %-18s %14s %14s %9s\n' workload baseline now change
for name in "${names[@]}"; do
  now=${work[$name]}
  base=$(awk -v n="$name" '$1 == n {print $2}' "$baselines" 2>/dev/null || true)
  if [[ -z $base ]]; then
    printf '  %-18s %14s %14s %9s  FAIL: no baseline\n' "$name" - "$now" -
    failed=1
    continue
  fi
  change=$(awk -v a="$now" -v b="$base" 'BEGIN {printf "%+.1f", (a - b) * 100 / b}')
  verdict=""
  if awk -v c="$change" -v t="$tolerance" 'BEGIN {exit !(c > t)}'; then
    verdict="  FAIL: $name grew ${change} % over its baseline"
    failed=1
  fi
  printf '  %-18s %14s %14s %8s%%%s\n' "$name" "$base" "$now" "$change" "$verdict"
done

# Threads: clone calls of 10 dmon samples.
clones=$(strace -f -c -e trace=clone,clone3 -o "$tmp/dmon.strace" "$gw" --nvml-library "$driver" dmon -c 10 \
  >/dev/null 2>&1; awk '$NF ~ /^clone3?$/ {n += $4} END {print n + 0}' "$tmp/dmon.strace")
verdict=""
if ((clones > thread_bound)); then
  verdict="  FAIL: dmon started $clones threads in 10 samples (a thread per sample?)"
  failed=1
fi
echo "speed-guard: threads started by 10 dmon samples on 8 GPUs: $clones (bound $thread_bound)$verdict"

# Waiting: best of 9 alternate runs against the C client, inside `gpuwatch sim run demo`, so that
# every GPU has live processes (stand-ins) whose /proc a glance reads, as on a real node.
cat >"$tmp/wait.sh" <<'SH'
best_us() {  # the best wall time of 3 runs of a command, in microseconds
  local best=""
  for _ in 1 2 3; do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    local us=$(( (end - start) / 1000 ))
    [[ -z $best || $us -lt $best ]] && best=$us
  done
  echo "$best"
}
declare -A best=()
for _ in 1 2 3; do
  for name in client status dmon; do
    case $name in
      client) us=$(best_us "$1") ;;
      status) us=$(best_us "$2" status --json) ;;
      dmon) us=$(best_us "$2" dmon -c 1) ;;
    esac
    [[ -z ${best[$name]:-} || $us -lt ${best[$name]} ]] && best[$name]=$us
  done
done
echo "client ${best[client]} status ${best[status]} dmon ${best[dmon]}"
[[ $("$1" | grep -c '"processes":[1-9]') -gt 0 ]] || echo "no-processes"
SH
unset GPUWATCH_SIM_SCENARIO GPUWATCH_SIM_EPOCH_MS
waited=($("$gw" sim run demo -- bash "$tmp/wait.sh" "$client" "$gw"))
declare -A best=([client]=${waited[1]} [status]=${waited[3]} [dmon]=${waited[5]})
if [[ ${waited[6]:-} == no-processes ]]; then
  echo "speed-guard: FAIL: the simulated GPUs had no processes while waiting was timed" >&2
  failed=1
fi
echo "speed-guard: waiting (GPUs with processes), best of 9 runs, as a ratio to the C client (fails over ${wait_bound}x)"
printf '  %-16s %9.1f ms\n' "C client" "$(awk -v u="${best[client]}" 'BEGIN {print u / 1000}')"
for name in status dmon; do
  ratio=$(awk -v a="${best[$name]}" -v b="${best[client]}" 'BEGIN {printf "%.2f", a / b}')
  label="status --json"
  [[ $name == dmon ]] && label="dmon, 1 sample"
  verdict=""
  if awk -v r="$ratio" -v b="$wait_bound" 'BEGIN {exit !(r > b)}'; then
    verdict="  FAIL: $label waits ${ratio}x the C client"
    failed=1
  fi
  printf '  %-16s %9.1f ms  %sx%s\n' "$label" "$(awk -v u="${best[$name]}" 'BEGIN {print u / 1000}')" "$ratio" "$verdict"
done

if ((failed)); then
  echo "speed-guard: FAILED (see above; a deliberate change updates bench/speed_baselines.txt with --update, in a commit that says why)" >&2
  exit 1
fi
echo "speed-guard: passed"
