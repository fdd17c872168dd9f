# The first GPU call after session 49 (bench/NOTES.md, "after session 49"):
# 1. f32 LayerNorm forwards with and without the row moments (session 49
#    measured them in bf16 only; the f32 streamed N = 16384 and held N =
#    1024 take the rule unmeasured), and the same A/B of the bf16 one-row
#    and 32768 shapes as a repeat.
# 2. ncu of the bf16 LN and RMS forwards at 2048 x 32768 side by side (LN
#    88% of the copy ceiling, RMS 95%, both streamed with 1024 threads):
#    what LayerNorm's kernel waits on, now that neither the L2 re-read nor
#    the second exchange was the gap.
# 3. Row moments for blocks that hold several rows in registers
#    (`wip/row-moments-held-rows.patch`: every held row's moments in one
#    exchange; it changes the LN forwards at N = 256 and 1024, whose
#    large-M versions hold 2-4 rows a block; lit's Target/ptx-examples.mlir
#    PTXAS-CAPPED lines need updating if it lands). Predicted level to +2%.
# 4. LayerNorm's streamed rows of 64 KB over 512 threads (four blocks, four
#    rows an SM, 32 registers) instead of 1024 (two): one row's exchanges
#    then overlap three others' loads (`wip/long-streams-512-threads.patch`;
#    its RMSNorm kernels take 75 registers with eight sweeps a step and are
#    not part of the A/B). Predicted +2-4% at 1024-4096 x 32768.
# Here, before it:
#   B="python3 scripts/build-bundles.py --jobs 2"
#   $B --n 1024,16384,32768 --dtype f32 --out .out/s50/f32
#   $B --n 4096,32768 --out .out/s50/bf16
#   git apply bench/wip/no-row-moments.patch && (cd build && ninja)
#   $B --n 1024,16384,32768 --dtype f32 --out .out/s50/f32nm
#   $B --n 4096,32768 --out .out/s50/bf16nm
#   git checkout lib/Tuning && (cd build && ninja)
#   git apply bench/wip/row-moments-held-rows.patch && (cd build && ninja)
#   $B --n 256,1024 --out .out/s50/mr
#   git checkout lib unittests && (cd build && ninja)
#   $B --n 256,1024 --out .out/s50/mr0
#   git apply bench/wip/long-streams-512-threads.patch && (cd build && ninja)
#   $B --n 32768 --out .out/s50/t512
#   git checkout lib && (cd build && ninja)
#   rm -rf .out/s50/*/*bwd* .out/s50/*/rms_fwd_f32* .out/s50/mr*/rms* .out/s50/t512/rms*
#   python3 scripts/build-bundles.py --n 32768 --out .out/s50/ncu --jobs 2
# then carry .out/s50 and run `bash bench/wip/next-s50-first-call.sh`
# (about 4 minutes on a warm machine).
exec > >(tee "$OUT/s50-first-call.log") 2>&1
set -x
python3 bench/ab.py --variants .out/s50/f32nm,.out/s50/f32 --dtype f32 --ops ln_fwd --forward infer --shapes 1024x16384,4096x16384,8192x16384,4096x1024,32768x1024,1x1024 --timing kernels --rounds 5
python3 bench/ab.py --variants .out/s50/bf16nm,.out/s50/bf16 --ops ln_fwd --forward infer --shapes 512x4096,1x4096,1024x32768,2048x32768 --timing kernels --rounds 5
python3 bench/gpu_check.py --bundles .out/s50/mr --filter ln_fwd | grep -v "^ok"
python3 bench/ab.py --variants .out/s50/mr0,.out/s50/mr --ops ln_fwd --forward infer --shapes 4096x256,16384x256,65536x256,4096x1024,32768x1024,131072x1024 --timing kernels --rounds 5
python3 bench/gpu_check.py --bundles .out/s50/t512 --quick | grep -v "^ok"
python3 bench/ab.py --variants .out/s50/bf16,.out/s50/t512 --ops ln_fwd --forward infer --shapes 512x32768,1024x32768,2048x32768,4096x32768 --timing kernels --rounds 5
M="gpu__time_duration.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,lts__t_sectors.sum,lts__t_requests.sum,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,smsp__cycles_active.avg,sm__cycles_elapsed.avg"
for op in ln_fwd rms_fwd; do
  echo "== $op 2048x32768"
  timeout 120 ncu --clock-control none --metrics "$M" --kernel-name regex:'^norm' --launch-skip 40 --launch-count 1 python3 bench/profile_impl.py $op 2048x32768 --impl norm --bundles .out/s50/ncu --repeat 60 2>&1 | grep -v "^==PROF==\|^==WARNING" | tail -20
done
