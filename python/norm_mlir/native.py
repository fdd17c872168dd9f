"""The native PyTorch extension (norm_mlir._ops, built from python/csrc on
top of runtime/): the ops' schemas, their CUDA kernels and their autograd
formulas in C++, so a call costs what a hand-written extension costs (check
arguments, allocate outputs, launch on the current stream) instead of a
Python launch through ctypes.

Where it is not there (not built, or built for another PyTorch release)
the ops are defined in Python (norm_mlir.python_ops) and work the same,
with about 0.1-0.3 ms more host time per call; a warning says why once,
where a GPU would run them. NORM_MLIR_NATIVE=0 turns the extension off.
"""

import glob
import os
import warnings

import torch

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def library_path():
    """The extension's shared library: in the package (a wheel or an
    in-place build), else in the repository's build tree
    ($NORM_BUILD_DIR/python, where scripts/test.sh builds it); None when
    neither has one."""
    here = os.path.dirname(os.path.abspath(__file__))
    build = os.environ.get("NORM_BUILD_DIR", os.path.join(_ROOT, "build"))
    for directory in (here, os.path.join(build, "python", "norm_mlir")):
        found = sorted(glob.glob(os.path.join(directory, "_ops*.so")))
        if found:
            return found[0]
    return None


def _load():
    if os.environ.get("NORM_MLIR_NATIVE", "1") == "0":
        return False, "turned off by NORM_MLIR_NATIVE=0"
    path = library_path()
    if path is None:
        return False, ("it is not built (pip install --no-build-isolation ./python, "
                       "or scripts/test.sh for the build tree)")
    try:
        torch.ops.load_library(path)
    except OSError as e:
        return False, (f"{path} does not load into PyTorch {torch.__version__} ({e}); "
                       "rebuild it against this PyTorch")
    return True, f"loaded from {path}"


loaded, reason = _load()

if not loaded and torch.cuda.is_available():
    warnings.warn(f"norm_mlir: the native extension is not used: {reason}. The ops launch "
                  "their kernels through Python (ctypes) instead, which adds about 0.1-0.3 ms "
                  "of host time per call.", RuntimeWarning, stacklevel=2)
