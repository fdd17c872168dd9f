#!/usr/bin/env bash
# ncu of the short-M forwards where torch.compile's kernels are ahead in the
# benchmark (RMSNorm and LayerNorm at 4096 x 1000-1024, LayerNorm 128 x
# 4096), ours and Inductor's, at the clocks the benchmark runs at
# (--clock-control none: boost, not ncu's locked base clock): duration,
# waves per SM, achieved occupancy and what limits it, DRAM throughput.
# Usage (on the GPU): bench/ncu_short_forwards.sh [BUNDLES...]
# Every bundle directory given is profiled as "norm" (e.g. the default
# bundles and an A/B variant); Inductor's kernel once per case. CASES
# replaces the cases: CASES="rms_fwd 16384x1024;ln_fwd 16384x1000" ...
M="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread"
M="$M,launch__waves_per_multiprocessor,launch__occupancy_limit_registers"
M="$M,launch__occupancy_limit_warps,launch__occupancy_limit_blocks"
M="$M,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_elapsed.avg.per_second"
M="$M,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum"
M="$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct"
bundles=("${@:-.out/bundles}")
IFS=';' read -r -a cases <<< "${CASES:-rms_fwd 4096x1024;rms_fwd 4096x1000;ln_fwd 4096x1024;ln_fwd 128x4096}"
for case in "${cases[@]}"; do
  for impl in compile "${bundles[@]}"; do
    # profile_impl.py builds every implementation of the case, ours too:
    # Inductor's run needs a bundle directory as well.
    if [ "$impl" = compile ]; then args=(--impl compile --bundles "${bundles[0]}"); else args=(--impl norm --bundles "$impl"); fi
    echo "== $case ${impl}"
    ncu --clock-control none --metrics "$M" --kernel-name regex:'^(norm|triton)' \
      --launch-skip 60 --launch-count 1 \
      python3 bench/profile_impl.py $case "${args[@]}" --repeat 80 2>&1 |
      grep -E "^\s+(norm|triton)[a-z_0-9]* |gpu__|launch__|sm__|dram__|smsp__"
  done
done
