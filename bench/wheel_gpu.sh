#!/usr/bin/env bash
# The wheel on a GPU machine: builds it there against that machine's
# PyTorch (the extension is tied to a PyTorch release), installs it into an
# empty directory, and runs the GPU tests from a copy outside the
# repository with nothing else of it: no build tree, no prebuilt cache, so
# every program is compiled on first use by the wheel's own compiler.
#
#   here:  cmake --build build --target NormCAPIStandalone
#          mkdir -p .out/dev && xz -T2 -c build/lib/standalone/libNormCAPI.so \
#            > .out/dev/libNormCAPI.so.xz
#   there: bench/wheel_gpu.sh [pytest args]   (carry .out/dev)
#          bench/wheel_gpu.sh --run COMMAND...  runs COMMAND (from the
#          repository root) with the installed wheel instead of the tests,
#          e.g. --run python3 bench/model_step.py --hidden 2048
# The wheel is left in /tmp/norm-wheel and installed in /tmp/norm-site.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
export PYTHONUNBUFFERED=1
work=/tmp/norm-wheel-build
rm -rf "$work" /tmp/norm-wheel /tmp/norm-site /tmp/norm-wheel-tests /tmp/norm-wheel-cache
mkdir -p "$work/lib/standalone"
xz -dc "$root/.out/dev/libNormCAPI.so.xz" > "$work/lib/standalone/libNormCAPI.so"
if [ -z "${CUDA_HOME:-}" ] && command -v nvcc >/dev/null; then
  CUDA_HOME="$(dirname "$(dirname "$(command -v nvcc)")")"
  export CUDA_HOME
fi
(cd "$root/python" && NORM_BUILD_DIR="$work" python3 -m pip wheel -q --no-build-isolation \
   --no-deps -w /tmp/norm-wheel .)
python3 -m pip install -q --no-deps --no-compile --target /tmp/norm-site /tmp/norm-wheel/*.whl
if [ "${1:-}" = "--run" ]; then
  shift
  exec env -u NORM_BUILD_DIR -u NORM_CAPI_LIB PYTHONPATH=/tmp/norm-site \
    NORM_MLIR_CACHE=/tmp/norm-wheel-cache "$@"
fi
mkdir -p /tmp/norm-wheel-tests
cp "$root/python/tests/test_torch_gpu.py" /tmp/norm-wheel-tests/
cd /tmp/norm-wheel-tests
env -u NORM_BUILD_DIR -u NORM_CAPI_LIB PYTHONPATH=/tmp/norm-site \
  NORM_MLIR_CACHE=/tmp/norm-wheel-cache python3 - <<'PY'
import norm_mlir, norm_mlir.compiler as c, norm_mlir.native as n
print("package:", norm_mlir.__file__)
print("compiler:", c._library_path(), " native:", n.loaded, n.reason)
assert norm_mlir.__file__.startswith("/tmp/norm-site/") and n.loaded
assert c._library_path().startswith("/tmp/norm-site/")
PY
env -u NORM_BUILD_DIR -u NORM_CAPI_LIB PYTHONPATH=/tmp/norm-site \
  NORM_MLIR_CACHE=/tmp/norm-wheel-cache python3 -m pytest -q -p no:cacheprovider \
  test_torch_gpu.py "$@"
