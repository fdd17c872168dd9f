"""torch.nn.functional.rms_norm and layer_norm on norm kernels, the
pre-norm block's residual add fused with them (fused_add_rms_norm,
fused_add_layer_norm), the L2 norm (l2_norm), the gated RMSNorm
(rms_norm_gated) and the norms with FP8 output (rms_norm_quant,
layer_norm_quant).

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
from .checks import check_activation, check_floating

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


def _kernel_dtypes(x, params):
    """Whether the kernels have x's and the parameters' dtypes."""
    if x.dtype not in _DTYPES:
        return False
    for p in params:
        if p is not None and p.dtype not in _DTYPES:
            return False
    return True


def _runs_here(x):
    """Whether the ops take `x`'s device: CUDA (bundles), or the CPU when
    the compiler is there for the CPU lowering."""
    return x.is_cuda or (x.device.type == "cpu" and _cpu_compiler())


def _needs_grad(*tensors):
    """Whether autograd will need this call's backward: only then does the
    forward save its statistics (mean, rstd) for it."""
    if not torch.is_grad_enabled():
        return False
    for t in tensors:
        if t is not None and t.requires_grad:
            return True
    return False


def _flat(x, normalized_shape, params, name):
    """How the ops take this call: (N, whether x and the parameters must be
    reshaped to rows of N), or None where torch.nn.functional does (which
    reports any bad shape itself).

    The common case (one normalized dimension) costs a few attribute reads:
    the ops take x of any rank with the parameters as given and check their
    shapes themselves, so nothing is reshaped. This is the per-call host
    cost the functional API adds to the op's."""
    if type(normalized_shape) is int or len(normalized_shape) == 1:
        n = normalized_shape if type(normalized_shape) is int else normalized_shape[0]
        if x.dim() == 0 or x.shape[-1] != n or n == 0:
            return None
        if not (_runs_here(x) and _kernel_dtypes(x, params)):
            return None
        return n, False
    shape = normalized_shape_tuple(normalized_shape)
    k = len(shape)
    if k == 0 or x.dim() < k or tuple(x.shape[-k:]) != shape:
        return None
    if not (_runs_here(x) and _kernel_dtypes(x, params)):
        return None
    # Empty rows have nothing to normalize; torch returns them as they are.
    if math.prod(shape) == 0:
        return None
    for p in params:
        if p is not None and tuple(p.shape) != shape:
            raise ValueError(f"{name}: weight/bias must have shape {shape}, "
                             f"got {tuple(p.shape)}")
    return math.prod(shape), True


def _kernel_epsilon(eps):
    """Whether the kernels take `eps`: a positive finite number (the dialect
    refuses others). torch accepts 0 or less; those calls go to it."""
    return 0 < eps < math.inf


def normalized_shape_tuple(normalized_shape):
    """normalized_shape (an int or a sequence of them) as a tuple of ints."""
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(d) for d in normalized_shape)


# torch.finfo(dtype).eps, rms_norm's default epsilon, looked up once.
_DEFAULT_EPS = {t: torch.finfo(t).eps for t in _DTYPES}


def rms_norm(input, normalized_shape, weight=None, eps=None, *, offset=0.0):
    """torch.nn.functional.rms_norm: eps None means torch.finfo(input.dtype).eps.
    offset 1 takes the weight as 1 + weight, computed in f32 (Gemma's)."""
    how = _flat(input, normalized_shape, (weight,), "rms_norm")
    if how is not None:
        value = _DEFAULT_EPS[input.dtype] if eps is None else float(eps)
        if not _kernel_epsilon(value):
            how = None
    if how is None:
        if offset and weight is not None:
            y = F.rms_norm(input.to(_compute_type(input)),
                           normalized_shape_tuple(normalized_shape),
                           weight.to(_compute_type(weight)) + offset, eps)
            return y.to(input.dtype)
        return F.rms_norm(input, normalized_shape_tuple(normalized_shape), weight, eps)
    n, reshape = how
    x, w = (input.reshape(-1, n), weight.reshape(n) if weight is not None else None) \
        if reshape else (input, weight)
    offset = float(offset) if weight is not None else 0.0
    if _needs_grad(input, weight):
        y = ops.rms_norm(x, w, value, offset)[0]
    else:
        y = ops.rms_norm_inference(x, w, value, offset)
    return y.reshape(input.shape) if reshape else y


def _offset_layer_norm(input, normalized_shape, weight, bias, eps, offset):
    """torch's layer_norm with the weight taken as weight + offset in f32."""
    if not offset or weight is None:
        return F.layer_norm(input, normalized_shape_tuple(normalized_shape), weight, bias, eps)
    ct = _compute_type(input)
    y = F.layer_norm(input.to(ct), normalized_shape_tuple(normalized_shape),
                     weight.to(ct) + offset, bias.to(ct) if bias is not None else None, eps)
    return y.to(input.dtype)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, *, offset=0.0):
    """torch.nn.functional.layer_norm. offset 1 takes the weight as
    1 + weight, computed in f32 (a zero-centered weight: Megatron's
    LayerNorm1P, Transformer Engine's zero_centered_gamma)."""
    # A bias without a weight, or of another dtype than the weight: no
    # kernel has that form; torch's does.
    plain = bias is None or (weight is not None and bias.dtype == weight.dtype)
    how = _flat(input, normalized_shape, (weight, bias), "layer_norm") if plain else None
    if how is None or not _kernel_epsilon(float(eps)):
        return _offset_layer_norm(input, normalized_shape, weight, bias, eps, offset)
    n, reshape = how
    x, w, b = input, weight, bias
    if reshape:
        x = input.reshape(-1, n)
        w = weight.reshape(n) if weight is not None else None
        b = bias.reshape(n) if bias is not None else None
    offset = float(offset) if weight is not None else 0.0
    if _needs_grad(input, weight, bias):
        y = ops.layer_norm(x, w, b, float(eps), offset)[0]
    else:
        y = ops.layer_norm_inference(x, w, b, float(eps), offset)
    return y.reshape(input.shape) if reshape else y


def _residual_fits(input, residual):
    return (isinstance(residual, torch.Tensor) and residual.shape == input.shape
            and residual.dtype == input.dtype and residual.device == input.device)


def fused_add_rms_norm(input, residual, normalized_shape, weight=None, eps=None, *,
                       offset=0.0):
    """(rms_norm(input + residual), input + residual) in one kernel: a
    pre-norm block's residual add and norm, the sum returned as the next
    block's residual (Liger's fused_add_rms_norm, vLLM's). Its backward adds
    the gradient reaching the sum to the norm's in the same kernel. The sum
    is rounded to input's dtype, as input + residual would be; offset as
    rms_norm's. Inputs the kernels do not take (another dtype for the
    residual, other devices) compute it with torch."""
    how = _flat(input, normalized_shape, (weight,), "fused_add_rms_norm")
    if how is not None:
        value = _DEFAULT_EPS[input.dtype] if eps is None else float(eps)
        if not _kernel_epsilon(value) or not _residual_fits(input, residual):
            how = None
    if how is None:
        h = input + residual
        return rms_norm(h, normalized_shape, weight, eps, offset=offset), h
    n, reshape = how
    x, r, w = ((input.reshape(-1, n), residual.reshape(-1, n),
                weight.reshape(n) if weight is not None else None)
               if reshape else (input, residual, weight))
    offset = float(offset) if weight is not None else 0.0
    if _needs_grad(input, residual, weight):
        y, h = ops.fused_add_rms_norm(x, r, w, value, offset)[:2]
    else:
        y, h = ops.fused_add_rms_norm_inference(x, r, w, value, offset)
    return (y.reshape(input.shape), h.reshape(input.shape)) if reshape else (y, h)


def fused_add_layer_norm(input, residual, normalized_shape, weight=None, bias=None, eps=1e-5,
                         *, offset=0.0):
    """(layer_norm(input + residual), input + residual) in one kernel (see
    fused_add_rms_norm; offset as layer_norm's)."""
    plain = bias is None or (weight is not None and bias.dtype == weight.dtype)
    how = (_flat(input, normalized_shape, (weight, bias), "fused_add_layer_norm")
           if plain else None)
    if how is None or not _kernel_epsilon(float(eps)) or not _residual_fits(input, residual):
        h = input + residual
        return _offset_layer_norm(h, normalized_shape, weight, bias, eps, offset), h
    n, reshape = how
    x, r, w, b = input, residual, weight, bias
    if reshape:
        x, r = input.reshape(-1, n), residual.reshape(-1, n)
        w = weight.reshape(n) if weight is not None else None
        b = bias.reshape(n) if bias is not None else None
    offset = float(offset) if weight is not None else 0.0
    if _needs_grad(input, residual, weight, bias):
        y, h = ops.fused_add_layer_norm(x, r, w, b, float(eps), offset)[:2]
    else:
        y, h = ops.fused_add_layer_norm_inference(x, r, w, b, float(eps), offset)
    return (y.reshape(input.shape), h.reshape(input.shape)) if reshape else (y, h)


def _compute_type(t):
    """f32, or t's dtype where that is wider (float64 stays float64)."""
    return torch.promote_types(t.dtype, torch.float32)


def _l2_reference(input, eps):
    x = input.to(_compute_type(input))
    return (x * torch.rsqrt(x.square().sum(-1, keepdim=True) + eps)).to(input.dtype)


def l2_norm(input, eps=1e-6):
    """input / sqrt(sum of its squares + eps) over the last dimension, in one
    kernel each way: the L2 norm of Gated DeltaNet's q and k (FLA's
    l2_norm). Computed in f32, rounded once to input's dtype. Inputs the
    kernels do not take compute the same formula with torch."""
    if not (isinstance(input, torch.Tensor) and input.dim() >= 1 and input.shape[-1] > 0
            and _runs_here(input) and input.dtype in _DTYPES
            and _kernel_epsilon(float(eps))):
        check_floating("l2_norm", input=input)
        return _l2_reference(input, eps)
    if _needs_grad(input):
        return ops.l2_norm(input, float(eps))[0]
    return ops.l2_norm_inference(input, float(eps))


def _gated_reference(input, gate, weight, eps, activation, norm_before_gate, group_size,
                     offset):
    x, z = input.to(_compute_type(input)), gate.to(_compute_type(gate))
    act = F.silu(z) if activation == "silu" else torch.sigmoid(z)
    if not norm_before_gate:
        x = x * act
    n = x.shape[-1]
    groups = x.unflatten(-1, (n // group_size, group_size))
    y = (groups * torch.rsqrt(groups.square().mean(-1, keepdim=True) + eps)).flatten(-2)
    if weight is not None:
        y = y * (weight.to(_compute_type(weight)) + offset)
    if norm_before_gate:
        y = y * act
    return y.to(input.dtype)


def _groups_lowered(input, group_size):
    """Whether the kernels take groups of group_size columns of `input`:
    the CPU lowering any, the GPU's groups of a power of two of elements
    (a group's vectors are a power of two of lanes; 640 is 80 vectors of 8)."""
    return (group_size is None or not input.is_cuda
            or group_size & (group_size - 1) == 0)


def rms_norm_gated(input, gate, weight=None, eps=1e-6, activation="silu",
                   norm_before_gate=True, group_size=None, offset=0.0):
    """The gated RMSNorm of Gated DeltaNet and Mamba2 over the last
    dimension: rms_norm(input) * weight * act(gate) with norm_before_gate
    (the default), rms_norm(input * act(gate)) * weight without; act is
    'silu' or 'sigmoid'; offset 1 takes the weight as 1 + weight (computed
    in f32). One kernel each way; the backward gives the gradients of
    input, gate and weight. group_size (a divisor of the last
    dimension) normalizes groups of that many elements separately, as
    Mamba2's ngroups > 1 does, in the same kernels (on the GPU groups of a
    power of two of elements; other group sizes compute with torch there,
    as do inputs the kernels do not take: another dtype or shape for the
    gate, other devices)."""
    name = "rms_norm_gated"
    check_activation(activation, name)
    n = input.shape[-1] if isinstance(input, torch.Tensor) and input.dim() else 0
    if group_size is not None and (group_size <= 0 or n % group_size):
        raise ValueError(f"{name}: group_size must divide the last dimension ({n}), "
                         f"got {group_size}")
    if weight is not None and (weight.dim() != 1 or weight.shape[0] != n):
        raise ValueError(f"{name}: weight must have shape ({n},), got {tuple(weight.shape)}")
    groups = group_size if group_size is not None and group_size != n else 0
    if (n == 0 or not _runs_here(input) or not _kernel_dtypes(input, (weight,))
            or not _kernel_epsilon(float(eps)) or not _residual_fits(input, gate)
            or not _groups_lowered(input, groups or None)):
        check_floating(name, input=input, gate=gate, weight=weight)
        return _gated_reference(input, gate, weight, eps, activation, norm_before_gate,
                                group_size or n, offset)
    if _needs_grad(input, gate, weight):
        return ops.rms_norm_gated(input, gate, weight, float(eps), float(offset), activation,
                                  norm_before_gate, groups)[0]
    return ops.rms_norm_gated_inference(input, gate, weight, float(eps), float(offset),
                                        activation, norm_before_gate, groups)


def _quant_reference(y, group_size=None):
    """q, scale of f32-or-wider y, as the kernels quantize it: a scale a row,
    or a group of group_size columns."""
    n = y.shape[-1]
    parts = y.unflatten(-1, (n // group_size, group_size)) if group_size else y.unsqueeze(-2)
    scale = (parts.abs().amax(-1) / 448.0).clamp_min(1e-12)
    q = (parts / scale.unsqueeze(-1)).clamp(-448.0, 448.0).flatten(-2).to(torch.float8_e4m3fn)
    return q, (scale if group_size else scale.squeeze(-1)).float()


def _check_group_size(input, group_size, name):
    """A quantized forward's group_size: None (a scale a row) or a positive
    divisor of the last dimension."""
    n = input.shape[-1] if isinstance(input, torch.Tensor) and input.dim() else 0
    if group_size is not None and (not isinstance(group_size, int) or group_size <= 0
                                   or n % group_size):
        raise ValueError(f"{name}: group_size must be a positive divisor of the last "
                         f"dimension ({n}), got {group_size!r}")


def rms_norm_quant(input, weight=None, eps=1e-6, residual=None, offset=0.0, group_size=None):
    """rms_norm(input) * weight quantized to FP8 e4m3 per row in one kernel
    (vLLM's rms_norm_dynamic_per_token_quant): returns (q, scale), q =
    y / scale as float8_e4m3fn and scale = max(max_j |y| / 448, 1e-12) per
    row (float32), so q * scale approximates y. With group_size G the
    scales are per group of G consecutive columns (input's rows by N / G;
    G = 128: DeepSeek-V3's 1 x 128 activation scales, vLLM's
    per_token_group_quant_fp8), still one kernel. With `residual`, the
    pre-norm residual add comes first and (q, scale, input + residual) is
    returned; offset 1 takes the weight as 1 + weight. An inference
    forward: no gradient flows through it. Inputs the kernels do not take
    (and on the GPU groups that are not a power of two of elements) compute
    the same with torch."""
    _check_group_size(input, group_size, "rms_norm_quant")
    h = None
    fits = (isinstance(input, torch.Tensor) and input.dim() >= 1 and input.shape[-1] > 0
            and _runs_here(input) and _kernel_dtypes(input, (weight,))
            and _kernel_epsilon(float(eps)) and _groups_lowered(input, group_size)
            and (residual is None or _residual_fits(input, residual)))
    if not fits:
        check_floating("rms_norm_quant", input=input, weight=weight, residual=residual)
        h = input + residual if residual is not None else input
        wf = weight.to(_compute_type(h)) + offset if weight is not None else None
        q, scale = _quant_reference(F.rms_norm(h.to(_compute_type(h)), (h.shape[-1],), wf,
                                               eps), group_size)
        return (q, scale) if residual is None else (q, scale, h)
    if residual is None:
        return ops.rms_norm_quant(input, weight, float(eps), float(offset), group_size or 0)
    q, h, scale = ops.fused_add_rms_norm_quant(input, residual, weight, float(eps),
                                               float(offset), group_size or 0)
    return q, scale, h


def layer_norm_quant(input, weight=None, bias=None, eps=1e-5, group_size=None, offset=0.0):
    """layer_norm(input) * (weight + offset) + bias quantized to FP8 e4m3 per
    row (or per group of group_size columns) in one kernel: (q, scale) as
    rms_norm_quant's."""
    _check_group_size(input, group_size, "layer_norm_quant")
    plain = bias is None or (weight is not None and bias.dtype == weight.dtype)
    fits = (plain and isinstance(input, torch.Tensor) and input.dim() >= 1
            and input.shape[-1] > 0 and _runs_here(input)
            and _kernel_dtypes(input, (weight, bias)) and _kernel_epsilon(float(eps))
            and _groups_lowered(input, group_size))
    if not fits:
        check_floating("layer_norm_quant", input=input, weight=weight, bias=bias)
        x = input.to(_compute_type(input))
        y = F.layer_norm(x, (x.shape[-1],),
                         weight.to(x.dtype) + offset if weight is not None else None,
                         bias.to(x.dtype) if bias is not None else None, eps)
        return _quant_reference(y, group_size)
    return ops.layer_norm_quant(input, weight, bias, float(eps), group_size or 0,
                                float(offset) if weight is not None else 0.0)
