#!/usr/bin/env bash
# Compile time of one kernel from user-level IR to PTX (issue: under 0.2 s on
# the 2-core development machine): norm-compile per example, median of 7.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${NORM_BUILD_DIR:-$root/build}/bin/norm-compile"
opt="${NORM_BUILD_DIR:-$root/build}/bin/norm-opt"
out="$(mktemp -d)"; trap 'rm -rf "$out"' EXIT
# Timings differ between development machines by 2x and more: name this one.
printf '# %s, %s cores, %s\n' "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)" \
  "$(nproc)" "$(date -u +%Y-%m-%d)"
# The examples, and long rows spread over clusters (test/Target/Inputs).
for example in "$root"/examples/*.mlir "$root"/test/Target/Inputs/*_long.mlir; do
  times=()
  for i in 1 2 3 4 5 6 7; do
    start=$(date +%s.%N)
    "$bin" "$example" -o "$out/b" --quiet
    end=$(date +%s.%N)
    times+=("$(echo "$end - $start" | bc)")
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)
  printf '%-22s norm-compile %6.3f s (median of 7, norm IR -> PTX + manifest)\n' "$(basename "$example")" "$median"
  # norm-opt as mlir-opt runs by default (the IR verified after every
  # pass), and as norm-compile runs the passes (verified where each
  # pipeline ends: compileToBundle).
  for verify in 1 0; do
    times=()
    for i in 1 2 3 4 5 6 7; do
      start=$(date +%s.%N)
      "$opt" "$example" --norm-to-ptx --verify-each=$verify -o /dev/null
      end=$(date +%s.%N)
      times+=("$(echo "$end - $start" | bc)")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 4p)
    printf '%-22s norm-opt     %6.3f s (median of 7, --norm-to-ptx --verify-each=%s)\n' \
      "$(basename "$example")" "$median" "$verify"
  done
done
# The same compilations in one process through the C API, as norm_mlir
# compiles (no process start).
NORM_BUILD_DIR="${NORM_BUILD_DIR:-$root/build}" python3 "$root/bench/compile_time_in_process.py"
