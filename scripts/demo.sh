#!/usr/bin/env bash
# The main job: set up and build (scripts/setup.sh), then compile an example
# norm program (default: the RMSNorm backward) to a PTX kernel bundle and show
# what was generated.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh" >/dev/null
build="${NORM_BUILD_DIR:-$root/build}"
example="${1:-$root/examples/rms_norm_bwd.mlir}"
out="$build/bundles/$(basename "$example" .mlir)"
"$build/bin/norm-compile" "$example" -o "$out"
echo
echo "== the mixed-order kernel after convert-norm-to-gpu (first lines) =="
# The same tuning table norm-compile reads by default, so the IR shown is the
# kernel in the bundle above.
# Written to a file first and read without `| head`: under pipefail a
# writer that head has stopped reading from fails with SIGPIPE (rc 141).
"$build/bin/norm-opt" "$example" --norm-to-gpu="tuning-table=$root/tuning/h200.json" \
  -o "$out/gpu.mlir"
awk '/gpu.func @norm_fused/ { on = 1 } on { print; if (++n == 20) exit }' "$out/gpu.mlir"
echo
echo "== PTX entry points and the first vector loads =="
grep -m 8 -E '^\.visible \.entry|ld\.global\.v4' "$out/kernels.ptx"
if command -v ptxas >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ptxas ]; then
  echo
  echo "== ptxas -arch=sm_90 -v =="
  "$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)" -arch=sm_90 -v "$out/kernels.ptx" -o /dev/null 2>&1 | grep -E 'entry|Used|spill'
fi
