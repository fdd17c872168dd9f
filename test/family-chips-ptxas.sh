#!/usr/bin/env bash
# The norm family's bundles (scripts/build-bundles.py --family: the fused
# residual adds with FP8 outputs, L2 norm, gated RMSNorm with its groups,
# gate orders and activations, QK-norm, row- and group-scaled FP8 outputs,
# weight offsets) compile for every kind of target chip besides sm_90 (which
# the no-spill checks build): sm_80's portable kernels, sm_90a, and
# Blackwell's sm_100a and sm_120a, which nothing here can run; ptxas accepts
# each for its chip. Exit 77 (skipped) where CUDA's ptxas is missing.
set -euo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if ! python3 -c "import sys; sys.path.insert(0, '$root/scripts'); \
from cuda_tools import ptxas_path; sys.exit(0 if ptxas_path() else 1)"; then
  echo "ptxas not found: the family's chips are not checked"
  exit 77
fi
out="$build/family-chips"
rm -rf "$out"
exec python3 "$root/scripts/build-bundles.py" --family --chips sm_80,sm_90a,sm_100a,sm_120a \
  --compiler "$build/bin/norm-compile" --out "$out"
