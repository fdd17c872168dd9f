#!/usr/bin/env bash
# The GPU test script: everything that checks norm's kernels on a GPU, run
# there from the repository with the bundles built here.
#
#   here:  python3 scripts/build-bundles.py                    # .out/bundles
#          python3 scripts/build-bundles.py --dtype-matrix --out .out/matrix
#          python3 scripts/prebuild-cache.py                   # .out/cache
#          mkdir -p .out/bin && cp build/runtime/norm-run .out/bin/
#   there: bench/gpu_tests.sh [check] [matrix] [pytest] [runtime] [sanitize]
#
# check:    bench/gpu_check.py over .out/bundles (every op, N, version edge)
# matrix:   bench/gpu_check.py over .out/matrix (every dtype combination)
# pytest:   python/tests/test_torch_gpu.py (custom ops, autograd,
#           torch.compile, mixed dtypes, misaligned and strided tensors,
#           autocast) from the prebuilt cache
# runtime:  bench/norm_run_cases.sh (the C++ runtime's edge cases)
# sanitize: bench/sanitize.py: compute-sanitizer's memcheck, racecheck and
#           synccheck over both bundle sets (needs a machine whose driver
#           the sanitizer supports: the Firecracker H100s, not gVisor)
# With no argument, all of them. Checks over several bundles run in four
# processes that share the GPU. Exit status: 1 if any part failed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PYTHONUNBUFFERED=1
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(check matrix pytest runtime sanitize)
failed=0
check_set() {
  local dir="$1" pids=() i
  for i in 0 1 2 3; do
    python3 bench/gpu_check.py --bundles "$dir" --shard "$i/4" > ".out/gpu_check_$(basename "$dir")_$i.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2 3; do
    wait "${pids[$i]}" || failed=1
    grep "^FAIL" ".out/gpu_check_$(basename "$dir")_$i.log"
    tail -n 1 ".out/gpu_check_$(basename "$dir")_$i.log"
  done
}
for part in "${parts[@]}"; do
  echo "== $part"
  case "$part" in
    check) check_set .out/bundles ;;
    matrix) check_set .out/matrix ;;
    pytest) NORM_MLIR_CACHE=.out/cache python3 -m pytest -q python/tests/test_torch_gpu.py || failed=1 ;;
    runtime) bench/norm_run_cases.sh .out/bin/norm-run .out/bundles || failed=1 ;;
    sanitize) python3 bench/sanitize.py --bundles .out/bundles --bundles .out/matrix \
                --norm-run .out/bin/norm-run || failed=1 ;;
    *) echo "unknown part '$part'"; exit 2 ;;
  esac
done
exit $failed
