#!/usr/bin/env bash
# Issue 16, "RSS under 25 MB after the fuzzer": `gpuwatch --simulate demo serve` on loopback takes
# ~20,000 mutated and malformed HTTP requests (bench/serve_fuzz_requests.py: random but seeded;
# header floods, oversized headers and bodies, chunked bodies, bad escapes, invalid UTF-8,
# pipelining, cut requests), then serve's resident memory is read from /proc: after start-up,
# at the end, and its peak (VmHWM). Fails when serve died or stopped answering, or when its RSS at
# the end is above LIMIT_MB (default 25).
#
#   bench/serve_fuzz_rss.sh [BUILD_DIR]        (default: build)
#   REQUESTS=20000 SEED=16 WORKERS=8 LIMIT_MB=25 bench/serve_fuzz_rss.sh build
#
# serve listens on 127.0.0.1 only (a free port), without recording (--no-record); it is stopped
# on exit (trap).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
REQUESTS=${REQUESTS:-20000}
SEED=${SEED:-16}
WORKERS=${WORKERS:-8}
LIMIT_MB=${LIMIT_MB:-25}
GPUWATCH=$BUILD_DIR/gpuwatch
[[ -x $GPUWATCH ]] || { echo "serve_fuzz_rss: $GPUWATCH not built (make build)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/gpuwatch-serve-fuzz.XXXXXX)
SERVE_PID=
cleanup() {
  if [[ -n $SERVE_PID ]]; then
    kill "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
  fi
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rss_kb() { awk -v key="$2:" '$1 == key { print $2 }' "/proc/$1/status"; }

"$GPUWATCH" --simulate demo serve --listen 127.0.0.1:0 --no-record >"$TMP/serve.out" 2>"$TMP/serve.err" &
SERVE_PID=$!
for ((i = 0; i < 150; i++)); do
  grep -q "listening on" "$TMP/serve.out" && break
  sleep 0.1
done
URL=$(grep -o 'http://[^ ]*/metrics' "$TMP/serve.out" | head -1 || true)
[[ -n $URL ]] || { echo "serve_fuzz_rss: serve did not start: $(cat "$TMP/serve.err")" >&2; exit 1; }
PORT=${URL##*:}
PORT=${PORT%%/*}
# Warm: every route once, so the baseline includes what a normal first scrape allocates.
for path in /metrics /api/v1/snapshot /api/v1/history?seconds=60 / /assets/dashboard.js; do
  curl -s -o /dev/null "http://127.0.0.1:$PORT$path" || true
done
sleep 1
START_KB=$(rss_kb "$SERVE_PID" VmRSS)
START_ANON_KB=$(rss_kb "$SERVE_PID" RssAnon)

START=$(date +%s.%N)
RESULT=$(/usr/bin/python3 bench/serve_fuzz_requests.py --port "$PORT" --requests "$REQUESTS" --seed "$SEED" \
  --workers "$WORKERS") || { echo "serve_fuzz_rss: serve stopped answering: $RESULT" >&2; exit 1; }
ELAPSED=$(echo "$(date +%s.%N) - $START" | bc)
kill -0 "$SERVE_PID" 2>/dev/null || { echo "serve_fuzz_rss: serve died: $(tail -5 "$TMP/serve.err")" >&2; exit 1; }
sleep 1  # let closed connections' buffers go back
END_KB=$(rss_kb "$SERVE_PID" VmRSS)
PEAK_KB=$(rss_kb "$SERVE_PID" VmHWM)
END_ANON_KB=$(rss_kb "$SERVE_PID" RssAnon)

echo "serve_fuzz_rss: $RESULT"
printf 'serve_fuzz_rss: private memory (RssAnon) %.1f MB after start-up, %.1f MB at the end (the rest of RSS is the binary and libraries, file-backed)\n' \
  "$(echo "$START_ANON_KB / 1024" | bc -l)" "$(echo "$END_ANON_KB / 1024" | bc -l)"
printf 'serve_fuzz_rss: %s requests in %.1f s; serve RSS %.1f MB after start-up, %.1f MB at the end, peak %.1f MB (limit %s MB at the end)\n' \
  "$REQUESTS" "$ELAPSED" "$(echo "$START_KB / 1024" | bc -l)" "$(echo "$END_KB / 1024" | bc -l)" \
  "$(echo "$PEAK_KB / 1024" | bc -l)" "$LIMIT_MB"
if ((END_KB > LIMIT_MB * 1024)); then
  echo "serve_fuzz_rss: FAILED: RSS at the end is above ${LIMIT_MB} MB" >&2
  exit 1
fi
