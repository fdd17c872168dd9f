#!/usr/bin/env bash
# ncu of the M = 1 backwards, ours (the single block) and Inductor's:
# duration, instructions, active cycles per kernel (bench/profile_impl.py).
# Usage (on the GPU): bench/ncu_m1_backwards.sh [BUNDLES]
M="gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,smsp__average_warp_latency_per_inst_issued.ratio"
for case in "rms_bwd 1x4096" "ln_bwd 1x4096" "ln_bwd 1x1000" "rms_bwd 1x1000"; do
  for impl in norm compile; do
    echo "== $case $impl"
    ncu --metrics $M --kernel-name regex:'^(norm|triton)' --launch-skip 60 --launch-count 3 \
      python3 bench/profile_impl.py $case --impl $impl --bundles "${1:-.out/bundles}" --repeat 80 2>&1 | grep -E "^\s+[a-z_]+ \(|gpu__time|inst_executed|cycles_active|grid_size|block_size|registers|dram__bytes|latency_per" 
  done
done
