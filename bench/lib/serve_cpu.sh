# shellcheck shell=bash
# bench/lib/serve_cpu.sh: what the benches of serve's CPU cost share (bench/serve_host_cpu.sh: the
# host signals, issue 25; bench/push_cpu.sh: --remote-write, issue 29). Both run two serves of
# bench/serve_node.yaml SIDE BY SIDE, at the same time (both see the same load on the machine), and
# compare the time every thread of each ran, in nanoseconds (/proc/PID/task/*/schedstat: the 10 ms
# ticks of /proc/PID/stat are too coarse for differences of hundredths of a percent of a core).
#
# Source it from the repository root (the scripts `cd` there first), after setting:
#   BENCH     the script's name: the prefix of its messages and of its temporary folder
#   GPUWATCH  the gpuwatch binary            SCENARIO  the --simulate scenario file
#   INTERVAL  serve's --interval             WARMUP    seconds between /readyz and the measurement
#   DURATION  seconds measured per round
# Sourcing exits 1 when GPUWATCH is not built and 77 when curl is missing; then it makes TMP (a
# temporary folder) and traps EXIT (INT and TERM exit 130) to stop every registered process and
# remove TMP.
#
#   need_tools TOOL...          exit 77 unless every TOOL is on PATH
#   register_pid PID            stop PID at exit (a helper the script started, e.g. a sink)
#   stop_pids PID...            kill and reap PIDs now, and forget them
#   start_serve LABEL [FLAG...] starts `gpuwatch --simulate SCENARIO serve --no-record --listen
#                               127.0.0.1:0 --interval INTERVAL FLAG...` in the background (registered;
#                               XDG_STATE_HOME=TMP/state; output in TMP/LABEL.out, .err), waits for its
#                               /metrics URL and /readyz (15 s each); sets PID_OUT and URL_OUT (the
#                               /metrics URL). Exits 1 when it does not start. No WARMUP: see below.
#   measure_pair LABEL_A LABEL_B SCRAPE [A_FLAG...] -- [B_FLAG...]
#                               one round: starts serve A and serve B (start_serve), waits WARMUP s,
#                               measures both for DURATION s (a scrape of each /metrics every SCRAPE s,
#                               kept in TMP/LABEL.prom, as Prometheus would; SCRAPE=0: none), stops
#                               both. Sets A_CPU, B_CPU (ns on a CPU) and WALL (ns). Exits 1 when a
#                               serve exits meanwhile; warns when a serve's set of threads changed
#                               (an exited thread's time is missing from schedstat).
#   cpu_ns PID                  ns PID has run on a CPU, summed over its threads; fails when PID is gone
#   now_ns                      the wall clock in ns
#   pct CPU_NS WALL_NS          CPU_NS over WALL_NS as % of one core (4 decimals)
#   secs NS                     NS in seconds (3 decimals)
# Variables the scripts read back (A_CPU, PID_OUT, ...) are assigned here: hence SC2034 off.
# shellcheck disable=SC2034

: "${BENCH:?set BENCH before sourcing serve_cpu.sh}" "${GPUWATCH:?}" "${SCENARIO:?}" "${INTERVAL:?}"
: "${WARMUP:?}" "${DURATION:?}"

need_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$BENCH: $tool missing" >&2; exit 77; }
  done
}

[[ -x $GPUWATCH ]] || { echo "$BENCH: $GPUWATCH not built" >&2; exit 1; }
need_tools curl

TMP=$(mktemp -d "/tmp/gpuwatch-$BENCH.XXXXXX")
SERVE_CPU_PIDS=""

register_pid() { SERVE_CPU_PIDS="$SERVE_CPU_PIDS $1"; }

stop_pids() {
  local pid kept="" gone
  for pid in "$@"; do kill "$pid" 2>/dev/null || true; done
  for pid in "$@"; do wait "$pid" 2>/dev/null || true; done
  for pid in $SERVE_CPU_PIDS; do
    for gone in "$@"; do [[ $pid == "$gone" ]] && continue 2; done
    kept="$kept $pid"
  done
  SERVE_CPU_PIDS=$kept
}

serve_cpu_cleanup() {
  # shellcheck disable=SC2086  # a list of pids, split on purpose
  [[ -z ${SERVE_CPU_PIDS// /} ]] || stop_pids $SERVE_CPU_PIDS
  rm -rf "$TMP"
}
trap serve_cpu_cleanup EXIT
trap 'exit 130' INT TERM

now_ns() { date +%s%N; }

cpu_ns() {
  kill -0 "$1" 2>/dev/null || { echo "$BENCH: process $1 is gone" >&2; return 1; }
  { cat /proc/"$1"/task/*/schedstat 2>/dev/null || true; } | awk '{ s += $1 } END { printf "%d", s }'
}

# The ids of PID's threads, on one line.
task_ids() { (cd /proc/"$1"/task 2>/dev/null && echo *); }

pct() { awk -v c="$1" -v w="$2" 'BEGIN { printf "%.4f", 100 * c / w }'; }
secs() { awk -v w="$1" 'BEGIN { printf "%.3f", w / 1e9 }'; }

start_serve() {
  local label=$1 url="" i
  shift
  XDG_STATE_HOME=$TMP/state "$GPUWATCH" --simulate "$SCENARIO" serve --no-record --listen 127.0.0.1:0 \
    --interval "$INTERVAL" "$@" >"$TMP/$label.out" 2>"$TMP/$label.err" &
  PID_OUT=$!
  register_pid "$PID_OUT"
  for ((i = 0; i < 150; i++)); do
    url=$(grep -so 'http://[^ ]*/metrics' "$TMP/$label.out" | head -1 || true)  # -s: the file may not exist yet
    [[ -n $url ]] && break
    kill -0 "$PID_OUT" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "$BENCH: serve ($label) did not start: $(cat "$TMP/$label.err")" >&2; exit 1; }
  for ((i = 0; i < 150; i++)); do curl -sf -o /dev/null "${url%/metrics}/readyz" && break; sleep 0.1; done
  URL_OUT=$url
}

measure_pair() {
  local label_a=$1 label_b=$2 scrape=$3 a_pid b_pid a_url b_url label
  shift 3
  local -a a_flags=()
  while (($#)) && [[ $1 != -- ]]; do a_flags+=("$1"); shift; done
  (($#)) && shift
  start_serve "$label_a" "${a_flags[@]}"
  a_pid=$PID_OUT a_url=$URL_OUT
  start_serve "$label_b" "$@"
  b_pid=$PID_OUT b_url=$URL_OUT
  sleep "$WARMUP"
  local a0 b0 n0 a1 b1 n1 a_tasks b_tasks end
  a_tasks=$(task_ids "$a_pid") b_tasks=$(task_ids "$b_pid")
  a0=$(cpu_ns "$a_pid") || exit 1
  b0=$(cpu_ns "$b_pid") || exit 1
  n0=$(now_ns)
  if awk -v s="$scrape" 'BEGIN { exit !(s > 0) }'; then
    end=$((SECONDS + DURATION))
    while ((SECONDS < end)); do
      curl -sf -o "$TMP/$label_a.prom" "$a_url" || true
      curl -sf -o "$TMP/$label_b.prom" "$b_url" || true
      sleep "$scrape"
    done
  else
    sleep "$DURATION"
  fi
  a1=$(cpu_ns "$a_pid") || { echo "$BENCH: serve ($label_a) exited: $(tail -5 "$TMP/$label_a.err")" >&2; exit 1; }
  b1=$(cpu_ns "$b_pid") || { echo "$BENCH: serve ($label_b) exited: $(tail -5 "$TMP/$label_b.err")" >&2; exit 1; }
  n1=$(now_ns)
  [[ $(task_ids "$a_pid") == "$a_tasks" ]] || label=$label_a
  [[ $(task_ids "$b_pid") == "$b_tasks" ]] || label="${label:+$label, }$label_b"
  [[ -z ${label:-} ]] || echo "$BENCH: warning: the threads of serve ($label) changed while measured; an exited thread's time is not counted" >&2
  stop_pids "$a_pid" "$b_pid"
  A_CPU=$((a1 - a0)) B_CPU=$((b1 - b0)) WALL=$((n1 - n0))
}
