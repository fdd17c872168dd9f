# Session 58: LayerNorm's statistics forward at 16384 x 256 ran 0.86x in
# every variant that changed its held-row addressing or bounds (off, p32,
# nob256, lean256 of next-s58.sh) against main's; ncu of main's and off's
# kernel, after the L2 flush, four launches each.
M="gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio"
for v in base off nob256; do
 echo "== $v"
 timeout 90 ncu --clock-control none --cache-control none --metrics "$M" --kernel-name regex:'^norm' --launch-skip 40 --launch-count 2 python3 bench/profile_impl.py ln_fwd 16384x256 --impl norm_stats --bundles .out/s58/$v --flush --repeat 60 2>&1 | grep -v "^==PROF==\|^==WARNING" | grep -v "^\s*$" | tail -32
done 2>&1 | tee $OUT/ncu-ln-stats-16384.log
