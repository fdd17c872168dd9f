#!/usr/bin/env bash
# Session 58's device calls, with carry [".out/s58"]:
#   f16/, f32/   N = 256 / 512 f16 and N = 256 f32 bundles, which the
#                predicated row stores reach and no default bundle has
#   base/        the 58 default bundles whose PTX the branch offsets32
#                changes, as main (6942cc2) builds them
#   off/         the same with later held rows addressed at constant offsets
#                from the first (NO32=1: 64-bit offsets)
#   p32/         the same with 32-bit offsets where the rows bound them
#   lean256/     the N = 256 forwards with wip/held-row-index-experiments
#                .patch's three hooks (no row bounds: M % 4 == 0 only)
#   o2base/, o2/ the 47 default bundles whose PTX changes when NVPTX code
#                generation runs at -O2 under the -O3 IR pipeline
# `check`: gpu_check of the new bundles and the A/B at N = 256;
# `ab`: the A/B of the other short forwards; `o2`: the -O2 A/B and
# bench.py against torch.compile at N = 256.
B=.out/s58
mode=${1:-}
exec > >(tee "$OUT/next-s58-$mode.log") 2>&1
set -x
ab() { python3 bench/ab.py --timing kernels "$@"; }
case "$mode" in
check)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
  for d in f16 f32 off p32; do
    timeout 150 python3 bench/gpu_check.py --bundles $B/$d | grep -v '^ok' | tail -8
  done
  for f in infer stats; do
    ab --variants $B/base,$B/off,$B/p32,$B/lean256 --ops rms_fwd,ln_fwd --forward $f \
      --rounds 7 --shapes 1000x256,4096x256,16384x256,65536x256
  done
  ;;
ab)
  for f in infer stats; do
    ab --variants $B/base,$B/off,$B/p32 --ops rms_fwd,ln_fwd --forward $f --rounds 5 \
      --shapes 4096x768,16384x768,4096x1000,1000x1024,4096x1024,32768x1024,1000x2048,4096x2048,32768x2048,1000x4096,4096x4096,16384x4096
  done
  ;;
o2)
  timeout 150 python3 bench/gpu_check.py --bundles $B/o2 | grep -v '^ok' | tail -8
  o2() { ab --variants $B/o2base,$B/o2 --rounds 5 --ops "$@"; }
  o2 ln_bwd --shapes 8192x4097,8192x8192,4096x12288,2048x32771
  o2 rms_bwd --shapes 16384x3072,65536x4096,8192x4097,8192x8192,4096x12288,4096x16384,2048x32768,2048x32771,1024x40000,1024x65536
  o2 ln_fwd --shapes 8192x4097,2048x32771,1024x40000,1024x65536,512x131072
  o2 rms_fwd --shapes 16384x640,16384x768,8192x4097,2048x32771,1024x65536,512x131072
  ;;
nob|l1) ;;
*) echo "usage: $0 check|ab|o2|nob|l1" >&2; exit 2 ;;
esac
# `nob`: no row bounds alone (nob256/) against base and lean256.
if [ "$mode" = nob ]; then
  for f in infer stats; do
    ab --variants $B/base,$B/nob256,$B/lean256 --ops rms_fwd,ln_fwd --forward $f --rounds 7 \
      --shapes 4096x256,16384x256,65536x256
  done
fi
# `l1`: LayerNorm's held-row forwards with their weight and bias prefetched
# into L1 with the rows (NORM_EXP_L1=1, prefetchColumns for every column
# kernel with two or more column inputs), l1/ against l1base/ (main).
if [ "$mode" = l1 ]; then
  timeout 120 python3 bench/gpu_check.py --bundles $B/l1 | grep -v '^ok' | tail -4
  for f in infer stats; do
    ab --variants $B/l1base,$B/l1 --ops ln_fwd --forward $f --rounds 7 \
      --shapes 1000x256,4096x256,16384x256,65536x256,4096x512,16384x512,4096x1024,16384x1024,4096x2048,16384x2048
  done
fi
