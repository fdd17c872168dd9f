# The first GPU call after session 46 (bench/NOTES.md item 1): v83's
# LayerNorm inference forward at N = 384 as built.
# Here, before it:
#   python3 scripts/build-bundles.py --n 384 --out .out/v83n --jobs 2
#   git worktree add /tmp/v82 3269ba6      # v82: the commit before v83
#   (cd /tmp/v82 && NORM_SKIP_TORCH=1 ./scripts/setup.sh)   # ~5 min
#   python3 scripts/build-bundles.py --n 384 --out .out/v82n --jobs 2 \
#       --compiler /tmp/v82/build/bin/norm-compile
# then carry .out/v82n and .out/v83n and run `bash bench/wip/next-first-call.sh`.
set -x
exec > >(tee "$OUT/first-call.log") 2>&1
python3 bench/gpu_check.py --bundles .out/v83n --filter ln_fwd_bf16_384 | grep -v "^ok"
S=200x384,500x384,1000x384,1500x384,2000x384,3000x384,3167x384,3168x384,4096x384
python3 bench/ab.py --variants .out/v82n,.out/v83n --ops ln_fwd --forward infer --shapes $S --timing kernels --rounds 7
python3 bench/ab.py --variants .out/v83n,.out/v82n --ops ln_fwd --forward infer --shapes $S --timing kernels --rounds 7
python3 bench/bench.py --bundles .out/v83n --ops ln_fwd --shapes 1000x384,1500x384,2000x384,3000x384 --timing kernels --rounds 5 --no-sized-copy --out "$OUT/bench"
