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


def _runs_here(x):
    """Whether the custom ops run `x`: CUDA tensors (bundles), or CPU tensors
    when the compiler is available for the CPU lowering."""
    return x.is_cuda or (x.device.type == "cpu" and compiler._library() is not None)


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(d) for d in normalized_shape)


class RMSNorm(torch.nn.Module):
    """torch.nn.RMSNorm with norm kernels on CUDA."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True,
                 device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(
                torch.empty(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            torch.nn.init.ones_(self.weight)

    def forward(self, x):
        eps = self.eps if self.eps is not None else torch.finfo(x.dtype).eps
        k = len(self.normalized_shape)
        if not _runs_here(x) or tuple(x.shape[-k:]) != self.normalized_shape:
            return F.rms_norm(x, self.normalized_shape, self.weight, eps)
        n = math.prod(self.normalized_shape)
        w = self.weight.reshape(n) if self.weight is not None else None
        y, _ = ops.rms_norm(x.reshape(*x.shape[:-k], n), w, float(eps), 0.0)
        return y.reshape(x.shape)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LayerNorm(torch.nn.Module):
    """torch.nn.LayerNorm with norm kernels on CUDA."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True,
                 bias=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = torch.nn.Parameter(
                torch.empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = torch.nn.Parameter(
                    torch.empty(self.normalized_shape, device=device, dtype=dtype))
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
        k = len(self.normalized_shape)
        if not _runs_here(x) or tuple(x.shape[-k:]) != self.normalized_shape:
            return F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        n = math.prod(self.normalized_shape)
        w = self.weight.reshape(n) if self.weight is not None else None
        b = self.bias.reshape(n) if self.bias is not None else None
        y, _, _ = ops.layer_norm(x.reshape(*x.shape[:-k], n), w, b, float(self.eps))
        return y.reshape(x.shape)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")
