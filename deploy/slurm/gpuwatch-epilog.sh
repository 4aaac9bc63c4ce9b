#!/bin/bash
# Slurm Epilog: removes the job from the GPU mapping files the prolog wrote (and a file once no
# job is left in it). Same directory and GPU variables as gpuwatch-prolog.sh. Never fails.
set -u
MAP_DIR=${GPUWATCH_JOB_MAP_DIR:-/run/gpuwatch/job-map}
JOB=${SLURM_JOB_ID:-}
GPUS=${SLURM_JOB_GPUS:-${CUDA_VISIBLE_DEVICES:-${GPU_DEVICE_ORDINAL:-}}}

[[ -n $JOB && -d $MAP_DIR ]] || exit 0
if [[ -n $GPUS ]]; then
  IFS=',' read -ra indexes <<<"$GPUS"
else
  # No GPU list in the epilog's environment: look in every file.
  indexes=()
  for f in "$MAP_DIR"/*; do [[ -f $f ]] && indexes+=("$(basename "$f")"); done
fi
for gpu in "${indexes[@]}"; do
  [[ $gpu =~ ^[0-9]+(\.[0-9]+)?$ ]] || continue
  file="$MAP_DIR/$gpu"
  [[ -f $file ]] || continue
  (
    flock -w 5 9 || exit 0
    grep -vxF "$JOB" "$file" >"$file.tmp" || true
    if [[ -s $file.tmp ]]; then mv -f "$file.tmp" "$file"; else rm -f "$file.tmp" "$file"; fi
  ) 9>"$MAP_DIR/.lock"
done
exit 0
