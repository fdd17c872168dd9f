#!/usr/bin/env bash
# The split kernels' partial rows run in one wave of the blocks ptxas lets
# an SM hold (kernel-stats.py --fail-on-waves), in bf16 and f16, over the
# default backwards and the widths whose registers once came out over the
# estimate the partial count assumed: LayerNorm at N = 3500 (96 registers
# where 72 were estimated: one block an SM, 264 partial rows, 1.99 waves)
# and RMSNorm at N = 2500 (128 where 96: three an SM, 528 partial rows,
# 1.32 waves), before chooseSplitMinBlocksPerSM asked ptxas for the wave.
# Exit 77 (skipped) where CUDA's ptxas is missing.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$build/split-waves"
rm -rf "$out"
for dtype in bf16 f16; do
  python3 "$root/scripts/build-bundles.py" --compiler "$build/bin/norm-compile" --dtype "$dtype" \
    --n 1024,2048,2500,3072,3500,4096,5120,7168,8192 --out "$out/$dtype"
done
exec python3 "$root/scripts/kernel-stats.py" --fail-on-waves "$out"/*/*_bwd_*
