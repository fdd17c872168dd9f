#!/usr/bin/env bash
# First call after session 55 (which had no device): the runtime changes it
# made without a GPU, checked on one before anything is timed.
#  - both Launchers refuse a call in another CUDA context (9fd1a86); the
#    torch ops key their Launchers by device: the GPU pytest (single-GPU
#    tests cover the changed first-call path; test_two_devices_in_one_process
#    runs only on nvidia-h200-x2);
#  - the C++ loader's structure checks, ceildiv and bindRows (103dd6d) and
#    the context check, through norm-run on its edge cases;
#  - gpu_check of the default bundles (the Python loader's manifest checks,
#    103dd6d, read every one of them).
# Build here first (about 20 MB in all, under the three carried paths):
#   python3 scripts/prebuild-cache.py                 # .out/cache
#   mkdir -p .out/bin && cp build/runtime/norm-run .out/bin/
#   python3 scripts/build-bundles.py --jobs 2         # .out/bundles
# Run with carry [".out/cache", ".out/bin", ".out/bundles"]; then the
# timing script, bench/wip/next-s54-first-call.sh, as the second call.
exec > >(tee "$OUT/next-s55-runtime-checks.log") 2>&1
set -x
nvidia-smi --query-gpu=name --format=csv
NORM_MLIR_CACHE=.out/cache timeout 200 python3 -m pytest -q python/tests/test_torch_gpu.py python/tests/test_bundle.py 2>&1 | tail -15
NORM_RUN_TIMEOUT=60 timeout 160 bash bench/norm_run_cases.sh .out/bin/norm-run .out/bundles
timeout 170 python3 bench/gpu_check.py --quick --bundles .out/bundles | grep -v "^ok" | tail -5
