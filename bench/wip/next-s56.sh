#!/usr/bin/env bash
# Session 56's device calls, with carry [".out/s56"]:
#   all/      the 194 default bundles at the predicated-stores rule
#             (predicatesRowStores: streamed rows of at most 1 KiB)
#   changed/  the eight of them whose PTX changed (N = 256 / 512 forwards)
#   base/     the same eight at 00375e4
# `bash bench/wip/next-s56.sh check`: gpu_check --quick of all 194, the
# full gpu_check of the changed eight, and their A/B against base (the rule
# as landed: session 55's patch plus the first row's st.global).
# `bash bench/wip/next-s56.sh bench`: bench.py against torch.compile at
# the short forwards.
B=.out/s56
case "${1:-}" in
check)
  exec > >(tee "$OUT/next-s56-check.log") 2>&1
  set -x
  nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
  timeout 200 python3 bench/gpu_check.py --quick --bundles $B/all | grep -v '^ok' | tail -5
  timeout 120 python3 bench/gpu_check.py --bundles $B/changed | grep -v '^ok' | tail -5
  for f in infer stats; do
    python3 bench/ab.py --variants $B/base,$B/changed --ops rms_fwd,ln_fwd --forward $f \
      --timing kernels --rounds 5 \
      --shapes 1000x256,4096x256,16384x256,65536x256,1500x512,4096x512,16384x512
  done
  ;;
bench)
  exec > >(tee "$OUT/next-s56-bench.log") 2>&1
  set -x
  python3 bench/bench.py --bundles $B/changed --ops rms_fwd,ln_fwd \
    --shapes 1000x256,4096x256,16384x256,1500x512,4096x512 \
    --timing kernels --rounds 3 --out $OUT
  ;;
*) echo "usage: $0 check|bench" >&2; exit 2 ;;
esac
