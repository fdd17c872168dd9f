#!/usr/bin/env bash
# Session 56: the shapes last seen behind torch.compile, 7 rounds, at the
# predicated-stores rule (bundles under .out/s56: changed/ holds the N = 256
# / 512 forwards, all/ the default set with the N = 256 backwards).
exec > >(tee "$OUT/behind.log") 2>&1
set -x
python3 bench/bench.py --bundles .out/s56/changed --ops rms_fwd,ln_fwd \
  --shapes 1000x256,4096x256,16384x256,1500x512,4096x512 --timing kernels --rounds 7 --out $OUT
python3 bench/bench.py --bundles .out/s56/all --ops rms_bwd,ln_bwd \
  --shapes 1x256,4096x256,65536x256 --timing kernels --rounds 7 --out $OUT/bwd
