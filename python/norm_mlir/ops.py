"""The norm_mlir ops: PyTorch operators backed by norm kernels, with fake
(meta) kernels and autograd, so they work in eager mode, inside
torch.compile graphs and in CUDA graphs. CUDA tensors run the GPU kernels
(bundles); CPU tensors run the same programs through the CPU lowering
(norm_mlir.cpu), which needs the compiler (libNormCAPI.so).

Ops (all take the normalized size from the last dimension of x):
  norm_mlir::rms_norm(x, weight?, eps, offset) -> (y, rstd)
  norm_mlir::rms_norm_backward(dy, x, rstd, weight?, offset) -> (dx, dw)
  norm_mlir::layer_norm(x, weight?, bias?, eps, offset=0) -> (y, mean, rstd)
  norm_mlir::layer_norm_backward(dy, x, mean, rstd, weight?, has_bias, offset=0)
      -> (dx, dw, db)
  norm_mlir::rms_norm_inference(x, weight?, eps, offset) -> y
  norm_mlir::layer_norm_inference(x, weight?, bias?, eps, offset=0) -> y
  norm_mlir::fused_add_rms_norm(x, residual, weight?, eps, offset) -> (y, h, rstd)
  norm_mlir::fused_add_rms_norm_backward(dy, dh, h, rstd, weight?, offset) -> (dx, dw)
  norm_mlir::fused_add_rms_norm_inference(x, residual, weight?, eps, offset) -> (y, h)
  norm_mlir::fused_add_layer_norm(x, residual, weight?, bias?, eps, offset=0)
      -> (y, h, mean, rstd)
  norm_mlir::fused_add_layer_norm_backward(dy, dh, h, mean, rstd, weight?, has_bias,
                                           offset=0)
      -> (dx, dw, db)
  norm_mlir::fused_add_layer_norm_inference(x, residual, weight?, bias?, eps, offset=0)
      -> (y, h)
  norm_mlir::l2_norm(x, eps) -> (y, rstd)
  norm_mlir::l2_norm_backward(dy, x, rstd) -> dx
  norm_mlir::l2_norm_inference(x, eps) -> y
  norm_mlir::rms_norm_gated(x, z, weight?, eps, offset, activation, norm_before_gate,
                            group_size=0) -> (y, rstd)
  norm_mlir::rms_norm_gated_backward(dy, x, z, rstd, weight?, offset, activation,
                                     norm_before_gate, group_size=0) -> (dx, dz, dw)
  norm_mlir::rms_norm_gated_inference(x, z, weight?, eps, offset, activation,
                                      norm_before_gate, group_size=0) -> y
  norm_mlir::rms_norm_quant(x, weight?, eps, offset, group_size=0) -> (q, scale)
  norm_mlir::layer_norm_quant(x, weight?, bias?, eps, group_size=0, offset=0)
      -> (q, scale)
  norm_mlir::fused_add_rms_norm_quant(x, residual, weight?, eps, offset, group_size=0)
      -> (q, h, scale)
dw/db are empty tensors when there is no weight/bias. offset takes the
weight as weight + offset (in f32; 1: Gemma's RMSNorm, a zero-centered
LayerNorm weight). The fused_add ops are
a pre-norm block's residual add and norm in one kernel: h = x + residual is
normalized and returned (the next block's residual); their backward takes
h's own gradient dh beside dy and returns the gradient of x and residual
(the norm's gradient at h plus dh, summed in f32 and rounded once). The
l2_norm ops are the L2 norm of Gated DeltaNet's q and k, y = x / sqrt(sum_j
x^2 + eps) with rstd = 1 / sqrt(sum_j x^2 + eps) per row; the
rms_norm_gated ops the gated RMSNorm of Gated DeltaNet and Mamba2, y =
rms_norm(x) (w + offset) act(z) with norm_before_gate, rms_norm(x act(z))
(w + offset) without, act 'silu' or 'sigmoid'; a group_size G (a divisor
of N) normalizes each group of G consecutive columns by itself (rstd is
then one a group: x's rows by N/G). The quant ops are
inference forwards whose y is quantized to FP8 e4m3 per row: q = y / scale
rounded to float8_e4m3fn (saturating at +-448), scale = max(max_j |y| /
448, 1e-12) per row (float32), y computed in f32 and never stored; with a
group_size G the scales are per group of G consecutive columns (x's rows
by N/G: DeepSeek-V3's 1 x 128 activation scales). They refuse a
backward. The inference ops are
the forwards without the saved statistics (their kernels store no mean or
rstd) and refuse a backward: norm_mlir.functional (and so the modules) calls
them when nothing needs a gradient.

The schemas, CUDA kernels and autograd formulas come from the native
extension (norm_mlir.native: C++, a few microseconds of host time per call)
or, where it is not loaded, from norm_mlir.python_ops. This module adds what
both share: the fake, CPU and autocast kernels, and the compiler the
extension asks for programs it has not loaded (norm_mlir::_bundle_directory).
"""

import torch

from . import native
from .checks import (check_bias, check_grad, check_input, check_residual, device_chip,
                     device_target_options, gated_flags, group_count, group_flag, rows,
                     shaped_results)
from .compiler import bundle_directory
from .programs import op_program

if native.loaded:
    _ops = torch.ops.norm_mlir
    rms_norm = _ops.rms_norm.default
    rms_norm_backward = _ops.rms_norm_backward.default
    rms_norm_inference = _ops.rms_norm_inference.default
    layer_norm = _ops.layer_norm.default
    layer_norm_backward = _ops.layer_norm_backward.default
    layer_norm_inference = _ops.layer_norm_inference.default
    fused_add_rms_norm = _ops.fused_add_rms_norm.default
    fused_add_rms_norm_backward = _ops.fused_add_rms_norm_backward.default
    fused_add_rms_norm_inference = _ops.fused_add_rms_norm_inference.default
    fused_add_layer_norm = _ops.fused_add_layer_norm.default
    fused_add_layer_norm_backward = _ops.fused_add_layer_norm_backward.default
    fused_add_layer_norm_inference = _ops.fused_add_layer_norm_inference.default
    l2_norm = _ops.l2_norm.default
    l2_norm_backward = _ops.l2_norm_backward.default
    l2_norm_inference = _ops.l2_norm_inference.default
    rms_norm_gated = _ops.rms_norm_gated.default
    rms_norm_gated_backward = _ops.rms_norm_gated_backward.default
    rms_norm_gated_inference = _ops.rms_norm_gated_inference.default
    rms_norm_quant = _ops.rms_norm_quant.default
    layer_norm_quant = _ops.layer_norm_quant.default
    fused_add_rms_norm_quant = _ops.fused_add_rms_norm_quant.default
else:
    from .python_ops import (  # noqa: F401
        fused_add_layer_norm, fused_add_layer_norm_backward, fused_add_layer_norm_inference,
        fused_add_rms_norm, fused_add_rms_norm_backward, fused_add_rms_norm_inference,
        fused_add_rms_norm_quant, layer_norm_quant, rms_norm_quant,
        l2_norm, l2_norm_backward, l2_norm_inference, layer_norm, layer_norm_backward,
        layer_norm_inference, rms_norm, rms_norm_backward, rms_norm_gated,
        rms_norm_gated_backward, rms_norm_gated_inference, rms_norm_inference)


# ---- programs for the extension -----------------------------------------------

# The flags each program takes (norm_mlir.python_ops passes the same, so
# both paths share cache entries).
_PROGRAM_FLAGS = {"rms_fwd": ("eps", "offset"), "ln_fwd": ("eps", "bias", "offset"),
                  "rms_bwd": ("offset",), "ln_bwd": ("bias", "offset"), "l2_fwd": ("eps",),
                  "l2_bwd": (),
                  "gated_fwd": ("eps", "offset", "activation", "norm_before_gate"),
                  "gated_bwd": ("offset", "activation", "norm_before_gate")}


def _bundle_directory(kind, n, dtype, weight_dtype, eps, offset, bias, stats, residual,
                      activation, norm_before_gate, quant, device, group_size=0):
    values = dict(eps=eps, offset=offset, bias=bias, activation=activation,
                  norm_before_gate=norm_before_gate)
    flags = {name: values[name] for name in _PROGRAM_FLAGS[kind]}
    if not stats:
        flags["stats"] = False
    if residual:
        flags["residual"] = True
    if quant:
        flags["quant"] = True
    flags.update(group_flag(group_size))
    program = op_program(kind, n, dtype, weight_dtype, **flags)
    return bundle_directory(program, chip=device_chip(device),
                            options=device_target_options(device))


if native.loaded:
    torch.library.impl("norm_mlir::_bundle_directory", "CompositeExplicitAutograd")(
        _bundle_directory)


# ---- fake kernels ---------------------------------------------------------------

@torch.library.register_fake("norm_mlir::rms_norm")
def _(x, weight, eps, offset):
    return torch.empty_like(x), x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.register_fake("norm_mlir::rms_norm_backward")
def _(dy, x, rstd, weight, offset):
    return torch.empty_like(x), (torch.empty_like(weight) if weight is not None
                                 else x.new_empty(0))


@torch.library.register_fake("norm_mlir::rms_norm_inference")
def _(x, weight, eps, offset):
    return torch.empty_like(x)


@torch.library.register_fake("norm_mlir::layer_norm")
def _(x, weight, bias, eps, offset=0.0):
    stats = x.new_empty(x.shape[:-1], dtype=torch.float32)
    return torch.empty_like(x), stats, torch.empty_like(stats)


@torch.library.register_fake("norm_mlir::layer_norm_backward")
def _(dy, x, mean, rstd, weight, has_bias, offset=0.0):
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    db = (torch.empty_like(weight) if (has_bias and weight is not None)
          else x.new_empty(x.shape[-1]) if has_bias else x.new_empty(0))
    return torch.empty_like(x), dw, db


@torch.library.register_fake("norm_mlir::layer_norm_inference")
def _(x, weight, bias, eps, offset=0.0):
    return torch.empty_like(x)


@torch.library.register_fake("norm_mlir::fused_add_rms_norm")
def _(x, residual, weight, eps, offset):
    return (torch.empty_like(x), torch.empty_like(x),
            x.new_empty(x.shape[:-1], dtype=torch.float32))


@torch.library.register_fake("norm_mlir::fused_add_rms_norm_backward")
def _(dy, dh, h, rstd, weight, offset):
    return torch.empty_like(h), (torch.empty_like(weight) if weight is not None
                                 else h.new_empty(0))


@torch.library.register_fake("norm_mlir::fused_add_rms_norm_inference")
def _(x, residual, weight, eps, offset):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.register_fake("norm_mlir::fused_add_layer_norm")
def _(x, residual, weight, bias, eps, offset=0.0):
    stats = x.new_empty(x.shape[:-1], dtype=torch.float32)
    return torch.empty_like(x), torch.empty_like(x), stats, torch.empty_like(stats)


@torch.library.register_fake("norm_mlir::fused_add_layer_norm_backward")
def _(dy, dh, h, mean, rstd, weight, has_bias, offset=0.0):
    dw = torch.empty_like(weight) if weight is not None else h.new_empty(0)
    db = (torch.empty_like(weight) if (has_bias and weight is not None)
          else h.new_empty(h.shape[-1]) if has_bias else h.new_empty(0))
    return torch.empty_like(h), dw, db


@torch.library.register_fake("norm_mlir::fused_add_layer_norm_inference")
def _(x, residual, weight, bias, eps, offset=0.0):
    return torch.empty_like(x), torch.empty_like(x)


@torch.library.register_fake("norm_mlir::l2_norm")
def _(x, eps):
    return torch.empty_like(x), x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.register_fake("norm_mlir::l2_norm_backward")
def _(dy, x, rstd):
    return torch.empty_like(x)


@torch.library.register_fake("norm_mlir::l2_norm_inference")
def _(x, eps):
    return torch.empty_like(x)


def _group_stats(x, group_size, whole_row_shape):
    """Statistics or scales of x: one a row (`whole_row_shape`: x's rows),
    or with groups of group_size columns one a group (x's rows by N/G)."""
    if group_size and (not whole_row_shape or group_size != x.shape[-1]):
        return x.new_empty(x.shape[:-1] + (x.shape[-1] // group_size,), dtype=torch.float32)
    return x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.register_fake("norm_mlir::rms_norm_gated")
def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
    return torch.empty_like(x), _group_stats(x, group_size, True)


@torch.library.register_fake("norm_mlir::rms_norm_gated_backward")
def _(dy, x, z, rstd, weight, offset, activation, norm_before_gate, group_size=0):
    return (torch.empty_like(x), torch.empty_like(x),
            torch.empty_like(weight) if weight is not None else x.new_empty(0))


@torch.library.register_fake("norm_mlir::rms_norm_gated_inference")
def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
    return torch.empty_like(x)


def _fake_quant(x, group_size, residual=None):
    q = torch.empty_like(x, dtype=torch.float8_e4m3fn)
    scale = _group_stats(x, group_size, False)
    return (q, scale) if residual is None else (q, torch.empty_like(x), scale)


@torch.library.register_fake("norm_mlir::rms_norm_quant")
def _(x, weight, eps, offset, group_size=0):
    return _fake_quant(x, group_size)


@torch.library.register_fake("norm_mlir::layer_norm_quant")
def _(x, weight, bias, eps, group_size=0, offset=0.0):
    return _fake_quant(x, group_size)


@torch.library.register_fake("norm_mlir::fused_add_rms_norm_quant")
def _(x, residual, weight, eps, offset, group_size=0):
    return _fake_quant(x, group_size, residual)


# ---- torch.autocast ----------------------------------------------------------

# Inside torch.autocast the forwards return what torch's own norm returns
# there, so replacing torch's norms changes no dtype downstream. Which
# norms autocast runs in float32 differs between torch versions (2.11 casts
# layer_norm's inputs to float32 under CUDA autocast and leaves rms_norm's
# as they are), so each op follows its aten counterpart in the torch it
# runs with: where that has an autocast kernel for the device (torch's
# norms are only ever on its float32 list), the op's inputs are cast to
# float32 too; otherwise they pass through. The backwards run outside
# autocast, in the forward's dtypes, as torch's do.
for _forward, _aten in (("rms_norm", "aten::rms_norm"), ("rms_norm_inference", "aten::rms_norm"),
                        ("layer_norm", "aten::layer_norm"),
                        ("layer_norm_inference", "aten::layer_norm"),
                        ("fused_add_rms_norm", "aten::rms_norm"),
                        ("fused_add_rms_norm_inference", "aten::rms_norm"),
                        ("fused_add_layer_norm", "aten::layer_norm"),
                        ("fused_add_layer_norm_inference", "aten::layer_norm"),
                        ("rms_norm_gated", "aten::rms_norm"),
                        ("rms_norm_gated_inference", "aten::rms_norm")):
    for _key, _device in (("AutocastCUDA", "cuda"), ("AutocastCPU", "cpu")):
        if torch._C._dispatch_has_kernel_for_dispatch_key(_aten, _key):
            torch.library.register_autocast(f"norm_mlir::{_forward}", _device, torch.float32)


# ---- CPU kernels: the CPU lowering of the same programs ---------------------

_TYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}


_NUMPY_TYPES = {torch.bfloat16: "uint16", torch.float16: "float16", torch.float32: "float32",
                torch.float8_e4m3fn: "uint8"}


def _numpy(t):
    """A numpy view of a contiguous CPU tensor's memory (bf16 as its uint16
    bits), made over its address: Tensor.numpy() would mark the storage as
    not resizable for good, which breaks FSDP2, whose unsharded parameters
    are freed by resizing their storage after each use."""
    import ctypes
    import numpy as np
    dtype = np.dtype(_NUMPY_TYPES[t.dtype])
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    memory = (ctypes.c_byte * (t.numel() * t.element_size())).from_address(t.data_ptr())
    return np.frombuffer(memory, dtype).reshape(tuple(t.shape))


def _cpu_run(kind, x, weight, flags, inputs, outputs):
    from . import cpu
    program = cpu.op(kind, x.shape[-1], _TYPE_NAMES[x.dtype],
                     _TYPE_NAMES[weight.dtype] if weight is not None else None, **flags)
    program.run(kind, *[_numpy(t.contiguous()) for t in inputs],
                *[_numpy(t) for t in outputs])


def _cpu_forward(kind, x, weight, params, flags, stats):
    """A forward through the CPU lowering: y and `stats` f32 statistics per
    row (0: the inference forward's program, which returns y alone)."""
    check_input(x, *params, name=kind)
    matrix = rows(x)
    outputs = [torch.empty_like(matrix)] + [x.new_empty(matrix.shape[0], dtype=torch.float32)
                                            for _ in range(stats)]
    if not stats:
        flags = dict(flags, stats=False)
    _cpu_run(kind, x, weight, flags, [matrix] + [p for p in params if p is not None], outputs)
    return shaped_results(outputs, x)


@torch.library.register_kernel("norm_mlir::rms_norm", "cpu")
def _(x, weight, eps, offset):
    return _cpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 1)


@torch.library.register_kernel("norm_mlir::rms_norm_inference", "cpu")
def _(x, weight, eps, offset):
    return _cpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 0)[0]


@torch.library.register_kernel("norm_mlir::rms_norm_backward", "cpu")
def _(dy, x, rstd, weight, offset):
    check_input(x, weight, name="rms_norm_backward")
    check_grad(dy, x, rstd, name="rms_norm_backward")
    matrix = rows(x)
    dx = torch.empty_like(matrix)
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    _cpu_run("rms_bwd", x, weight, dict(offset=offset),
             [rows(dy), matrix, rstd.reshape(-1)] + ([weight] if weight is not None else []),
             [dx] + ([dw] if weight is not None else []))
    return dx.view(x.shape), dw


@torch.library.register_kernel("norm_mlir::layer_norm", "cpu")
def _(x, weight, bias, eps, offset=0.0):
    check_bias(weight, bias, "layer_norm")
    return _cpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None, offset=offset), 2)


@torch.library.register_kernel("norm_mlir::layer_norm_inference", "cpu")
def _(x, weight, bias, eps, offset=0.0):
    check_bias(weight, bias, "layer_norm_inference")
    return _cpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None, offset=offset), 0)[0]


@torch.library.register_kernel("norm_mlir::layer_norm_backward", "cpu")
def _(dy, x, mean, rstd, weight, has_bias, offset=0.0):
    check_input(x, weight, name="layer_norm_backward")
    check_grad(dy, x, mean, rstd, name="layer_norm_backward")
    matrix = rows(x)
    dx = torch.empty_like(matrix)
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    db = (torch.empty_like(weight) if weight is not None else x.new_empty(x.shape[-1])) \
        if has_bias else x.new_empty(0)
    outputs = [dx] + ([dw] if weight is not None else []) + ([db] if has_bias else [])
    _cpu_run("ln_bwd", x, weight, dict(bias=has_bias, offset=offset),
             [rows(dy), matrix, mean.reshape(-1), rstd.reshape(-1)]
             + ([weight] if weight is not None else []), outputs)
    return dx.view(x.shape), dw, db

def _cpu_add_forward(kind, x, residual, weight, params, flags, stats):
    """A fused residual add and norm through the CPU lowering: y, h and
    `stats` f32 statistics per row (0: the inference forward's program)."""
    check_input(x, *params, name=kind)
    check_residual(residual, x, kind)
    matrix = rows(x)
    outputs = ([torch.empty_like(matrix), torch.empty_like(matrix)]
               + [x.new_empty(matrix.shape[0], dtype=torch.float32) for _ in range(stats)])
    flags = dict(flags, residual=True)
    if not stats:
        flags["stats"] = False
    _cpu_run(kind, x, weight, flags,
             [matrix, rows(residual)] + [p for p in params if p is not None], outputs)
    return shaped_results(outputs, x, 2)


@torch.library.register_kernel("norm_mlir::fused_add_rms_norm", "cpu")
def _(x, residual, weight, eps, offset):
    return _cpu_add_forward("rms_fwd", x, residual, weight, [weight],
                            dict(eps=eps, offset=offset), 1)


@torch.library.register_kernel("norm_mlir::fused_add_rms_norm_inference", "cpu")
def _(x, residual, weight, eps, offset):
    return _cpu_add_forward("rms_fwd", x, residual, weight, [weight],
                            dict(eps=eps, offset=offset), 0)


@torch.library.register_kernel("norm_mlir::fused_add_rms_norm_backward", "cpu")
def _(dy, dh, h, rstd, weight, offset):
    name = "fused_add_rms_norm_backward"
    check_input(h, weight, name=name)
    check_grad(dy, h, rstd, name=name)
    check_residual(dh, h, name)
    matrix = rows(h)
    dx = torch.empty_like(matrix)
    dw = torch.empty_like(weight) if weight is not None else h.new_empty(0)
    _cpu_run("rms_bwd", h, weight, dict(offset=offset, residual=True),
             [rows(dy), rows(dh), matrix, rstd.reshape(-1)]
             + ([weight] if weight is not None else []),
             [dx] + ([dw] if weight is not None else []))
    return dx.view(h.shape), dw


@torch.library.register_kernel("norm_mlir::fused_add_layer_norm", "cpu")
def _(x, residual, weight, bias, eps, offset=0.0):
    check_bias(weight, bias, "fused_add_layer_norm")
    return _cpu_add_forward("ln_fwd", x, residual, weight, [weight, bias],
                            dict(eps=eps, bias=bias is not None, offset=offset), 2)


@torch.library.register_kernel("norm_mlir::fused_add_layer_norm_inference", "cpu")
def _(x, residual, weight, bias, eps, offset=0.0):
    check_bias(weight, bias, "fused_add_layer_norm_inference")
    return _cpu_add_forward("ln_fwd", x, residual, weight, [weight, bias],
                            dict(eps=eps, bias=bias is not None, offset=offset), 0)


@torch.library.register_kernel("norm_mlir::fused_add_layer_norm_backward", "cpu")
def _(dy, dh, h, mean, rstd, weight, has_bias, offset=0.0):
    name = "fused_add_layer_norm_backward"
    check_input(h, weight, name=name)
    check_grad(dy, h, mean, rstd, name=name)
    check_residual(dh, h, name)
    matrix = rows(h)
    dx = torch.empty_like(matrix)
    dw = torch.empty_like(weight) if weight is not None else h.new_empty(0)
    db = (torch.empty_like(weight) if weight is not None else h.new_empty(h.shape[-1])) \
        if has_bias else h.new_empty(0)
    outputs = [dx] + ([dw] if weight is not None else []) + ([db] if has_bias else [])
    _cpu_run("ln_bwd", h, weight, dict(bias=has_bias, residual=True, offset=offset),
             [rows(dy), rows(dh), matrix, mean.reshape(-1), rstd.reshape(-1)]
             + ([weight] if weight is not None else []), outputs)
    return dx.view(h.shape), dw, db


@torch.library.register_kernel("norm_mlir::l2_norm", "cpu")
def _(x, eps):
    return _cpu_forward("l2_fwd", x, None, [], dict(eps=eps), 1)


@torch.library.register_kernel("norm_mlir::l2_norm_inference", "cpu")
def _(x, eps):
    return _cpu_forward("l2_fwd", x, None, [], dict(eps=eps), 0)[0]


@torch.library.register_kernel("norm_mlir::l2_norm_backward", "cpu")
def _(dy, x, rstd):
    check_input(x, name="l2_norm_backward")
    check_grad(dy, x, rstd, name="l2_norm_backward")
    matrix = rows(x)
    dx = torch.empty_like(matrix)
    _cpu_run("l2_bwd", x, None, {}, [rows(dy), matrix, rstd.reshape(-1)], [dx])
    return dx.view(x.shape)


def _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size, name):
    check_input(x, weight, name=name)
    return gated_flags(x, z, offset, activation, norm_before_gate, group_size, name)


def _cpu_gated_forward(x, z, weight, eps, flags, stats):
    matrix = rows(x)
    groups = x.shape[-1] // flags.get("group_size", x.shape[-1])
    outputs = [torch.empty_like(matrix)] + [
        x.new_empty((matrix.shape[0],) + ((groups,) if "group_size" in flags else ()),
                    dtype=torch.float32) for _ in range(stats)]
    flags = dict(flags, eps=eps)
    if not stats:
        flags["stats"] = False
    _cpu_run("gated_fwd", x, weight, flags,
             [matrix, rows(z)] + ([weight] if weight is not None else []), outputs)
    return shaped_results(outputs, x)


@torch.library.register_kernel("norm_mlir::rms_norm_gated", "cpu")
def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size,
                         "rms_norm_gated")
    return _cpu_gated_forward(x, z, weight, eps, flags, 1)


@torch.library.register_kernel("norm_mlir::rms_norm_gated_inference", "cpu")
def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size,
                         "rms_norm_gated_inference")
    return _cpu_gated_forward(x, z, weight, eps, flags, 0)[0]


@torch.library.register_kernel("norm_mlir::rms_norm_gated_backward", "cpu")
def _(dy, x, z, rstd, weight, offset, activation, norm_before_gate, group_size=0):
    name = "rms_norm_gated_backward"
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size, name)
    groups = group_count(group_size, x.shape[-1], name) if "group_size" in flags else 1
    check_grad(dy, x, rstd, name=name, per_row=groups)
    matrix = rows(x)
    dx, dz = torch.empty_like(matrix), torch.empty_like(matrix)
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    stats = rstd.reshape(matrix.shape[0], groups) if groups > 1 else rstd.reshape(-1)
    _cpu_run("gated_bwd", x, weight, flags,
             [rows(dy), matrix, rows(z), stats]
             + ([weight] if weight is not None else []),
             [dx, dz] + ([dw] if weight is not None else []))
    return dx.view(x.shape), dz.view(x.shape), dw


def _cpu_quant(kind, x, residual, weight, params, flags, group_size, name):
    """A forward quantized to FP8 per row (or per group of group_size
    columns) through the CPU lowering: q, (h,) scale."""
    groups = group_count(group_size, x.shape[-1], name)
    matrix = rows(x)
    outputs = ([torch.empty_like(matrix, dtype=torch.float8_e4m3fn)]
               + ([torch.empty_like(matrix)] if residual is not None else [])
               + [x.new_empty((matrix.shape[0],) + ((groups,) if group_size else ()),
                              dtype=torch.float32)])
    flags = dict(flags, quant=True, stats=False, residual=residual is not None,
                 **group_flag(group_size))
    inputs = ([matrix] + ([rows(residual)] if residual is not None else [])
              + [p for p in params if p is not None])
    _cpu_run(kind, x, weight, flags, inputs, outputs)
    return shaped_results(outputs, x, len(outputs) - 1)


@torch.library.register_kernel("norm_mlir::rms_norm_quant", "cpu")
def _(x, weight, eps, offset, group_size=0):
    check_input(x, weight, name="rms_norm_quant")
    return _cpu_quant("rms_fwd", x, None, weight, [weight], dict(eps=eps, offset=offset),
                      group_size, "rms_norm_quant")


@torch.library.register_kernel("norm_mlir::layer_norm_quant", "cpu")
def _(x, weight, bias, eps, group_size=0, offset=0.0):
    check_input(x, weight, bias, name="layer_norm_quant")
    check_bias(weight, bias, "layer_norm_quant")
    return _cpu_quant("ln_fwd", x, None, weight, [weight, bias],
                      dict(eps=eps, bias=bias is not None, offset=offset), group_size,
                      "layer_norm_quant")


@torch.library.register_kernel("norm_mlir::fused_add_rms_norm_quant", "cpu")
def _(x, residual, weight, eps, offset, group_size=0):
    check_input(x, weight, name="fused_add_rms_norm_quant")
    check_residual(residual, x, "fused_add_rms_norm_quant")
    return _cpu_quant("rms_fwd", x, residual, weight, [weight], dict(eps=eps, offset=offset),
                      group_size, "fused_add_rms_norm_quant")


from . import distributed  # noqa: E402,F401  (DTensor sharding strategies of the ops)
