#!/usr/bin/env bash
# Sets up (scripts/setup.sh), builds, and runs every test through ctest: lit
# (FileCheck, verifier diagnostics, PTX checks where ptxas exists), the
# GoogleTest unit and CPU-numerics tests, and the Python runtime tests.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/setup.sh"
cd "${NORM_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "$(nproc)"
