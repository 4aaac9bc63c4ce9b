#!/usr/bin/env bash
# Issue 29's push cost: "pushing at 1 s from 8 GPUs costs at most 0.2 % of a core more than
# serve alone". Runs, side by side at the same time (so that both see the same load on the
# machine), ROUNDS times,
#   A: gpuwatch --simulate bench/serve_node.yaml serve --no-record --interval 1s
#   B: the same with --remote-write to a local sink (python http.server on 127.0.0.1 answering
#      204; not measured)
# both for DURATION seconds after it is ready (/readyz) and WARMUP seconds more, reading the time
# every thread of the gpuwatch process ran, in nanoseconds (/proc/PID/task/*/schedstat: the 10 ms
# ticks of /proc/PID/stat, which this bench read one serve after the other until 2026-12-02, are
# too coarse for a 0.2 % limit). No scrapes. Prints each round's and the total CPU % of one core
# and the difference B - A; exits 1 when the difference is over LIMIT (% of a core) or a serve or
# the sink did not start (or gpuwatch is not built), 2 when the sink received nothing, 77 when
# curl or python3 is missing. The scaffolding (serves, schedstat, side by side) is
# bench/lib/serve_cpu.sh's, shared with bench/serve_host_cpu.sh. Not in CI (minutes, and
# load-sensitive).
#
#   bench/push_cpu.sh [BUILD_DIR]                 (default: build)
#   DURATION=60 ROUNDS=2 WARMUP=3 INTERVAL=1s LIMIT=0.2 bench/push_cpu.sh /work/bu
#   (SCENARIO=bench/serve_node.yaml)
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH=push_cpu
BUILD_DIR=${1:-build}
DURATION=${DURATION:-60}
ROUNDS=${ROUNDS:-2}
WARMUP=${WARMUP:-3}
INTERVAL=${INTERVAL:-1s}
LIMIT=${LIMIT:-0.2}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
GPUWATCH=$BUILD_DIR/gpuwatch
# shellcheck source-path=SCRIPTDIR/..
source bench/lib/serve_cpu.sh
need_tools python3

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
register_pid $!
for ((i = 0; i < 100; i++)); do [[ -s $TMP/sink.out ]] && break; sleep 0.1; done
SINK_PORT=$(head -1 "$TMP/sink.out")
[[ -n $SINK_PORT ]] || { echo "push_cpu: the sink did not start: $(cat "$TMP/sink.err")" >&2; exit 1; }
printf 'buffer: {dir: %s/buffer}\n' "$TMP" >"$TMP/push.yaml"
sink_requests() { grep -c '^request' "$TMP/sink.out" || true; }

echo "push_cpu: $SCENARIO, --interval $INTERVAL, ${DURATION}s per round, $ROUNDS rounds of serve alone and serve --remote-write (sink on 127.0.0.1:$SINK_PORT) side by side"
alone_c=0 push_c=0 wall=0
for ((r = 1; r <= ROUNDS; r++)); do
  measure_pair "alone$r" "push$r" 0 -- \
    --remote-write "http://127.0.0.1:$SINK_PORT/api/v1/write" --remote-write-config "$TMP/push.yaml"
  alone_c=$((alone_c + A_CPU)); push_c=$((push_c + B_CPU)); wall=$((wall + WALL))
  echo "  round $r ($(secs "$WALL") s): serve alone $(pct "$A_CPU" "$WALL") % of a core, serve --remote-write $(pct "$B_CPU" "$WALL") % ($(sink_requests) requests received so far)"
done
requests=$(sink_requests)
alone=$(pct "$alone_c" "$wall")
pushing=$(pct "$push_c" "$wall")
diff=$(awk -v a="$alone" -v b="$pushing" 'BEGIN { printf "%.4f", b - a }')
echo "serve alone:          $alone % of a core"
echo "serve --remote-write: $pushing % of a core ($requests requests received by the sink)"
echo "difference:           $diff % of a core (limit $LIMIT)"
((requests > 0)) || { echo "push_cpu: the sink received nothing: $(cat "$TMP"/push*.err | tail -5)" >&2; exit 2; }
awk -v d="$diff" -v l="$LIMIT" 'BEGIN { exit !(d <= l) }' || { echo "push_cpu: over the limit" >&2; exit 1; }
echo "push_cpu: within the limit"
