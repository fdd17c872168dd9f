#!/usr/bin/env bash
# Installs what a fresh Debian machine lacks to build and test norm, then
# configures and builds. Idempotent and quiet when everything is there.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${NORM_BUILD_DIR:-$root/build}"

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libmlir-22
          ninja-build cmake g++ libgtest-dev python3-numpy python3-pytest
          python3-venv python3-dev lld)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit >/dev/null
fi
cmake --build "$build"
