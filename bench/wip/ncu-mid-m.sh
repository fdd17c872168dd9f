# ncu of ours and Inductor's forwards at 10000 x 1024 (session 31): time,
# L2 requests and sectors, DRAM bytes, warps active and the long-scoreboard
# and barrier stalls, at boost clocks with ncu's own cache flush.
# Usage (on the GPU, from the repository root): bash bench/wip/ncu-mid-m.sh
M="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,launch__waves_per_multiprocessor,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_requests.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__cycles_active.avg,sm__cycles_elapsed.avg"
for c in "rms_fwd 10000x1024" "ln_fwd 10000x1024"; do for impl in compile norm; do
 echo "== $c $impl"
 timeout 100 ncu --clock-control none --metrics "$M" --kernel-name regex:'^(norm|triton)' --launch-skip 60 --launch-count 1 python3 bench/profile_impl.py $c --impl $impl --repeat 80 2>&1 | grep -v "^==PROF==\|^==WARNING" | tail -25
done; done
