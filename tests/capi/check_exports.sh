#!/bin/sh
# libgpuwatch.so exports the C ABI only: every defined dynamic symbol starts with gw_
# (the version node GPUWATCH_1 aside), and the ABI's entry points are there.
set -eu
lib="$1"
symbols=$(nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | sort -u)
others=$(printf '%s\n' "$symbols" | grep -v -e '^gw_' -e '^GPUWATCH_1$' || true)
if [ -n "$others" ]; then
  echo "libgpuwatch exports symbols outside the C ABI:" >&2
  printf '%s\n' "$others" | head -20 >&2
  exit 1
fi
for wanted in gw_abi_version gw_last_error gw_monitor_open gw_monitor_start gw_monitor_snapshot gw_monitor_close \
              gw_snapshot_json gw_snapshot_entry; do
  printf '%s\n' "$symbols" | grep -qx "$wanted" || { echo "missing export: $wanted" >&2; exit 1; }
done
echo "$(printf '%s\n' "$symbols" | grep -c '^gw_') gw_ symbols, nothing else"
