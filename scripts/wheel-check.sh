#!/usr/bin/env bash
# The wheel, installed into a clean virtual environment, compiles and runs
# with nothing else of the repository: builds it from python/ (the native
# extension against the PyTorch in $build/pydeps, the compiler library
# NormCAPIStandalone, the tuning table), installs it with --no-deps into a
# fresh venv whose only other packages are PyTorch and numpy (a .pth to
# $build/pydeps, where scripts/test.sh installed them: a second 3 GB copy
# would add nothing), and from a directory outside the repository, with
# NORM_BUILD_DIR, NORM_CAPI_LIB and PYTHONPATH unset and a fresh cache,
# checks that everything comes from the venv, compiles a GPU bundle and
# runs the ops forward and backward on CPU tensors against torch.
# Exit 77 (skipped) without PyTorch in $build/pydeps.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "${1:-${NORM_BUILD_DIR:-$root/build}}" && pwd)"
if [ ! -d "$build/pydeps/torch" ]; then
  echo "wheel-check: no PyTorch in $build/pydeps (scripts/test.sh installs it); skipped"
  exit 77
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/python" "$work/src"
mkdir -p "$work/runtime" && cp -r "$root/runtime/include" "$root/runtime/lib" "$work/runtime/"
cp -r "$root/tuning" "$work/tuning"
rm -rf "$work/src/build" "$work/src"/*.egg-info
(cd "$work/src" && PYTHONPATH="$build/pydeps" NORM_BUILD_DIR="$build" /usr/bin/python3 -m pip \
   wheel -q --disable-pip-version-check --no-build-isolation --no-deps -w "$work/dist" .)
wheel="$(ls "$work"/dist/norm_mlir-*.whl)"
echo "wheel-check: built $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-deps "$wheel"
site="$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$build/pydeps" > "$site/torch-deps.pth"
mkdir -p "$work/run" && cd "$work/run"
env -u NORM_BUILD_DIR -u NORM_CAPI_LIB -u PYTHONPATH NORM_MLIR_CACHE="$work/cache" \
  "$work/venv/bin/python" - "$work/venv" <<'PY'
import os, sys
venv = sys.argv[1]
import torch
import norm_mlir
from norm_mlir import compiler, native, functional as NF
from norm_mlir.programs import op_program

def inside(path):
    return os.path.realpath(path).startswith(os.path.realpath(venv) + os.sep)

assert inside(norm_mlir.__file__), norm_mlir.__file__
assert native.loaded and inside(native.library_path()), native.reason
assert inside(compiler._library_path()), compiler._library_path()
assert inside(compiler.tuning_table()), compiler.tuning_table()
bundle = compiler.compile_program(op_program("rms_bwd", 4096, "bf16", "bf16"), chip="sm_90")
assert ".entry" in bundle.ptx
torch.manual_seed(0)
x = torch.randn(3, 5, 256, dtype=torch.bfloat16, requires_grad=True)
w = (torch.randn(256) * 0.5 + 1).to(torch.bfloat16).requires_grad_()
b = torch.randn(256, dtype=torch.bfloat16, requires_grad=True)
xr, wr, br = (t.detach().double().requires_grad_() for t in (x, w, b))
def rel(a, r):
    return ((a.double() - r).norm() / r.norm()).item()
for ours, ref, params, refs in (
        (NF.rms_norm(x, (256,), w, 1e-6), torch.nn.functional.rms_norm(xr, (256,), wr, 1e-6),
         (x, w), (xr, wr)),
        (NF.layer_norm(x, (256,), w, b), torch.nn.functional.layer_norm(xr, (256,), wr, br),
         (x, w, b), (xr, wr, br))):
    assert rel(ours, ref) < 1e-2
    dy = torch.randn_like(x)
    got = torch.autograd.grad(ours, params, dy)
    want = torch.autograd.grad(ref, refs, dy.double())
    assert all(rel(g, r) < 2e-2 for g, r in zip(got, want))
print("wheel-check: the wheel alone compiled a GPU bundle and ran the ops on CPU")
PY
