#!/usr/bin/env bash
# f32 bundles over the widths of the bf16 check (the public N, the models'
# N, the short streamed and ragged N, 384) compile in ptxas without spills
# beyond the ones listed here: the f32 tuning-table classes (session 48) and
# the rules' four-byte layouts are checked before a GPU sees them. Exit 77
# (skipped) where CUDA's ptxas is missing.
# Known spills, each a limit a change may not exceed:
# - LayerNorm's forwards over clusters (N = 32768-131072): the rule gives a
#   thread twice the register budget of elements in clusters (64 floats;
#   bf16's 64 elements fit ptxas's 255 registers), which f32 rows overshoot:
#   88-168 bytes of spill stores, 128-224 of loads (kernel-stats counts the
#   larger). Measured at 1.06x of torch.compile at 2048 x 32768
#   with them (bench/results/h200-2026-12-04-s48-f32-table-vs-compile.log);
#   layouts without them are in bench/NOTES.md's next GPU calls.
# - RMSNorm's inference forward at N = 384, the held-rows band whose blocks
#   ask ptxas for a bound on registers (.minnctapersm), as the bf16 N = 1024
#   one in bf16-bundles-no-spills.sh: 8 bytes, up to 15 pass.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$build/f32-bundles"
rm -rf "$out"
python3 "$root/scripts/build-bundles.py" --compiler "$build/bin/norm-compile" --dtype f32 \
  --n 256,384,640,768,1000,1024,1536,2048,2560,3072,4096,4097,5120,6144,7168,8192,12288,16384,32768,32771,40000,65536,131072 \
  --out "$out"
allow=()
for limit in 32768=160 65536=160 131072=230; do
  n=${limit%=*}
  for b in ln_fwd_f32_$n ln_fwd_f32_${n}_infer; do
    allow+=(--allow-spills "$b/norm_fused=${limit#*=}")
  done
done
exec python3 "$root/scripts/kernel-stats.py" --fail-on-spills "${allow[@]}" \
  --allow-spills rms_fwd_f32_384_infer/norm_fused_4=15 "$out"/*
