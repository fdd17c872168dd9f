#!/usr/bin/env bash
# Runs the C++ runtime's smoke test (norm-run: the kernel bundle through
# runtime/ and the CUDA driver only, no Python, no MLIR) on the edge cases
# the Python checks do not reach through that runtime: M = 0 and 1, M not a
# multiple of the split, long rows over clusters, a large M. One line per
# case with its name, M, the last line norm-run printed and its exit code,
# so a case that crashes or times out still shows up.
#
#   bench/norm_run_cases.sh [NORM_RUN] [BUNDLES]   (defaults: .out/bin/norm-run,
#                                                   .out/bundles)
# Exit status: 1 if any case failed (rc != 0), else 0. Where the machine has
# no GPU, norm-run reports itself skipped (rc 0).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
run="${1:-$root/.out/bin/norm-run}"
bundles="${2:-$root/.out/bundles}"
# Forward references are computed on the CPU in float64; the largest case
# (rms_fwd N = 1024 at M = 200000, 205M elements) needs more than 20 s.
limit="${NORM_RUN_TIMEOUT:-120}"
cases=(
  "ln_fwd_bf16_8192 4097" "rms_fwd_bf16_1024 200000" "ln_fwd_bf16_32768 1"
  "rms_fwd_bf16_4096 0" "ln_fwd_bf16_2048 3" "ln_fwd_bf16_131072 300"
  "rms_fwd_bf16_65536 1" "ln_fwd_bf16_65536 0"
  # Forwards at N = 1000-1024: streamed, a row a block below 3168 rows and
  # four a block from there (chooseHeldRows: two launches with a `when`
  # each), the last block's rows ragged at 3169 and 4097.
  "ln_fwd_bf16_1024 100" "ln_fwd_bf16_1024 300" "ln_fwd_bf16_1024 5000"
  "ln_fwd_bf16_1024 3167" "ln_fwd_bf16_1024 3169" "rms_fwd_bf16_1000 4097"
  "ln_bwd_bf16_1024 200000" "ln_bwd_bf16_1024 1" "ln_bwd_bf16_16384 0"
  "ln_bwd_bf16_131072 300" "ln_bwd_bf16_7168 4097" "rms_bwd_bf16_7168 9362"
  "rms_bwd_bf16_131072 512"
  # Short-rows versions (a launch's `when`): the single block below 2 rows
  # (M = 0 and 1: its column outputs are sums of no rows and of one), the
  # row and whole-column kernels of the backwards below their limit, the
  # limit itself, the streamed forward.
  "rms_bwd_bf16_4096 1" "ln_bwd_bf16_4096 1" "ln_bwd_bf16_4096 2"
  "rms_bwd_bf16_4096 37" "rms_bwd_bf16_4096 0" "rms_bwd_bf16_4096 256"
  "ln_bwd_bf16_1024 767" "ln_bwd_bf16_1024 768" "rms_fwd_bf16_4096 1535"
  "rms_fwd_bf16_1024 6144" "rms_fwd_bf16_1024 16895"
)
failed=0
for c in "${cases[@]}"; do
  set -- $c
  last="$(timeout "$limit" "$run" "$bundles/$1" "$2" 2>&1 | tail -1)"
  rc=${PIPESTATUS[0]}
  [ "$rc" -eq 124 ] && last="timed out after $limit s"
  echo "== $1 M=$2: $last  rc=$rc"
  [ "$rc" -ne 0 ] && failed=1
done
exit $failed
