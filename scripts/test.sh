#!/usr/bin/env bash
# Sets up (scripts/setup.sh), builds, and runs every test through ctest: lit
# (FileCheck, verifier diagnostics, PTX checks where ptxas exists), the
# GoogleTest unit and CPU-numerics tests, and the Python runtime tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
build="${NORM_BUILD_DIR:-$root/build}"

# PyTorch for the Python package's CPU tests (custom ops, fake kernels,
# torch.compile): its PyPI wheel brings ~3 GB of CUDA libraries, so it goes
# into the build tree once (about 2-3 minutes). NORM_SKIP_TORCH=1 skips it;
# if the install fails the torch tests are skipped with a reason.
if [ "${NORM_SKIP_TORCH:-0}" != 1 ] && [ ! -d "$build/pydeps/torch" ]; then
  echo "test: installing PyTorch and numpy into $build/pydeps for the Python tests"
  python3 -m pip install -q --disable-pip-version-check --target "$build/pydeps" torch numpy \
    || echo "test: PyTorch could not be installed; its tests will be skipped"
fi

# jsonschema, which the manifest schema's test (docs/manifest.schema.json
# against both loaders) validates with; without it that test is skipped.
if [ ! -d "$build/pydeps/jsonschema" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$build/pydeps" jsonschema \
    || echo "test: jsonschema could not be installed; the manifest schema test will be skipped"
fi

# transformers, whose Llama and Qwen3 models (built from configs, nothing
# downloaded) the torch.compile integration's test compiles as they are;
# without it that test is skipped.
if [ "${NORM_SKIP_TORCH:-0}" != 1 ] && [ ! -d "$build/pydeps/transformers" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$build/pydeps" \
    "transformers==4.57.1" \
    || echo "test: transformers could not be installed; its model test will be skipped"
fi

# The native PyTorch extension (python/csrc on runtime/: the ops' schemas,
# CUDA and autograd kernels in C++), built against that PyTorch into
# $build/python, where norm_mlir.native finds it. A failed build fails the
# Python tests that expect it, rather than leaving them on the Python ops.
if [ -d "$build/pydeps/torch" ]; then
  (cd "$root/python" && PYTHONPATH="$build/pydeps" NORM_BUILD_DIR="$build" /usr/bin/python3 \
     setup.py -q build_ext --build-lib "$build/python" --build-temp "$build/python-temp/extension" \
     >"$build/python-extension.log" 2>&1) \
    || { echo "test: the native extension did not build (see $build/python-extension.log)"; \
         tail -20 "$build/python-extension.log"; }
fi

# nvdisasm (PyPI's nvidia-cuda-nvdisasm, a few MB; CUDA's apt-less install
# here has ptxas only) for the SASS that kernel-stats.py counts and
# same-launches.py --sass compares; in a directory of its own, since pip
# --target would not merge its nvidia/ into PyTorch's. Its test is skipped
# with a reason if the install fails.
if [ ! -d "$build/pytools/nvidia" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$build/pytools" \
    nvidia-cuda-nvdisasm || echo "test: nvdisasm could not be installed; its test will be skipped"
fi

# The compiler built again with ASan and UBSan into $build/sanitized (about
# 12 minutes on two cores) for the sanitized-compiler test;
# NORM_SKIP_SANITIZED=1 skips it, and that test with it.
if [ "${NORM_SKIP_SANITIZED:-0}" != 1 ]; then
  "$root/scripts/build-sanitized.sh" "$build/sanitized"
fi

cd "$build"
ctest --output-on-failure -j "$(nproc)"
