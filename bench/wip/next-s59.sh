#!/usr/bin/env bash
# Session 59's device calls.
#   wb:  carry [".out/s58all", ".out/s59/wb"]. .out/s59/wb holds the N = 256
#        bundles with RMSNorm's whole-block versions (HeldRows::
#        wholeBlocksVersion: M a multiple of four, no row bounds),
#        .out/s58all main's 194 default bundles. gpu_check of the new
#        bundles (the band edges take both versions), the A/B at multiples
#        of four in every band and at rows that are not (which must be
#        level), then bench.py against torch.compile.
#   l1:  session 58's `next-s58.sh l1`, then bench.py over the public set
#        (forwards) with .out/s59all: main's 194 default bundles with wb's
#        N = 256 ones; carry [".out/s58/l1", ".out/s58/l1base", ".out/s59all"].
#   bwd: the same for the backwards.
#   fence: carry [".out/s59/fence", ".out/s59/fbase", ".out/s59/facq"]: the streamed forwards
#        at N = 256-2048 with a CTA memory fence after the preloaded column
#        loads (NORM_EXP_FENCE="membar.cta;"), which keeps ptxas from
#        sinking them past the first reduction, against main; and with
#        carry .out/s59/fwb too, LayerNorm's N = 256 bundles with the fence
#        and RMSNorm's whole-block versions (NORM_EXP_WB_LN=1).
mode=${1:-}
exec > >(tee "$OUT/next-s59-$mode.log") 2>&1
set -x
ab() { python3 bench/ab.py --timing kernels "$@"; }
case "$mode" in
wb)
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
  timeout 150 python3 bench/gpu_check.py --bundles .out/s59/wb | grep -v '^ok' | tail -8
  for f in infer stats; do
    ab --variants .out/s58all,.out/s59/wb --ops rms_fwd --forward $f --rounds 7 \
      --shapes 200x256,384x256,1000x256,2048x256,4096x256,4224x256,4752x256,8192x256,16384x256,65536x256,4097x256,16385x256
  done
  python3 bench/bench.py --bundles .out/s59/wb --ops rms_fwd --timing kernels --rounds 5 \
    --shapes 1000x256,4096x256,16384x256,65536x256 --out $OUT
  ;;
l1)
  bash bench/wip/next-s58.sh l1
  python3 bench/bench.py --bundles .out/s59all --ops rms_fwd,ln_fwd --timing kernels --rounds 2 --out $OUT
  ;;
bwd)
  python3 bench/bench.py --bundles .out/s59all --ops rms_bwd,ln_bwd --timing kernels --rounds 2 --out $OUT
  ;;
fence)
  timeout 100 python3 bench/gpu_check.py --bundles .out/s59/fwb | grep -v '^ok' | tail -4
  for f in infer stats; do
    ab --variants .out/s59/fbase,.out/s59/fence,.out/s59/facq,.out/s59/fwb --ops ln_fwd --forward $f --rounds 5 \
      --shapes 1000x256,4096x256,16384x256,65536x256,4097x256
  done
  for f in infer stats; do
    ab --variants .out/s59/fbase,.out/s59/fence,.out/s59/facq --ops ln_fwd,rms_fwd --forward $f --rounds 3 \
      --shapes 1500x512,4096x512,16384x512,4096x768,16384x768,4096x1000,4096x1024,16384x1024,65536x1024,4096x2048,16384x2048
  done
  timeout 150 python3 bench/gpu_check.py --quick --bundles .out/s59/facq | grep -v '^ok' | tail -4
  ;;
final)
  # carry [".out/s59/final256"]: the N = 256 forwards as landed (1f1a83e).
  timeout 100 python3 bench/gpu_check.py --bundles .out/s59/final256 | grep -v '^ok' | tail -4
  python3 bench/bench.py --bundles .out/s59/final256 --ops rms_fwd,ln_fwd --timing kernels --rounds 5 \
    --shapes 1000x256,2048x256,4096x256,4097x256,8192x256,16384x256,32768x256,65536x256 --out $OUT
  ;;
wball)
  # carry [".out/s59/wball", ".out/s59/wbbase"]: the forwards at N = 512-1024
  # with whole-block versions in every held-row band
  # (wip/whole-blocks-every-band.patch, NORM_EXP_WB_ALL=1; LayerNorm's
  # inference forward fenced as landed) against main (1f1a83e). M multiples
  # of 12 take them (three- and four-row bands), 4097 the bounded kernels.
  timeout 150 python3 bench/gpu_check.py --quick --bundles .out/s59/wball | grep -v '^ok' | tail -4
  for f in infer stats; do
    ab --variants .out/s59/wbbase,.out/s59/wball --ops rms_fwd,ln_fwd --forward $f --rounds 5 \
      --shapes 996x512,3000x512,6144x512,16380x512,996x768,3000x768,6144x768,16380x768,3000x1000,6144x1000,996x1024,3000x1024,4224x1024,6144x1024,16380x1024,65532x1024,4097x1024
  done
  ;;
*) echo "usage: $0 wb|l1|bwd|fence|final|wball" >&2; exit 2 ;;
esac
