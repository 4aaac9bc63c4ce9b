#!/usr/bin/env bash
# Issue 4's /metrics load benchmark: wrk with 64 connections against
#   1. gpuwatch serve --per-process-metrics on the simulated 8-GPU / 50-process node
#      (bench/serve_node.yaml),
#   2. Debian's prometheus-node-exporter /metrics (the binary, started here on loopback),
#   3. nginx serving the very bytes of gpuwatch's /metrics as a static file,
# back to back, ROUNDS times, then prints p99 latency and requests/s and the ratios against
# the targets: p99 < 5 ms (issue 4) and at most 1.5x nginx's (issue 16); throughput >= 20x
# node_exporter and >= 0.5x nginx.
#
#   bench/serve_load.sh [BUILD_DIR]          (default: build)
#   DURATION=10s CONNECTIONS=64 WRK_THREADS=2 ROUNDS=3 SERVE_ARGS="--keep-alive-timeout 30s" bench/serve_load.sh build
#
# Needs wrk, nginx and prometheus-node-exporter (scripts/install-deps, group BENCH_PKGS);
# exits 77 (skip) when one is missing. Everything it starts listens on 127.0.0.1 and is
# stopped on exit (trap).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD_DIR=${1:-build}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
WRK_THREADS=${WRK_THREADS:-2}
ROUNDS=${ROUNDS:-3}
SCENARIO=${SCENARIO:-bench/serve_node.yaml}
SERVE_ARGS=${SERVE_ARGS:-}
GPUWATCH=$BUILD_DIR/gpuwatch
NGINX=${NGINX:-/usr/sbin/nginx}
NODE_EXPORTER=${NODE_EXPORTER:-/usr/bin/prometheus-node-exporter}

for tool in wrk curl "$NGINX" "$NODE_EXPORTER"; do
  if ! command -v "$tool" >/dev/null; then
    echo "serve_load: $tool missing (scripts/install-deps installs wrk, nginx-light, prometheus-node-exporter)" >&2
    exit 77
  fi
done
[[ -x $GPUWATCH ]] || { echo "serve_load: $GPUWATCH not built (make build)" >&2; exit 1; }

TMP=$(mktemp -d /tmp/gpuwatch-serve-load.XXXXXX)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Polls URL until it answers 200 (bounded: 15 s).
wait_http() {
  local url=$1 i
  for ((i = 0; i < 150; i++)); do
    curl -sf -o /dev/null "$url" && return 0
    sleep 0.1
  done
  echo "serve_load: $url never answered" >&2
  exit 1
}

# 1. gpuwatch serve on the simulated node; its first stdout line gives the bound address.
# shellcheck disable=SC2086  # SERVE_ARGS: extra serve flags (e.g. --keep-alive-timeout 30s), word-split on purpose
"$GPUWATCH" --simulate "$SCENARIO" serve --listen 127.0.0.1:0 --per-process-metrics --db "$TMP/history.db" \
  $SERVE_ARGS >"$TMP/serve.out" 2>"$TMP/serve.err" &
PIDS+=($!)
for ((i = 0; i < 150; i++)); do
  grep -q "listening on" "$TMP/serve.out" && break
  sleep 0.1
done
GPUWATCH_URL=$(grep -o 'http://[^ ]*/metrics' "$TMP/serve.out" | head -1 || true)
[[ -n $GPUWATCH_URL ]] || { echo "serve_load: serve did not start: $(cat "$TMP/serve.err")" >&2; exit 1; }
wait_http "${GPUWATCH_URL%/metrics}/readyz"

# 2. node_exporter, default collectors, on loopback.
NODE_PORT=$(free_port)
"$NODE_EXPORTER" --web.listen-address="127.0.0.1:$NODE_PORT" >"$TMP/node_exporter.log" 2>&1 &
PIDS+=($!)
NODE_URL="http://127.0.0.1:$NODE_PORT/metrics"
wait_http "$NODE_URL"

# 3. nginx serving a copy of gpuwatch's /metrics (a static file), foreground, own config.
mkdir -p "$TMP/www"
curl -sf -o "$TMP/www/metrics" "$GPUWATCH_URL"
chmod 755 "$TMP" "$TMP/www"
chmod 644 "$TMP/www/metrics"
NGINX_PORT=$(free_port)
cat >"$TMP/nginx.conf" <<EOF
worker_processes auto;
pid $TMP/nginx.pid;
error_log $TMP/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $TMP/body;
  proxy_temp_path $TMP/proxy;
  fastcgi_temp_path $TMP/fastcgi;
  uwsgi_temp_path $TMP/uwsgi;
  scgi_temp_path $TMP/scgi;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    root $TMP/www;
    location = /metrics { default_type "text/plain; version=0.0.4; charset=utf-8"; }
  }
}
EOF
"$NGINX" -c "$TMP/nginx.conf" -e "$TMP/nginx-error.log" -g 'daemon off;' &
PIDS+=($!)
NGINX_URL="http://127.0.0.1:$NGINX_PORT/metrics"
wait_http "$NGINX_URL"

gpuwatch_bytes=$(stat -c %s "$TMP/www/metrics")
node_bytes=$(curl -sf "$NODE_URL" | wc -c)

# wrk --latency: prints "Requests/sec: N" and a "99%  1.23ms" line; both in plain units here.
to_ms() {  # 812.00us / 1.23ms / 1.02s -> milliseconds
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") n /= 1000; else if (u == "s") n *= 1000; else if (u == "m") n *= 60000
    printf "%.3f", n }'
}
# Only 200 answers count: node_exporter answers 503 beyond --web.max-requests (40) at once.
run_wrk() {  # NAME URL -> appends "NAME ok_rps p99_ms" to $TMP/results
  local name=$1 url=$2 out rps p99 errors
  out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url")
  echo "$out" >>"$TMP/wrk-$name.log"
  rps=$(awk '/ requests in / { n = $1; t = $4; sub(/s,$/, "", t) }
             /Non-2xx or 3xx responses:/ { bad = $NF }
             END { printf "%.0f", (n - bad) / t }' <<<"$out")
  p99=$(to_ms "$(awk '$1 == "99%" {print $2}' <<<"$out")")
  errors=$(awk '/Non-2xx|Socket errors/ {print}' <<<"$out" | sed 's/^ *//' | tr '\n' ' ')
  echo "$name $rps $p99" >>"$TMP/results"
  printf '  %-13s %8d ok req/s   p99 %8.2f ms   %s\n' "$name" "$rps" "$p99" "${errors:-no errors}"
}

echo "serve_load: $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg); wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION --latency"
echo "  gpuwatch     $GPUWATCH_URL  ($gpuwatch_bytes bytes, scenario $SCENARIO, flags: ${SERVE_ARGS:-defaults})"
echo "  node_exporter $NODE_URL  ($node_bytes bytes)"
echo "  nginx        $NGINX_URL  (the same $gpuwatch_bytes bytes as a file)"
for ((round = 1; round <= ROUNDS; round++)); do
  echo "round $round/$ROUNDS:"
  run_wrk gpuwatch "$GPUWATCH_URL"
  run_wrk node_exporter "$NODE_URL"
  run_wrk nginx "$NGINX_URL"
done

# Medians over the rounds, and the ratios against issue 4's targets.
/usr/bin/python3 - "$TMP/results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    name, rps, p99 = line.split()[:3]
    rows.setdefault(name, []).append((float(rps), float(p99)))
med = {n: (statistics.median(r for r, _ in v), statistics.median(p for _, p in v)) for n, v in rows.items()}
print()
print(f"| server (median of {len(rows['gpuwatch'])} rounds) | 200 answers/s | p99 latency |")
print("|---|---|---|")
for name in ("gpuwatch", "node_exporter", "nginx"):
    print(f"| {name} | {med[name][0]:.0f} | {med[name][1]:.2f} ms |")
g = med["gpuwatch"]
vs_node = g[0] / med["node_exporter"][0]
vs_nginx = g[0] / med["nginx"][0]
def verdict(ok):
    return "met" if ok else "MISSED"
print()
print(f"gpuwatch p99 {g[1]:.2f} ms (target < 5 ms): {verdict(g[1] < 5)}")
print(f"gpuwatch / node_exporter throughput {vs_node:.1f}x (target >= 20x): {verdict(vs_node >= 20)}")
print(f"gpuwatch / nginx throughput {vs_nginx:.2f}x (target >= 0.5x): {verdict(vs_nginx >= 0.5)}")
p99_vs_nginx = g[1] / med["nginx"][1]
print(f"gpuwatch p99 / nginx p99 {p99_vs_nginx:.2f}x (issue 16 target <= 1.5x): {verdict(p99_vs_nginx <= 1.5)}")
EOF
