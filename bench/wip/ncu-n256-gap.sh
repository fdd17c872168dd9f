# For the next GPU session (NOTES item 1 after session 45): our and
# Inductor's N = 256 kernels that are still behind torch.compile, timed by
# ncu itself (gpu__time_duration) after the benchmark's L2 flush (--flush,
# ncu --cache-control none), at boost clocks, four launches each, to see
# whether bench.py's 5-12% at 4096 x 256 is the kernel's own time (ncu
# had a 4% cycle gap in session 44).
# Usage (on the GPU, bundles built with scripts/build-bundles.py --n 256):
#   bash bench/wip/ncu-n256-gap.sh .out/v80n
B=${1:-.out/bundles}
M="gpu__time_duration.sum,sm__cycles_elapsed.max,smsp__cycles_active.avg,smsp__inst_executed.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio"
for c in "rms_fwd 4096x256" "ln_fwd 4096x256" "ln_fwd 2048x256" "rms_bwd 65536x256"; do for impl in compile norm; do
 echo "== $c $impl"
 timeout 90 ncu --clock-control none --cache-control none --metrics "$M" --kernel-name regex:'^(norm|triton)' --launch-skip 40 --launch-count 4 python3 bench/profile_impl.py $c --impl $impl --bundles "$B" --flush --repeat 60 2>&1 | grep -v "^==PROF==\|^==WARNING" | grep -v "^\s*$" | tail -60
done; done
