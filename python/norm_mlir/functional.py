"""torch.nn.functional.rms_norm and layer_norm on norm kernels.

Same signatures and results as torch's. CUDA inputs run the norm GPU kernels
and CPU inputs the CPU lowering, through the custom ops in ops.py: the
training forward (which saves mean/rstd for its backward) when autograd will
need a gradient, else the inference forward, whose kernel stores y alone.
Inputs the ops do not take (other devices, float64, a CPU without the
compiler) go to torch.nn.functional, so a model keeps working.
"""

import math
import numbers

import torch
import torch.nn.functional as F

from . import compiler, ops

_DTYPES = (torch.bfloat16, torch.float16, torch.float32)


_cpu_compiler_found = None


@torch.compiler.assume_constant_result
def _cpu_compiler():
    # Looking for the library touches the file system, which torch.compile
    # cannot trace (with fullgraph=True it would fail when the first call of
    # a module is a compiled one) and which a CPU without the compiler would
    # otherwise repeat on every call; the answer does not change in a
    # process, so it is looked up once.
    global _cpu_compiler_found
    if _cpu_compiler_found is None:
        _cpu_compiler_found = compiler._library() is not None
    return _cpu_compiler_found


def _runs_here(x, *params):
    """Whether the custom ops take `x` and its parameters: CUDA tensors
    (bundles), or CPU tensors when the compiler is there for the CPU
    lowering, in the dtypes the kernels have."""
    if not (x.is_cuda or (x.device.type == "cpu" and _cpu_compiler())):
        return False
    return x.dtype in _DTYPES and all(p is None or p.dtype in _DTYPES for p in params)


def _needs_grad(*tensors):
    """Whether autograd will need this call's backward: only then does the
    forward save its statistics (mean, rstd) for it."""
    return torch.is_grad_enabled() and any(
        t is not None and t.requires_grad for t in tensors)


def _flat(x, normalized_shape, params, name):
    """N (the product of the normalized dimensions) when the custom ops run
    this call, else None (torch.nn.functional does, and reports any bad
    shape itself)."""
    shape = tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.dim() < k or tuple(x.shape[-k:]) != shape or not _runs_here(x, *params):
        return None
    # Empty rows have nothing to normalize; torch returns them as they are.
    if math.prod(shape) == 0:
        return None
    for p in params:
        if p is not None and tuple(p.shape) != shape:
            raise ValueError(f"{name}: weight/bias must have shape {shape}, "
                             f"got {tuple(p.shape)}")
    return math.prod(shape)


def _kernel_epsilon(eps):
    """Whether the kernels take `eps`: a positive finite number (the dialect
    refuses others). torch accepts 0 or less; those calls go to it."""
    return eps > 0 and math.isfinite(eps)


def normalized_shape_tuple(normalized_shape):
    """normalized_shape (an int or a sequence of them) as a tuple of ints."""
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(d) for d in normalized_shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """torch.nn.functional.rms_norm: eps None means torch.finfo(input.dtype).eps."""
    shape = normalized_shape_tuple(normalized_shape)
    n = _flat(input, shape, (weight,), "rms_norm")
    # None's default resolved only where the kernels may run (torch.finfo
    # takes floating dtypes only).
    value = None if n is None else float(
        eps if eps is not None else torch.finfo(input.dtype).eps)
    if value is None or not _kernel_epsilon(value):
        return F.rms_norm(input, shape, weight, eps)
    x = input.reshape(-1, n)
    w = weight.reshape(n) if weight is not None else None
    if _needs_grad(input, weight):
        y, _ = ops.rms_norm(x, w, value, 0.0)
    else:
        y = ops.rms_norm_inference(x, w, value, 0.0)
    return y.reshape(input.shape)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """torch.nn.functional.layer_norm."""
    shape = normalized_shape_tuple(normalized_shape)
    # A bias without a weight, or of another dtype than the weight: no
    # kernel has that form; torch's does.
    plain = bias is None or (weight is not None and bias.dtype == weight.dtype)
    n = _flat(input, shape, (weight, bias), "layer_norm") if plain else None
    if n is None or not _kernel_epsilon(float(eps)):
        return F.layer_norm(input, shape, weight, bias, eps)
    x = input.reshape(-1, n)
    w = weight.reshape(n) if weight is not None else None
    b = bias.reshape(n) if bias is not None else None
    if _needs_grad(input, weight, bias):
        y, _, _ = ops.layer_norm(x, w, b, float(eps))
    else:
        y = ops.layer_norm_inference(x, w, b, float(eps))
    return y.reshape(input.shape)
