#!/usr/bin/env bash
# Every op at every combination of activation type (bf16, f16, f32) and
# weight/bias type (the same, bf16, f16, f32, none), at one N of each
# layout class, with its inference forward, weight offset and bias-free
# variants (scripts/build-bundles.py --dtype-matrix), compiles for every
# kind of target chip (sm_80's portable kernels, Hopper's, and Blackwell's
# sm_100a and sm_120a, which nothing here can run) and is accepted by ptxas
# for it. bf16 rows with f32 weights
# once compiled to 32-byte weight loads that only sm_100 has, so every op
# failed to load on the GPU. Exit 77 (skipped) where CUDA's ptxas is
# missing: without it nothing here would be checked.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! python3 -c "import sys; sys.path.insert(0, '$root/scripts'); \
from cuda_tools import ptxas_path; sys.exit(0 if ptxas_path() else 1)"; then
  echo "ptxas not found: the dtype matrix is not checked"
  exit 77
fi
out="$build/dtype-matrix"
rm -rf "$out"
exec python3 "$root/scripts/build-bundles.py" --dtype-matrix --chips sm_80,sm_90,sm_100a,sm_120a \
  --compiler "$build/bin/norm-compile" --out "$out"
