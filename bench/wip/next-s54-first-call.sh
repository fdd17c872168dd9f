#!/usr/bin/env bash
# First call of the session after 53 (ready to build; session 53's second
# call was built and never ran: no device was lent after the first).
#  (a) rms_bwd_bf16_2560, the one default bundle chooseSplitMinBlocksPerSM
#      changed (same registers and blocks, different SASS): old (2e0cfae)
#      vs new. Predicted level (0.98-1.02x).
#  (b) bench.py against torch.compile: LN bwd 3500 and RMS bwd 2500 as the
#      rule builds them (1.27-1.32x / 1.09-1.21x of before in the A/B).
#  (c) RMS fwd at 48-64 KB rows (N = 24576-30720): held (HEAD) vs 1024
#      threads streaming one vector (wip/rms-stream-48k.patch; the patch
#      moves LayerNorm too, so only RMSNorm is read), ab.py and bench.py
#      against torch.compile. Session 53's A/B: 1.01-1.04x at 24576,
#      0.97-1.03x at 28672. Land for RMSNorm (by row reductions) if
#      streaming wins and is ahead of torch.compile at 2048 x 24576.
#  (d) f32 forwards held up to 1024 threads (wip/f32-wide-stream.patch)
#      vs 512 x 4 at N = 9216-14336. Session 53 at 10240-12288: RMS
#      1.01-1.03x geomean (0.97-1.15x), LN 1.01-1.02x. Land where it wins.
#  (e) (session 54) the split kernel's ptxas bound also where the table
#      measured the N (wip/split-bound-at-measured-n.patch): of the 194
#      default bundles only RMS bwd N = 4096 changes (bf16, f16, gemma,
#      prefetch), SASS 544 -> 536 instructions in session 53. Predicted
#      level (0.98-1.02x); land only if ahead at the public 16384 / 65536 x
#      4096 and level at 1000-4096 rows.
# Build here first (all under .out/s54, the one carry):
#   B=.out/s54; mkdir -p $B/new $B/old $B/held $B/u1 $B/f32base $B/f32wide
#   python3 scripts/build-bundles.py --n 2500,2560,3500 --out /tmp/s54new --jobs 2
#   cp -r /tmp/s54new/*_bwd_* $B/new/
#   python3 scripts/build-bundles.py --n 24576,26624,28672,30720 --out /tmp/s54held --jobs 2
#   cp -r /tmp/s54held/rms_fwd* $B/held/
#   python3 scripts/build-bundles.py --n 9216,10240,11264,12288,14336 --dtype f32 --out /tmp/s54f32b --jobs 2
#   cp -r /tmp/s54f32b/*fwd* $B/f32base/
#   git apply bench/wip/rms-stream-48k.patch && (cd build && ninja norm-compile)
#   python3 scripts/build-bundles.py --n 24576,26624,28672,30720 --out /tmp/s54u1 --jobs 2
#   cp -r /tmp/s54u1/rms_fwd* $B/u1/ && git checkout lib/Tuning/RowLayouts.cpp
#   git apply bench/wip/f32-wide-stream.patch && (cd build && ninja norm-compile)
#   python3 scripts/build-bundles.py --n 9216,10240,11264,12288,14336 --dtype f32 --out /tmp/s54f32w --jobs 2
#   cp -r /tmp/s54f32w/*fwd* $B/f32wide/ && git checkout lib/Tuning/RowLayouts.cpp
#   git worktree add /tmp/old2e0 2e0cfae && cmake -S /tmp/old2e0 -B /tmp/old2e0/build -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
#     -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir && ninja -C /tmp/old2e0/build norm-compile
#   python3 scripts/build-bundles.py --compiler /tmp/old2e0/build/bin/norm-compile --n 2560 --out /tmp/s54old --jobs 2
#   cp -r /tmp/s54old/rms_bwd_bf16_2560 $B/old/
#   python3 scripts/build-bundles.py --n 4096 --out /tmp/s54b0 --jobs 2
#   mkdir -p $B/b4096 $B/b4096bound && cp -r /tmp/s54b0/rms_bwd_bf16_4096 $B/b4096/
#   git apply bench/wip/split-bound-at-measured-n.patch && (cd build && ninja norm-compile)
#   python3 scripts/build-bundles.py --n 4096 --out /tmp/s54b1 --jobs 2
#   cp -r /tmp/s54b1/rms_bwd_bf16_4096 $B/b4096bound/ && git checkout lib/Tuning/KernelPlan.cpp
#   (cd build && ninja)
# (The old compiler is built in a worktree: checking 2e0cfae's lib and
# include out over HEAD's tree mixes its monolithic Tuning.h with the topic
# headers session 54 split it into.)
# Run with carry [".out/s54"].
exec > >(tee "$OUT/next-s54-first-call.log") 2>&1
set -x
B=.out/s54
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
for d in new u1 f32wide b4096bound; do
  python3 bench/gpu_check.py --bundles $B/$d | grep -v '^ok' | tail -2
done
python3 bench/ab.py --variants $B/old,$B/new --ops rms_bwd --timing kernels --rounds 5 \
  --shapes 2048x2560,4096x2560,16384x2560,65536x2560
for fwd in infer stats; do
python3 bench/ab.py --variants $B/held,$B/u1 --ops rms_fwd --forward $fwd --timing kernels --rounds 3 \
  --shapes 512x24576,2048x24576,8192x24576,512x26624,2048x26624,8192x26624,512x30720,2048x30720,8192x30720
python3 bench/ab.py --variants $B/f32base,$B/f32wide --dtype f32 --ops rms_fwd,ln_fwd --forward $fwd --timing kernels --rounds 3 \
  --shapes 512x9216,2048x9216,8192x9216,512x11264,2048x11264,8192x11264,512x14336,2048x14336,8192x14336
done
python3 bench/bench.py --bundles $B/new --ops ln_bwd --shapes 4096x3500,16384x3500 \
  --timing kernels --rounds 3 --no-sized-copy --out $OUT
python3 bench/bench.py --bundles $B/new --ops rms_bwd --shapes 4096x2500,16384x2500 \
  --timing kernels --rounds 3 --no-sized-copy --out $OUT
for d in u1 held; do
python3 bench/bench.py --bundles $B/$d --ops rms_fwd --shapes 2048x24576,8192x24576,2048x26624,2048x28672 \
  --timing kernels --rounds 3 --no-sized-copy --out $OUT
done
python3 bench/ab.py --variants $B/b4096,$B/b4096bound --ops rms_bwd --timing kernels --rounds 5 \
  --shapes 1000x4096,4096x4096,16384x4096,65536x4096
