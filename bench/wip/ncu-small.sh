# ncu of ours and Inductor's 2-3 us kernels (session 38): the 1 x 1000
# backwards and the 64 x 1000 LayerNorm forward, after the benchmark's L2
# flush (--flush, ncu --cache-control none), at boost clocks.
M="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,smsp__inst_executed.sum,smsp__cycles_active.avg,sm__cycles_elapsed.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors.sum,lts__t_requests.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__warps_launched.sum"
for c in "ln_bwd 1x1000" "rms_bwd 1x1000" "ln_fwd 64x1000"; do for impl in compile norm; do
 echo "== $c $impl"
 timeout 60 ncu --clock-control none --cache-control none --metrics "$M" --kernel-name regex:'^(norm|triton)' --launch-skip 40 --launch-count 4 python3 bench/profile_impl.py $c --impl $impl --bundles .out/v59 --flush --repeat 60 2>&1 | grep -v "^==PROF==\|^==WARNING" | grep -v "^\s*$" | tail -48
done; done
