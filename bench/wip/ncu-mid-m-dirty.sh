# ncu of ours and Inductor's forwards at 10000 x 1024 after the benchmark's
# L2 flush (dirty lines left in L2, ncu's own cache control off).
# ncu's kernel replay re-runs the kernel for each metric pass, and from the
# second pass the rows sit in L2: add --replay-mode application to see the
# dirty lines (bench/NOTES.md, session 31).
# Usage (on the GPU, from the repository root): bash bench/wip/ncu-mid-m-dirty.sh
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,lts__t_sectors.sum,sm__warps_active.avg.pct_of_peak_sustained_active"
for c in "rms_fwd 10000x1024" "ln_fwd 10000x1024" "rms_fwd 16384x1024"; do for impl in compile norm; do
 echo "== $c $impl (after a dirty flush)"
 timeout 100 ncu --clock-control none --cache-control none --metrics "$M" --kernel-name regex:'^(norm|triton)' --launch-skip 60 --launch-count 3 python3 bench/profile_impl.py $c --impl $impl --repeat 80 --flush 2>&1 | grep -E "^\s+(norm|triton)|gpu__|dram__|lts__|sm__"
done; done
