#!/usr/bin/env bash
# LeakSanitizer over the real commands, in every `make test`: BINARY is gpuwatch linked with
# -fsanitize=leak (tests/CMakeLists.txt, the release objects relinked, nothing recompiled).
# Each command runs on the simulated driver and must exit with no leak report; serve and record
# run a few seconds and stop on SIGTERM, as a service manager stops them.
# Usage: lsan_commands.sh BINARY SIM_DRIVER_DIR
set -uo pipefail
bin=$1
export GPUWATCH_SIM_DRIVER_DIR=$2
export LSAN_OPTIONS="exitcode=23:print_suppressions=0"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

check() {  # name log status
  if grep -q "LeakSanitizer" "$2"; then
    echo "lsan: '$1' leaks:" >&2
    grep -A12 -E "^(Direct|Indirect) leak" "$2" | head -n 60 >&2
    failed=1
  elif [[ $3 -ne 0 ]]; then
    echo "lsan: '$1' exited $3:" >&2
    tail -n 20 "$2" >&2
    failed=1
  else
    echo "lsan: $1: no leak"
  fi
}

one_shot() {  # args...
  "$bin" --simulate demo "$@" >"$work/out.log" 2>&1
  check "$*" "$work/out.log" $?
}

# Runs for SECONDS, then SIGTERM; the exit status is the command's own.
until_term() {  # seconds args...
  local seconds=$1
  shift
  "$bin" --simulate demo "$@" >"$work/out.log" 2>&1 &
  local pid=$!
  sleep "$seconds"
  kill -TERM "$pid" 2>/dev/null
  wait "$pid"
  check "$*" "$work/out.log" $?
}

one_shot status
one_shot status --json
one_shot query --query-gpu=name,temperature.gpu,power.draw --format=csv
one_shot dmon -c 2
one_shot pmon -c 1
one_shot diagnose --live --for 2s --interval 250ms
until_term 3 serve --no-record --listen 127.0.0.1:0
until_term 3 record --db "$work/history.db"
one_shot history --db "$work/history.db"
one_shot report --db "$work/history.db" -o "$work/report.html"
exit $failed
