#!/usr/bin/env bash
# Installs the build into a temporary prefix, builds the downstream project
# against it with find_package(NormDialect), and runs it.
set -euo pipefail
build="$1"; src="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -G Ninja -S "$src" -B "$work/build" \
  -DCMAKE_PREFIX_PATH="$work/prefix" -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
  -DCMAKE_CXX_COMPILER=g++ >/dev/null
cmake --build "$work/build" >/dev/null
"$work/build/norm-downstream"
