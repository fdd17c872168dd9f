"""norm_mlir: normalization kernels compiled by the norm MLIR dialect.

The runtime half (bundle loading and launching) needs only the CUDA driver and
PyTorch; compiling needs the `norm-compile` tool from the C++ build.
"""

from .bundle import Bundle, BundleError, load_bundle
from .programs import program_text

__all__ = ["Bundle", "BundleError", "load_bundle", "program_text"]
