#!/usr/bin/env bash
# Session 60's device calls.
#   br:    carry [".out/s60all", ".out/s60/br"]. .out/s60/br holds the N = 256
#          bundles whose held-row versions for M not a multiple of the
#          block's rows branch in the kernel on whether a block's rows all
#          exist (norm.whole_blocks_branch), .out/s60all main's (c9e378f)
#          default bundles plus N = 384, 512, 10240, 20000, 24576.
#          gpu_check of the new bundles, the A/B at M that are not multiples
#          of four (and two that are, which must be level), then bench.py
#          against torch.compile.
#   behind: the shapes behind in fwd / bwd at 7 rounds, ncu of three.
#   ln512: LayerNorm's N = 512 inference forward as landed (5a3f8a9).
#   fwd:   bench.py over the shapes outside the public set, forwards.
#   bwd:   the same, backwards.
mode=${1:-}
exec > >(tee "$OUT/next-s60-$mode.log") 2>&1
set -x
odd=4097x256,1500x384,8192x384,1500x512,3000x512,4096x512,4096x10240,2048x20000,2048x24576
case "$mode" in
br)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
  timeout 150 python3 bench/gpu_check.py --bundles .out/s60/br | grep -v '^ok' | tail -6
  for f in infer stats; do
    python3 bench/ab.py --timing kernels --variants .out/s60all,.out/s60/br --ops rms_fwd,ln_fwd --forward $f --rounds 7 \
      --shapes 1001x256,2050x256,4097x256,4098x256,8191x256,16385x256,32767x256,65537x256,4096x256,16384x256
  done
  python3 bench/bench.py --bundles .out/s60/br --ops rms_fwd,ln_fwd --timing kernels --rounds 5 \
    --shapes 1001x256,2050x256,4097x256,8191x256,16385x256,65537x256 --out $OUT
  ;;
br512)
  # carry [".out/s60all", ".out/s60/br512"]: the forwards at N = 512 with
  # whole-block versions and branches in their held-row bands
  # (NORM_EXP_BR512=1 with the branch: two-warp blocks too) against main.
  timeout 100 python3 bench/gpu_check.py --bundles .out/s60/br512 | grep -v '^ok' | tail -6
  for f in infer stats; do
    python3 bench/ab.py --timing kernels --variants .out/s60all,.out/s60/br512 --ops rms_fwd,ln_fwd --forward $f --rounds 5 \
      --shapes 996x512,1500x512,3000x512,4096x512,4097x512,6144x512,8191x512,16384x512,16385x512,65536x512
  done
  python3 bench/bench.py --bundles .out/s60/br512 --ops rms_fwd,ln_fwd --timing kernels --rounds 5 \
    --shapes 1500x512,3000x512,4096x512,4097x512,16385x512 --out $OUT | grep -v launches
  ;;
behind)
  # carry [".out/s60/prod"]: main (eba5b74) at N = 256, 512 and 24576: the
  # shapes behind torch.compile in the fwd / bwd sweeps at 7 rounds, then
  # ncu of three of them, ours and Inductor's.
  timeout 170 python3 bench/bench.py --bundles .out/s60/prod --ops rms_fwd,ln_fwd --timing kernels --rounds 7 \
    --shapes 1500x512,3000x512,4096x512,2048x24576,4096x256,4097x256 --out $OUT/fwd | grep -v launches
  timeout 40 python3 bench/bench.py --bundles .out/s60/prod --ops rms_bwd,ln_bwd --timing kernels --rounds 7 \
    --shapes 1x256 --out $OUT/bwd | grep -v launches
  CASES="rms_fwd 3000x512;ln_fwd 1500x512;rms_fwd 2048x24576" timeout 150 bash bench/ncu_short_forwards.sh .out/s60/prod
  ;;
ln512)
  # carry [".out/s60all", ".out/s60/ln512"]: main at 5a3f8a9 (N = 512
  # forwards; rebuild with scripts/build-bundles.py --n 512) against the
  # bundles before it. LayerNorm's inference forward's warp bands (99-395,
  # 661-3167 rows) take whole-block versions and branches there: gpu_check,
  # the A/B in both bands (the first never measured), then bench.py
  # against torch.compile at 9 rounds.
  timeout 100 python3 bench/gpu_check.py --bundles .out/s60/ln512 | grep -v '^ok' | tail -6
  python3 bench/ab.py --timing kernels --variants .out/s60all,.out/s60/ln512 --ops ln_fwd --forward infer --rounds 9 \
    --shapes 100x512,200x512,395x512,661x512,996x512,1500x512,2050x512,3000x512,3001x512,3167x512
  python3 bench/bench.py --bundles .out/s60/ln512 --ops ln_fwd --timing kernels --rounds 9 \
    --shapes 200x512,395x512,996x512,1500x512,2050x512,3000x512,3001x512 --out $OUT | grep -v launches
  ;;
fwd|bwd)
  if [ $mode = fwd ]; then ops=rms_fwd,ln_fwd; else ops=rms_bwd,ln_bwd; fi
  for set in extra short-m llm short-n $odd; do
    python3 bench/bench.py --bundles .out/s60all --ops $ops --timing kernels --rounds 3 \
      --shapes $set --out $OUT/$mode-${set%%,*} | grep -v "launches"
  done
  ;;
*) echo "usage: $0 br|br512|behind|ln512|fwd|bwd" >&2; exit 2 ;;
esac
