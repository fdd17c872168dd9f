#!/usr/bin/env bash
# Every norm-compile option at values far outside its range, and odd
# targets, either compiles or fails with an error: exit 0 or 1, within a
# few seconds, never an LLVM abort, an assertion or a hang. Each of these
# once did: register-budget=99999999999999 searched layouts for over 15
# minutes, rows-per-block=4096 unrolled its held rows into 18 GB and a
# minute, chip=0 aborted in LLVM's instruction selection, an empty chip
# crashed it and sm_100 with the default +ptx81 was a fatal LLVM error.
set -uo pipefail
build="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
compiler="$build/bin/norm-compile"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

numeric=(bulk-stores combine-lanes combine-threads l2-prefetch-rows
         max-cluster-size max-partials min-blocks-per-sm min-partials
         min-rows-per-partial num-sms num-stages opt-level register-budget
         rows-per-block shared-stages short-rows split-size warp-rows
         shared-memory-per-block shared-memory-per-sm threads-per-sm
         registers-per-sm)
failures=0
try() {
  local input="$1"
  shift
  local log="$out/log"
  timeout 20 "$compiler" "$input" -o "$out/bundle" --quiet "$@" >"$log" 2>&1
  local rc=$?
  if [ "$rc" -gt 1 ] || grep -q "LLVM ERROR\|Assertion\|Stack dump\|UNREACHABLE\|terminate called" "$log"; then
    echo "FAIL: $(basename "$input") $* -> exit $rc"
    head -3 "$log"
    failures=$((failures + 1))
  fi
}
for input in "$root/examples/layer_norm_bwd.mlir" "$root/examples/rms_norm_fwd.mlir"; do
  for option in "${numeric[@]}"; do
    for value in -7 0 3 2147483648 99999999999999 9223372036854775807 -9223372036854775808 abc; do
      try "$input" "--$option=$value"
    done
  done
  for chip in 0 sm_80 sm_9 sm_100 sm_120 ""; do
    try "$input" "--chip=$chip"
  done
  for features in "" +ptx78 +ptx89 xyz "+ptx81,+ptx82"; do
    try "$input" "--features=$features"
  done
done
if [ "$failures" -gt 0 ]; then
  echo "$failures option values crashed, aborted or hung the compiler"
  exit 1
fi
echo "every option value compiled or failed with an error"
