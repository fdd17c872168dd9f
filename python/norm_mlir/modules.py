"""Drop-in replacements for torch.nn.RMSNorm and torch.nn.LayerNorm.

Same constructor arguments, parameters and state_dict keys. CUDA inputs run
the norm GPU kernels and CPU inputs the CPU lowering (both through the custom
ops in ops.py); without a compiler for the CPU path, or on other devices, the
modules fall back to torch.nn.functional so a model keeps working.
"""

import math
import numbers

import torch
import torch.nn.functional as F

from . import compiler, ops


def _param(shape, device, dtype):
    return torch.nn.Parameter(torch.empty(shape, device=device, dtype=dtype))


def _flat_size(module, x):
    """N (the product of the normalized dimensions) when the custom ops run
    `x`, else None (the caller falls back to torch.nn.functional)."""
    k = len(module.normalized_shape)
    if not _runs_here(x) or tuple(x.shape[-k:]) != module.normalized_shape:
        return None
    return math.prod(module.normalized_shape)


def _runs_here(x):
    """Whether the custom ops run `x`: CUDA tensors (bundles), or CPU tensors
    when the compiler is available for the CPU lowering."""
    return x.is_cuda or (x.device.type == "cpu" and _cpu_compiler())


@torch.compiler.assume_constant_result
def _cpu_compiler():
    # Looking for the library touches the file system, which torch.compile
    # cannot trace (with fullgraph=True it would fail when the first call of
    # a module is a compiled one); its answer does not change in a process.
    return compiler._library() is not None


def _needs_grad(*tensors):
    """Whether autograd will need this call's backward: only then does the
    forward save its statistics (mean, rstd) for it; otherwise the modules
    run the inference forward, whose kernel stores neither."""
    return torch.is_grad_enabled() and any(
        t is not None and t.requires_grad for t in tensors)


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(d) for d in normalized_shape)


class RMSNorm(torch.nn.Module):
    """torch.nn.RMSNorm running norm kernels (CUDA) or the CPU lowering."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _param(self.normalized_shape, device, dtype)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            torch.nn.init.ones_(self.weight)

    def forward(self, x):
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        n = _flat_size(self, x)
        if n is None:
            return F.rms_norm(x, self.normalized_shape, self.weight, eps)
        w = self.weight.reshape(n) if self.weight is not None else None
        if not _needs_grad(x, w):
            return ops.rms_norm_inference(x.reshape(-1, n), w, float(eps), 0.0).reshape(x.shape)
        y, _ = ops.rms_norm(x.reshape(-1, n), w, float(eps), 0.0)
        return y.reshape(x.shape)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LayerNorm(torch.nn.Module):
    """torch.nn.LayerNorm running norm kernels (CUDA) or the CPU lowering."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True,
                 bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = _param(self.normalized_shape, device, dtype)
            if bias:
                self.bias = _param(self.normalized_shape, device, dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            torch.nn.init.ones_(self.weight)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def forward(self, x):
        n = _flat_size(self, x)
        if n is None:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        w = self.weight.reshape(n) if self.weight is not None else None
        b = self.bias.reshape(n) if self.bias is not None else None
        if not _needs_grad(x, w, b):
            return ops.layer_norm_inference(x.reshape(-1, n), w, b,
                                            float(self.eps)).reshape(x.shape)
        y, _, _ = ops.layer_norm(x.reshape(-1, n), w, b, float(self.eps))
        return y.reshape(x.shape)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
