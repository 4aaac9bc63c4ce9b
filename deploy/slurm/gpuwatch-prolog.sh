#!/bin/bash
# Slurm Prolog: records which job holds which GPU, in dcgm-exporter's --hpc-job-mapping-dir
# format (one file per GPU index, one job id per line), for gpuwatch --hpc-job-mapping-dir
# (and dcgm-exporter, so one prolog serves both). Install: docs/deploy.md#slurm.
#
#   slurm.conf:  Prolog=/etc/slurm/prolog.d/*   Epilog=/etc/slurm/epilog.d/*
#
# slurmd runs the prolog as root on the compute node. The job's GPUs: SLURM_JOB_GPUS (Slurm
# 20.11+, the node's GPU indices), else CUDA_VISIBLE_DEVICES / GPU_DEVICE_ORDINAL as set for
# the prolog. A job without GPUs writes nothing. Never fails the job: errors go to stderr
# (slurmd's log) and the script exits 0.
set -u
MAP_DIR=${GPUWATCH_JOB_MAP_DIR:-/run/gpuwatch/job-map}
JOB=${SLURM_JOB_ID:-}
GPUS=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-${GPU_DEVICE_ORDINAL:-}}}

[[ -n $JOB && -n $GPUS ]] || exit 0
mkdir -p -m 0755 "$MAP_DIR" || { echo "gpuwatch-prolog: cannot create $MAP_DIR" >&2; exit 0; }

IFS=',' read -ra indexes <<<"$GPUS"
for gpu in "${indexes[@]}"; do
  [[ $gpu =~ ^[0-9]+(\.[0-9]+)?$ ]] || continue   # an index (or gpu.gi for a MIG instance)
  file="$MAP_DIR/$gpu"
  (
    flock -w 5 9 || exit 0
    grep -qxF "$JOB" "$file" 2>/dev/null || echo "$JOB" >>"$file"
    chmod 0644 "$file"
  ) 9>"$MAP_DIR/.lock"
done
exit 0
