#!/usr/bin/env bash
# First call of the session after 52 (ready to build): the f32 forwards at
# N = 10240-12288 (rows of 40-48 KB) with up to 1024 threads holding the row
# (wip/f32-wide-stream.patch lifts the two-byte condition of
# chooseStreamingLayout's wide branch) against 512 x 4 re-reading it, and
# gpu_check of f16 at the N this session changed (not yet run on the GPU).
# Predicted from bf16 (h200-2026-12-04-s52-wide-stream-blocks.log):
# 1.05-1.2x for the f32 forwards; gpu_check all passed.
# Build here first:
#   python3 scripts/build-bundles.py --n 10240,12288 --dtype f32 --out .out/s53f32base --jobs 2
#   git apply bench/wip/f32-wide-stream.patch && (cd build && ninja)
#   python3 scripts/build-bundles.py --n 10240,12288 --dtype f32 --out .out/s53f32wide --jobs 2
#   git checkout lib/Tuning/RowLayouts.cpp && (cd build && ninja)
#   python3 scripts/build-bundles.py --n 8448,9216,10240,20000,24576 --dtype f16 --out .out/s53f16 --jobs 2
#   rm -rf .out/s53f32base/*bwd* .out/s53f32wide/*bwd*
# Run with carry [".out/s53f32base", ".out/s53f32wide", ".out/s53f16"].
exec > >(tee "$OUT/next-s53-first-call.log") 2>&1
set -x
python3 bench/gpu_check.py --bundles .out/s53f16 | grep -v '^ok' | tail -3
python3 bench/gpu_check.py --bundles .out/s53f32wide | grep -v '^ok' | tail -3
for fwd in infer stats; do
python3 bench/ab.py --variants .out/s53f32base,.out/s53f32wide --dtype f32 --ops rms_fwd,ln_fwd --forward $fwd \
  --timing kernels --rounds 3 --shapes 512x10240,2048x10240,8192x10240,512x12288,2048x12288,8192x12288
done
