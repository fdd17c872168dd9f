#!/usr/bin/env bash
# Second call after session 55: the timing items of next-s54-first-call.sh
# that need no old compiler, from bundles built at 36844ee (no kernel change
# since session 54), all under .out/s55 (under 1 MB):
#  (b) bench.py against torch.compile: LN bwd 3500 and RMS bwd 2500 as the
#      rule builds them (session 53's A/B: 1.27-1.32x / 1.09-1.21x of before).
#  (e) the split kernel's ptxas bound also where the table measured the N
#      (wip/split-bound-at-measured-n.patch), RMS bwd N = 4096: predicted
#      level; land only if ahead at 16384 / 65536 x 4096 and level below.
#  (f) with "ncu" as the first argument instead: RMS fwd 4096 x 256 (0.94x),
#      the no-bounds held-row kernel (wip/held-row-index-experiments.patch,
#      NORM_EXP_NOBOUNDS=1) under ncu beside Inductor's. Only at 4096 rows:
#      without bounds a block past M reads and writes past the tensors, so
#      these bundles are for this look alone (no gpu_check).
# Build here first:
#   B=.out/s55; mkdir -p $B/new $B/b4096 $B/b4096bound $B/nb256
#   python3 scripts/build-bundles.py --n 2500,3500 --out /tmp/s55new --jobs 2
#   cp -r /tmp/s55new/*_bwd_* $B/new/
#   python3 scripts/build-bundles.py --n 4096 --out /tmp/s55b0 --jobs 2
#   cp -r /tmp/s55b0/rms_bwd_bf16_4096 $B/b4096/
#   git apply bench/wip/split-bound-at-measured-n.patch && (cd build && ninja norm-compile)
#   python3 scripts/build-bundles.py --n 4096 --out /tmp/s55b1 --jobs 2
#   cp -r /tmp/s55b1/rms_bwd_bf16_4096 $B/b4096bound/ && git checkout lib/
#   git apply bench/wip/held-row-index-experiments.patch && (cd build && ninja norm-compile)
#   NORM_EXP_NOBOUNDS=1 python3 scripts/build-bundles.py --n 256 --out /tmp/s55nb --jobs 2
#   cp -r /tmp/s55nb/rms_fwd_bf16_256* $B/nb256/ && git checkout lib/ && (cd build && ninja)
# Run with carry [".out/s55"]: `bash bench/wip/next-s55-timing.sh`, then
# `bash bench/wip/next-s55-timing.sh ncu`.
B=.out/s55
if [ "${1:-}" = ncu ]; then
  exec > >(tee "$OUT/next-s55-ncu.log") 2>&1
  set -x
  bash bench/wip/ncu-full-4096x256.sh $B/nb256
  exit
fi
exec > >(tee "$OUT/next-s55-timing.log") 2>&1
set -x
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
for d in new b4096bound; do
  python3 bench/gpu_check.py --bundles $B/$d | grep -v '^ok' | tail -2
done
python3 bench/ab.py --variants $B/b4096,$B/b4096bound --ops rms_bwd --timing kernels --rounds 5 \
  --shapes 1000x4096,4096x4096,16384x4096,65536x4096
python3 bench/bench.py --bundles $B/new --ops ln_bwd --shapes 4096x3500,16384x3500 \
  --timing kernels --rounds 3 --no-sized-copy --out $OUT
python3 bench/bench.py --bundles $B/new --ops rms_bwd --shapes 4096x2500,16384x2500 \
  --timing kernels --rounds 3 --no-sized-copy --out $OUT
