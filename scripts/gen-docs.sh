#!/usr/bin/env bash
# Regenerates the op, attribute and pass reference (docs/generated/) from ODS.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${NORM_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" >/dev/null
cmake --build "$build" --target mlir-doc >/dev/null
mkdir -p "$root/docs/generated"
cp "$build"/docs/NormDialect/*.md "$root/docs/generated/"
echo "docs/generated: $(ls "$root/docs/generated" | tr '\n' ' ')"
