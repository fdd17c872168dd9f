#!/usr/bin/env bash
# Usage: chips-ptxas.sh BUILD NAME CHIPS SET_FLAG
# A set of scripts/build-bundles.py's bundles (SET_FLAG: --dtype-matrix,
# --family) compiles for every chip in CHIPS (comma-separated) into
# BUILD/NAME, and ptxas accepts each bundle for its chip. The dtype matrix:
# every op at every combination of activation type (bf16, f16, f32) and
# weight/bias type (the same, bf16, f16, f32, none), at one N of each layout
# class, with its inference forward, weight offset and bias-free variants;
# bf16 rows with f32 weights once compiled to 32-byte weight loads that only
# sm_100 has, so every op failed to load on the GPU. The family: the fused
# residual adds with FP8 outputs, L2 norm, gated RMSNorm with its groups,
# gate orders and activations, QK-norm, row- and group-scaled FP8 outputs,
# weight offsets. Exit 77 (skipped) where CUDA's ptxas is missing: without
# it nothing here would be checked.
set -euo pipefail
build="$1" name="$2" chips="$3" set_flag="$4"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! python3 -c "import sys; sys.path.insert(0, '$root/scripts'); \
from cuda_tools import ptxas_path; sys.exit(0 if ptxas_path() else 1)"; then
  echo "ptxas not found: $name is not checked"
  exit 77
fi
out="$build/$name"
rm -rf "$out"
exec python3 "$root/scripts/build-bundles.py" "$set_flag" --chips "$chips" \
  --compiler "$build/bin/norm-compile" --out "$out"
