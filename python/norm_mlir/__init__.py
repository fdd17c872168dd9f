"""norm_mlir: normalization kernels compiled by the norm MLIR dialect.

The runtime half (bundle loading and launching) needs only the CUDA driver and
PyTorch; compiling needs the `norm-compile` tool from the C++ build.
"""

from .bundle import Bundle, BundleError, load_bundle
from .compiler import CompileError, compile_program
from .programs import program_text

__all__ = ["Bundle", "BundleError", "CompileError", "compile_program", "load_bundle",
           "program_text"]

try:  # The PyTorch integration needs torch; the bundle runtime does not.
    import torch  # noqa: F401
except ImportError:
    pass
else:
    from .modules import (FusedAddLayerNorm, FusedAddRMSNorm, L2Norm, LayerNorm,  # noqa: F401
                          RMSNorm, RMSNormGated)
    from . import functional, ops  # noqa: F401
    from .fx_passes import compile  # noqa: F401
    __all__ += ["FusedAddLayerNorm", "FusedAddRMSNorm", "L2Norm", "LayerNorm", "RMSNorm",
                "RMSNormGated", "compile", "functional", "ops"]
