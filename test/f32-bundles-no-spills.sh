#!/usr/bin/env bash
# f32 bundles over the widths of the bf16 check (the public N, the models'
# N, the short streamed and ragged N, 384) compile in ptxas without spills
# beyond the ones listed here: the f32 tuning-table classes and
# the rules' four-byte layouts are checked before a GPU sees them. Exit 77
# (skipped) where CUDA's ptxas is missing.
# Known spills, each a limit a change may not exceed (four-byte LayerNorm
# clusters get the register budget once, not twice, and four-byte clusters
# of x and dy 16 registers of slack, so that neither spills):
# - RMSNorm's inference forward at N = 384, the held-rows band whose blocks
#   ask ptxas for a bound on registers (.minnctapersm), as the bf16 N = 1024
#   one in bf16-bundles-no-spills.sh: 8 bytes, up to 15 pass.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$build/f32-bundles"
rm -rf "$out"
python3 "$root/scripts/build-bundles.py" --compiler "$build/bin/norm-compile" --dtype f32 \
  --n 256,384,640,768,1000,1024,1536,2048,2560,3072,4096,4097,5120,6144,7168,8192,12288,16384,20736,22528,24576,32768,32771,40000,65536,131072 \
  --out "$out"
exec python3 "$root/scripts/kernel-stats.py" --fail-on-spills \
  --allow-spills rms_fwd_f32_384_infer/norm_fused_4=15 "$out"/*
