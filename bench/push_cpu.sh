#!/usr/bin/env bash
# Issue 29's push cost: "pushing at 1 s from 8 GPUs costs at most 0.2 % of a core more than
# serve alone". Runs, one after the other and alternating ROUNDS times,
#   A: gpuwatch --simulate bench/serve_node.yaml serve --no-record --interval 1s
#   B: the same with --remote-write to a local sink (python http.server on 127.0.0.1 answering
#      204; not measured)
# each for DURATION seconds after it is ready (/readyz) and WARMUP seconds more, reading the
# gpuwatch process's utime+stime (every thread) from /proc/PID/stat. Prints each run's and the
# total CPU % of one core and the difference B - A; exits 1 when the difference is over
# LIMIT (% of a core), 2 when the sink received nothing. Not in CI (minutes, and load-sensitive).
#
#   bench/push_cpu.sh [BUILD_DIR]                 (default: build)
#   DURATION=60 ROUNDS=2 INTERVAL=1s LIMIT=0.2 bench/push_cpu.sh /work/bu
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
INTERVAL=${INTERVAL:-1s}
LIMIT=${LIMIT:-0.2}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
GPUWATCH=$BUILD_DIR/gpuwatch
[[ -x $GPUWATCH ]] || { echo "push_cpu: $GPUWATCH not built" >&2; exit 1; }
command -v curl >/dev/null || { echo "push_cpu: curl missing" >&2; exit 77; }
command -v python3 >/dev/null || { echo "push_cpu: python3 missing" >&2; exit 77; }

TMP=$(mktemp -d /tmp/gpuwatch-push-cpu.XXXXXX)
SERVE_PID=""
SINK_PID=""
cleanup() {
  for pid in $SERVE_PID $SINK_PID; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The receiver: reads each request, answers 204, prints one line per request.
cat >"$TMP/sink.py" <<'PY'
import http.server, sys
class Sink(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.send_response(204)
        self.end_headers()
        print("request", flush=True)
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(("127.0.0.1", 0), Sink)
print(server.server_port, flush=True)
server.serve_forever()
PY
python3 "$TMP/sink.py" >"$TMP/sink.out" 2>"$TMP/sink.err" &
SINK_PID=$!
for ((i = 0; i < 100; i++)); do [[ -s $TMP/sink.out ]] && break; sleep 0.1; done
SINK_PORT=$(head -1 "$TMP/sink.out")
[[ -n $SINK_PORT ]] || { echo "push_cpu: the sink did not start: $(cat "$TMP/sink.err")" >&2; exit 1; }
printf 'buffer: {dir: %s/buffer}\n' "$TMP" >"$TMP/push.yaml"

TICKS=$(getconf CLK_TCK)
cpu_ticks() { awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$SERVE_PID/stat"; }  # utime + stime
now_ns() { date +%s%N; }

# run_serve LABEL [serve flags...]: sets RUN_TICKS and RUN_NS (CPU ticks, wall ns) over DURATION seconds.
run_serve() {
  local label=$1
  shift
  "$GPUWATCH" --simulate "$SCENARIO" serve --no-record --listen 127.0.0.1:0 --interval "$INTERVAL" "$@" \
    >"$TMP/$label.out" 2>"$TMP/$label.err" &
  SERVE_PID=$!
  local url="" i
  for ((i = 0; i < 150; i++)); do
    url=$(grep -o 'http://[^ ]*/metrics' "$TMP/$label.out" | head -1 || true)
    [[ -n $url ]] && break
    kill -0 "$SERVE_PID" 2>/dev/null || break
    sleep 0.1
  done
  [[ -n $url ]] || { echo "push_cpu: serve ($label) did not start: $(cat "$TMP/$label.err")" >&2; exit 1; }
  for ((i = 0; i < 150; i++)); do curl -sf -o /dev/null "${url%/metrics}/readyz" && break; sleep 0.1; done
  sleep "$WARMUP"
  local t0 n0 t1 n1
  t0=$(cpu_ticks); n0=$(now_ns)
  sleep "$DURATION"
  t1=$(cpu_ticks); n1=$(now_ns)
  kill "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null || true
  SERVE_PID=""
  RUN_TICKS=$((t1 - t0))
  RUN_NS=$((n1 - n0))
}

pct() { awk -v c="$1" -v w="$2" -v tk="$TICKS" 'BEGIN { printf "%.3f", 100 * c / tk / (w / 1e9) }'; }

echo "push_cpu: $SCENARIO, --interval $INTERVAL, ${DURATION}s per run, $ROUNDS rounds of serve alone then serve --remote-write (sink on 127.0.0.1:$SINK_PORT)"
alone_c=0 alone_w=0 push_c=0 push_w=0
for ((r = 1; r <= ROUNDS; r++)); do
  run_serve "alone$r"
  c=$RUN_TICKS w=$RUN_NS
  alone_c=$((alone_c + c)); alone_w=$((alone_w + w))
  echo "  round $r: serve alone:              $(pct "$c" "$w") % of a core ($c ticks in $(awk -v w="$w" 'BEGIN { printf "%.1f", w / 1e9 }') s)"
  run_serve "push$r" --remote-write "http://127.0.0.1:$SINK_PORT/api/v1/write" --remote-write-config "$TMP/push.yaml"
  c=$RUN_TICKS w=$RUN_NS
  push_c=$((push_c + c)); push_w=$((push_w + w))
  echo "  round $r: serve --remote-write:     $(pct "$c" "$w") % of a core ($c ticks in $(awk -v w="$w" 'BEGIN { printf "%.1f", w / 1e9 }') s)"
done
requests=$(grep -c '^request' "$TMP/sink.out" || true)
alone=$(pct "$alone_c" "$alone_w")
pushing=$(pct "$push_c" "$push_w")
diff=$(awk -v a="$alone" -v b="$pushing" 'BEGIN { printf "%.3f", b - a }')
echo "serve alone:          $alone % of a core"
echo "serve --remote-write: $pushing % of a core ($requests requests received by the sink)"
echo "difference:           $diff % of a core (limit $LIMIT)"
((requests > 0)) || { echo "push_cpu: the sink received nothing: $(cat "$TMP"/push*.err | tail -5)" >&2; exit 2; }
awk -v d="$diff" -v l="$LIMIT" 'BEGIN { exit !(d <= l) }' || { echo "push_cpu: over the limit" >&2; exit 1; }
echo "push_cpu: within the limit"
