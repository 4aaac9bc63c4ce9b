#!/bin/bash
# User-space instructions of `gpuwatch top` or nvtop over 20 s on the simulated `demo` node (issue
# 13): the program runs under callgrind in a 200x50 tmux pane; the counters are zeroed after a
# 15 s warm-up and dumped 20 s later. Unlike CPU time, the count does not move with the load of a
# shared machine. Needs valgrind, tmux and (for --nvtop) nvtop.
#   bench/top_instructions.sh BUILD_DIR [--nvtop]
set -euo pipefail
build=$(realpath "${1:?usage: bench/top_instructions.sh BUILD_DIR [--nvtop]}")
name=gpuwatch
command="valgrind --tool=callgrind --callgrind-out-file=OUT $build/gpuwatch --simulate demo top -d 1s"
if [[ "${2:-}" == "--nvtop" ]]; then
  name=nvtop
  command="$build/gpuwatch sim run demo -- valgrind --tool=callgrind --callgrind-out-file=OUT nvtop -d 10"
fi
dir=$(mktemp -d)
out="$dir/callgrind.%p"
socket="top-instructions-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$dir"' EXIT
tmux -L "$socket" -f /dev/null new-session -d -x 200 -y 50 "${command/OUT/$out}; sleep 120"
pid=""
for _ in $(seq 1 100); do
  pid=$(pgrep -f "^/usr/bin/valgrind[.a-z]* .*callgrind-out-file=$dir/" | head -1 || true)
  [[ -n "$pid" ]] && break
  sleep 0.1
done
[[ -n "$pid" ]] || { echo "the program did not start under valgrind" >&2; exit 1; }
sleep 15
callgrind_control -z "$pid" >/dev/null 2>&1
sleep 20
callgrind_control -d "$pid" >/dev/null 2>&1
for _ in $(seq 1 50); do compgen -G "$dir/callgrind.$pid.1" >/dev/null && break; sleep 0.1; done
total=$(grep -m1 '^summary:' "$dir/callgrind.$pid.1" | awk '{print $2}')
echo "$name: $(awk "BEGIN {printf \"%.1f\", $total / 1e6}") M instructions in 20 s"
