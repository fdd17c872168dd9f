#!/usr/bin/env bash
# The family's bundles (scripts/build-bundles.py --family: the fused
# residual adds with FP8 outputs, L2 norm, gated RMSNorm with its groups and
# gate forms, QK-norm, FP8 row and group scales) compile in ptxas for sm_90
# without spills beyond the ones listed here. Exit 77 (skipped) where CUDA's
# ptxas is missing.
# Known spills, each a limit a change may not exceed; all three are blocks
# that take the whole register file (one block an SM) and none has been
# timed without its spill:
# - the grouped gated backward at N = 8192 (8 groups; 1024 threads at 64
#   registers): 48 bytes, up to 63 pass;
# - LayerNorm's group-scaled FP8 forward at N = 16384 (512 threads at 128):
#   52 bytes of stores and 104 of loads, up to 127 pass;
# - the fused residual add's group-scaled FP8 RMSNorm forward at N = 16384
#   (1024 threads at 64): 20 bytes, up to 31 pass.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$build/family-bundles"
rm -rf "$out"
python3 "$root/scripts/build-bundles.py" --family --compiler "$build/bin/norm-compile" \
  --out "$out"
exec python3 "$root/scripts/kernel-stats.py" --fail-on-spills \
  --allow-spills gated_bwd_bf16_8192_g8/norm_fused=63 \
  --allow-spills ln_fwd_bf16_16384_quant_g128/norm_fused=127 \
  --allow-spills rms_fwd_bf16_16384_add_quant_g128/norm_fused=31 "$out"/*
