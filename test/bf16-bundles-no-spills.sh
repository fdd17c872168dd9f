#!/usr/bin/env bash
# Every default bf16 bundle (the public N = 1K..128K, the models' N, the
# short streamed N = 256 and 640, and the odd or ragged
# N = 24, 1000, 4097, 32771, 40000; the four kinds and the inference
# forwards) compiles in ptxas without spills: a tuning change that
# overshoots the register file shows up here, not only on the GPU. Exit 77
# (skipped) where CUDA's ptxas is missing.
# The one exception: the inference forwards' version at 4225-4752 x 1024
# asks ptxas for nine blocks an SM (.minnctapersm 9, chooseHeldRows), which
# caps its registers at 56 and spills 4 (RMSNorm) or 24 (LayerNorm) bytes
# with CUDA 13.0; up to 31 bytes pass. Likewise LayerNorm's statistics
# forward at 3697-4224 x 1024 asks for eight (.minnctapersm 8: 64 registers
# where it takes 72, 8 bytes of spill; 1.17-1.21x for the single wave it
# buys); up to 15 bytes pass. LayerNorm's statistics forward at N = 640
# (four rows a block of 96 threads, 16 of them without a vector) gets 64
# registers from ptxas unbounded and spills 8 bytes; measured with the
# spill, 1.02-1.23x over the staged row kernel; up to 15 pass.
# The fused residual add's RMSNorm inference forward at N = 5120 (320
# threads of 32 elements of its two inputs, prefetching the next row) spills
# 4 bytes and its backward at N = 131072 (a cluster of 16 x 512 threads
# holding dy, dh and h; norm_fused_1, beside the short-rows versions) 4
# bytes of stores and 8 of loads; measured with the
# spills at 95% and 94% of the copy ceiling (bench/fused_add.py, H100).
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$build/bf16-bundles"
rm -rf "$out"
python3 "$root/scripts/build-bundles.py" --bf16-only --compiler "$build/bin/norm-compile" \
  --out "$out"
exec python3 "$root/scripts/kernel-stats.py" --fail-on-spills \
  --allow-spills rms_fwd_bf16_1024_infer/norm_fused_1=31 \
  --allow-spills ln_fwd_bf16_1024_infer/norm_fused_1=31 \
  --allow-spills ln_fwd_bf16_1024/norm_fused_1=15 \
  --allow-spills ln_fwd_bf16_640/norm_fused=15 \
  --allow-spills rms_fwd_bf16_5120_add_infer/norm_fused=4 \
  --allow-spills rms_bwd_bf16_131072_add/norm_fused_1=8 "$out"/*
