#!/usr/bin/env bash
# The compiler built with AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/build-sanitized.sh): its unit tests, the lit tests, the bad
# options and two minutes of fuzzing, every sanitizer report fatal. Signed
# overflow that the plain build wraps silently (option values past 2^31)
# shows up only here. Exits 77 (skipped) where no such build exists.
set -uo pipefail
sanitized="$1"
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ ! -x "$sanitized/bin/norm-opt" ] || [ ! -x "$sanitized/unittests/NormUnitTests" ]; then
  echo "skipped: no sanitized build in $sanitized (scripts/build-sanitized.sh makes one)"
  exit 77
fi
# The fuzzer's --sanitized environment (fuzz/norm_fuzz.py says why each
# part): the sanitizers' options for every step, the runtimes preloaded
# (LD_PRELOAD) for the steps that start uninstrumented programs loading
# norm's instrumented libraries (mlir-opt with the plugin, the C API test).
preload=""
while IFS='=' read -r key value; do
  if [ "$key" = LD_PRELOAD ]; then preload="$value"; else export "$key=$value"; fi
done < <(python3 "$root/fuzz/norm_fuzz.py" --print-sanitizer-environment)
[ -n "$preload" ] || { echo "sanitized-compiler: no sanitizer runtimes found"; exit 1; }
failed=()
step() {
  local name="$1"
  shift
  echo "== $name"
  local start=$SECONDS
  if "$@"; then echo "-- $name: ok ($((SECONDS - start)) s)"; else failed+=("$name"); fi
}
step unit env LD_PRELOAD="$preload" "$sanitized/unittests/NormUnitTests" --gtest_brief=1
step lit env LD_PRELOAD="$preload" /usr/lib/llvm-22/bin/lit -q "$sanitized/test"
step bad-options "$root/test/bad-options-fail-cleanly.sh" "$sanitized"
step fuzz python3 "$root/fuzz/norm_fuzz.py" --build "$sanitized" --sanitized \
  --seconds 120 --seed 5 --out "$sanitized/fuzz-findings"
if [ ${#failed[@]} -gt 0 ]; then
  echo "FAILED under the sanitizers: ${failed[*]}"
  exit 1
fi
