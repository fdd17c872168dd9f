"""The norm_mlir ops defined in Python, for where the native extension
(norm_mlir.native) is not loaded: torch.library custom ops whose CUDA
kernels launch the bundles through the Python launcher (ctypes), with their
autograd formulas. Same schemas, errors and results as the extension's;
norm_mlir.ops adds the fake, CPU and autocast kernels to either.
"""

import torch

from .checks import (aligned, check_bias, check_cuda, check_grad, check_residual, device_chip,
                     group_count, group_flag,
                     device_target_options, gated_flags, rows, shaped_results)
from .compiler import compile_program
from .launcher import Launcher
from .programs import op_program

_launchers = {}



def _launcher(kind, n, x, weight, **flags):
    # One Launcher per device: its kernels are loaded in that device's context.
    key = (kind, n, x.dtype, weight.dtype if weight is not None else None,
           tuple(sorted(flags.items())), x.device.index, device_chip(x.device))
    if key not in _launchers:
        program = op_program(kind, n, x.dtype,
                             weight.dtype if weight is not None else None, **flags)
        _launchers[key] = Launcher(compile_program(
            program, chip=key[-1], options=device_target_options(x.device)))
    return _launchers[key]


def _gpu_forward(kind, x, weight, params, flags, stats):
    """A forward on the GPU: y and its `stats` f32 statistics per row (0: the
    inference forward's program, which returns y alone)."""
    if not stats:
        flags = dict(flags, stats=False)
    launcher = _launcher(kind, x.shape[-1], x, weight, **flags)
    outs = launcher(None, rows(x), *[aligned(p) for p in params if p is not None])
    return shaped_results(outs, x)


@torch.library.custom_op("norm_mlir::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
             offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="rms_norm")
    return _gpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 1)


@torch.library.custom_op("norm_mlir::rms_norm_backward", mutates_args=())
def rms_norm_backward(dy: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor,
                      weight: torch.Tensor | None,
                      offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="rms_norm_backward")
    check_grad(dy, x, rstd, name="rms_norm_backward")
    launcher = _launcher("rms_bwd", x.shape[-1], x, weight, offset=offset)
    args = [rows(dy), rows(x), aligned(rstd).view(-1)]
    if weight is not None:
        args.append(aligned(weight))
    outs = launcher(None, *args)
    dw = outs[1] if weight is not None else x.new_empty(0)
    return outs[0].view(x.shape), dw


@torch.library.custom_op("norm_mlir::rms_norm_inference", mutates_args=())
def rms_norm_inference(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
                       offset: float) -> torch.Tensor:
    check_cuda(x, weight, name="rms_norm_inference")
    return _gpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 0)[0]


@torch.library.custom_op("norm_mlir::layer_norm", mutates_args=())
def layer_norm(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
               eps: float, offset: float = 0.0
               ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, bias, name="layer_norm")
    check_bias(weight, bias, "layer_norm")
    return _gpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None, offset=offset), 2)


@torch.library.custom_op("norm_mlir::layer_norm_backward", mutates_args=())
def layer_norm_backward(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                        rstd: torch.Tensor, weight: torch.Tensor | None,
                        has_bias: bool, offset: float = 0.0
                        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="layer_norm_backward")
    check_grad(dy, x, mean, rstd, name="layer_norm_backward")
    launcher = _launcher("ln_bwd", x.shape[-1], x, weight, bias=has_bias, offset=offset)
    args = [rows(dy), rows(x), aligned(mean).view(-1), aligned(rstd).view(-1)]
    if weight is not None:
        args.append(aligned(weight))
    outs = list(launcher(None, *args))
    dx = outs.pop(0).view(x.shape)
    dw = outs.pop(0) if weight is not None else x.new_empty(0)
    db = outs.pop(0) if has_bias else x.new_empty(0)
    return dx, dw, db


@torch.library.custom_op("norm_mlir::layer_norm_inference", mutates_args=())
def layer_norm_inference(x: torch.Tensor, weight: torch.Tensor | None,
                         bias: torch.Tensor | None, eps: float,
                         offset: float = 0.0) -> torch.Tensor:
    check_cuda(x, weight, bias, name="layer_norm_inference")
    check_bias(weight, bias, "layer_norm_inference")
    return _gpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None, offset=offset), 0)[0]


def _gpu_add_forward(kind, x, residual, weight, params, flags, stats):
    """A fused residual add and norm on the GPU: y, h and `stats` f32
    statistics per row (0: the inference forward's program)."""
    flags = dict(flags, residual=True)
    if not stats:
        flags["stats"] = False
    launcher = _launcher(kind, x.shape[-1], x, weight, **flags)
    outs = launcher(None, rows(x), rows(residual), *[aligned(p) for p in params if p is not None])
    return shaped_results(outs, x, 2)


@torch.library.custom_op("norm_mlir::fused_add_rms_norm", mutates_args=())
def fused_add_rms_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor | None,
                       eps: float, offset: float
                       ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="fused_add_rms_norm")
    check_residual(residual, x, "fused_add_rms_norm")
    return _gpu_add_forward("rms_fwd", x, residual, weight, [weight],
                            dict(eps=eps, offset=offset), 1)


@torch.library.custom_op("norm_mlir::fused_add_rms_norm_inference", mutates_args=())
def fused_add_rms_norm_inference(x: torch.Tensor, residual: torch.Tensor,
                                 weight: torch.Tensor | None, eps: float,
                                 offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="fused_add_rms_norm_inference")
    check_residual(residual, x, "fused_add_rms_norm_inference")
    return _gpu_add_forward("rms_fwd", x, residual, weight, [weight],
                            dict(eps=eps, offset=offset), 0)


@torch.library.custom_op("norm_mlir::fused_add_rms_norm_backward", mutates_args=())
def fused_add_rms_norm_backward(dy: torch.Tensor, dh: torch.Tensor, h: torch.Tensor,
                                rstd: torch.Tensor, weight: torch.Tensor | None,
                                offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    name = "fused_add_rms_norm_backward"
    check_cuda(h, weight, name=name)
    check_grad(dy, h, rstd, name=name)
    check_residual(dh, h, name)
    launcher = _launcher("rms_bwd", h.shape[-1], h, weight, offset=offset, residual=True)
    args = [rows(dy), rows(dh), rows(h), aligned(rstd).view(-1)]
    if weight is not None:
        args.append(aligned(weight))
    outs = launcher(None, *args)
    dw = outs[1] if weight is not None else h.new_empty(0)
    return outs[0].view(h.shape), dw


@torch.library.custom_op("norm_mlir::fused_add_layer_norm", mutates_args=())
def fused_add_layer_norm(x: torch.Tensor, residual: torch.Tensor, weight: torch.Tensor | None,
                         bias: torch.Tensor | None, eps: float, offset: float = 0.0
                         ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, bias, name="fused_add_layer_norm")
    check_bias(weight, bias, "fused_add_layer_norm")
    check_residual(residual, x, "fused_add_layer_norm")
    return _gpu_add_forward("ln_fwd", x, residual, weight, [weight, bias],
                            dict(eps=eps, bias=bias is not None, offset=offset), 2)


@torch.library.custom_op("norm_mlir::fused_add_layer_norm_inference", mutates_args=())
def fused_add_layer_norm_inference(x: torch.Tensor, residual: torch.Tensor,
                                   weight: torch.Tensor | None, bias: torch.Tensor | None,
                                   eps: float, offset: float = 0.0
                                   ) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, bias, name="fused_add_layer_norm_inference")
    check_bias(weight, bias, "fused_add_layer_norm_inference")
    check_residual(residual, x, "fused_add_layer_norm_inference")
    return _gpu_add_forward("ln_fwd", x, residual, weight, [weight, bias],
                            dict(eps=eps, bias=bias is not None, offset=offset), 0)


@torch.library.custom_op("norm_mlir::fused_add_layer_norm_backward", mutates_args=())
def fused_add_layer_norm_backward(dy: torch.Tensor, dh: torch.Tensor, h: torch.Tensor,
                                  mean: torch.Tensor, rstd: torch.Tensor,
                                  weight: torch.Tensor | None, has_bias: bool,
                                  offset: float = 0.0
                                  ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    name = "fused_add_layer_norm_backward"
    check_cuda(h, weight, name=name)
    check_grad(dy, h, mean, rstd, name=name)
    check_residual(dh, h, name)
    launcher = _launcher("ln_bwd", h.shape[-1], h, weight, bias=has_bias, residual=True,
                         offset=offset)
    args = [rows(dy), rows(dh), rows(h), aligned(mean).view(-1), aligned(rstd).view(-1)]
    if weight is not None:
        args.append(aligned(weight))
    outs = list(launcher(None, *args))
    dx = outs.pop(0).view(h.shape)
    dw = outs.pop(0) if weight is not None else h.new_empty(0)
    db = outs.pop(0) if has_bias else h.new_empty(0)
    return dx, dw, db


# ---- the L2 norm and gated RMSNorm (L2GatedOps.cpp in the extension) -----------

@torch.library.custom_op("norm_mlir::l2_norm", mutates_args=())
def l2_norm(x: torch.Tensor, eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, name="l2_norm")
    return _gpu_forward("l2_fwd", x, None, [], dict(eps=eps), 1)


@torch.library.custom_op("norm_mlir::l2_norm_inference", mutates_args=())
def l2_norm_inference(x: torch.Tensor, eps: float) -> torch.Tensor:
    check_cuda(x, name="l2_norm_inference")
    return _gpu_forward("l2_fwd", x, None, [], dict(eps=eps), 0)[0]


@torch.library.custom_op("norm_mlir::l2_norm_backward", mutates_args=())
def l2_norm_backward(dy: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor) -> torch.Tensor:
    check_cuda(x, name="l2_norm_backward")
    check_grad(dy, x, rstd, name="l2_norm_backward")
    launcher = _launcher("l2_bwd", x.shape[-1], x, None)
    return launcher(None, rows(dy), rows(x), aligned(rstd).view(-1))[0].view(x.shape)


def _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size, name):
    check_cuda(x, weight, name=name)
    return gated_flags(x, z, offset, activation, norm_before_gate, group_size, name)


def _gpu_gated_forward(x, z, weight, eps, flags, stats):
    if not stats:
        flags = dict(flags, stats=False)
    launcher = _launcher("gated_fwd", x.shape[-1], x, weight, eps=eps, **flags)
    args = [rows(x), rows(z)] + ([aligned(weight)] if weight is not None else [])
    outs = launcher(None, *args)
    return shaped_results(outs, x)


@torch.library.custom_op("norm_mlir::rms_norm_gated", mutates_args=())
def rms_norm_gated(x: torch.Tensor, z: torch.Tensor, weight: torch.Tensor | None, eps: float,
                   offset: float, activation: str, norm_before_gate: bool,
                   group_size: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size,
                         "rms_norm_gated")
    return _gpu_gated_forward(x, z, weight, eps, flags, 1)


@torch.library.custom_op("norm_mlir::rms_norm_gated_inference", mutates_args=())
def rms_norm_gated_inference(x: torch.Tensor, z: torch.Tensor, weight: torch.Tensor | None,
                             eps: float, offset: float, activation: str,
                             norm_before_gate: bool, group_size: int = 0) -> torch.Tensor:
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size,
                         "rms_norm_gated_inference")
    return _gpu_gated_forward(x, z, weight, eps, flags, 0)[0]


@torch.library.custom_op("norm_mlir::rms_norm_gated_backward", mutates_args=())
def rms_norm_gated_backward(dy: torch.Tensor, x: torch.Tensor, z: torch.Tensor,
                            rstd: torch.Tensor, weight: torch.Tensor | None, offset: float,
                            activation: str, norm_before_gate: bool, group_size: int = 0
                            ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    name = "rms_norm_gated_backward"
    flags = _gated_flags(x, z, weight, offset, activation, norm_before_gate, group_size, name)
    check_grad(dy, x, rstd, name=name, per_row=group_count(group_size, x.shape[-1], name))
    launcher = _launcher("gated_bwd", x.shape[-1], x, weight, **flags)
    stats = aligned(rstd).view(x.numel() // x.shape[-1], -1) if "group_size" in flags \
        else aligned(rstd).view(-1)
    args = [rows(dy), rows(x), rows(z), stats]
    if weight is not None:
        args.append(aligned(weight))
    outs = launcher(None, *args)
    dw = outs[2] if weight is not None else x.new_empty(0)
    return outs[0].view(x.shape), outs[1].view(x.shape), dw


# ---- FP8 output (QuantOps.cpp in the extension) -------------------------------

def _gpu_quant(kind, x, residual, weight, params, flags, group_size, name):
    """A forward quantized to FP8 per row (or per group of group_size
    columns): q, (h,) scale."""
    group_count(group_size, x.shape[-1], name)
    flags = dict(flags, quant=True, stats=False, residual=residual is not None,
                 **group_flag(group_size))
    launcher = _launcher(kind, x.shape[-1], x, weight, **flags)
    ins = [rows(x)] + ([rows(residual)] if residual is not None else [])
    outs = launcher(None, *ins, *[aligned(p) for p in params if p is not None])
    return shaped_results(outs, x, len(outs) - 1)


@torch.library.custom_op("norm_mlir::rms_norm_quant", mutates_args=())
def rms_norm_quant(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
                   offset: float, group_size: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="rms_norm_quant")
    return _gpu_quant("rms_fwd", x, None, weight, [weight], dict(eps=eps, offset=offset),
                      group_size, "rms_norm_quant")


@torch.library.custom_op("norm_mlir::layer_norm_quant", mutates_args=())
def layer_norm_quant(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
                     eps: float, group_size: int = 0,
                     offset: float = 0.0) -> tuple[torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, bias, name="layer_norm_quant")
    check_bias(weight, bias, "layer_norm_quant")
    return _gpu_quant("ln_fwd", x, None, weight, [weight, bias],
                      dict(eps=eps, bias=bias is not None, offset=offset), group_size,
                      "layer_norm_quant")


@torch.library.custom_op("norm_mlir::fused_add_rms_norm_quant", mutates_args=())
def fused_add_rms_norm_quant(x: torch.Tensor, residual: torch.Tensor,
                             weight: torch.Tensor | None, eps: float, offset: float,
                             group_size: int = 0
                             ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    check_cuda(x, weight, name="fused_add_rms_norm_quant")
    check_residual(residual, x, "fused_add_rms_norm_quant")
    return _gpu_quant("rms_fwd", x, residual, weight, [weight], dict(eps=eps, offset=offset),
                      group_size, "fused_add_rms_norm_quant")


# ---- autograd (Autograd.cpp in the extension) --------------------------------

def _rms_setup(ctx, inputs, output):
    x, weight, eps, offset = inputs
    ctx.save_for_backward(x, weight, output[1])
    ctx.offset = offset


def _rms_backward(ctx, dy, drstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = rms_norm_backward(dy.contiguous(), x, rstd, weight, ctx.offset)
    return dx, (dw if weight is not None else None), None, None


rms_norm.register_autograd(_rms_backward, setup_context=_rms_setup)


def _ln_setup(ctx, inputs, output):
    x, weight, bias, eps, offset = inputs
    ctx.save_for_backward(x, weight, output[1], output[2])
    ctx.has_bias, ctx.offset = bias is not None, offset


def _ln_backward(ctx, dy, dmean, drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = layer_norm_backward(dy.contiguous(), x, mean, rstd, weight, ctx.has_bias,
                                     ctx.offset)
    return (dx, dw if weight is not None else None, db if ctx.has_bias else None, None, None)


layer_norm.register_autograd(_ln_backward, setup_context=_ln_setup)


def _add_rms_setup(ctx, inputs, output):
    x, residual, weight, eps, offset = inputs
    ctx.save_for_backward(output[1], weight, output[2])
    ctx.offset = offset


def _add_rms_backward(ctx, dy, dh, drstd):
    h, weight, rstd = ctx.saved_tensors
    dw = None
    if dy is not None and dh is not None:
        dx, dw = fused_add_rms_norm_backward(dy.contiguous(), dh.contiguous(), h, rstd, weight,
                                             ctx.offset)
    elif dy is not None:
        dx, dw = rms_norm_backward(dy.contiguous(), h, rstd, weight, ctx.offset)
    else:
        dx = dh
    return dx, dx, (dw if weight is not None else None), None, None


fused_add_rms_norm.register_autograd(_add_rms_backward, setup_context=_add_rms_setup)


def _add_ln_setup(ctx, inputs, output):
    x, residual, weight, bias, eps, offset = inputs
    ctx.save_for_backward(output[1], weight, output[2], output[3])
    ctx.has_bias, ctx.offset = bias is not None, offset


def _add_ln_backward(ctx, dy, dh, dmean, drstd):
    h, weight, mean, rstd = ctx.saved_tensors
    dw = db = None
    if dy is not None and dh is not None:
        dx, dw, db = fused_add_layer_norm_backward(dy.contiguous(), dh.contiguous(), h, mean,
                                                   rstd, weight, ctx.has_bias, ctx.offset)
    elif dy is not None:
        dx, dw, db = layer_norm_backward(dy.contiguous(), h, mean, rstd, weight, ctx.has_bias,
                                         ctx.offset)
    else:
        dx = dh
    return (dx, dx, dw if weight is not None else None, db if ctx.has_bias else None, None,
            None)


fused_add_layer_norm.register_autograd(_add_ln_backward, setup_context=_add_ln_setup)


def _l2_setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0], output[1])


def _l2_backward(ctx, dy, drstd):
    x, rstd = ctx.saved_tensors
    return l2_norm_backward(dy.contiguous(), x, rstd), None


l2_norm.register_autograd(_l2_backward, setup_context=_l2_setup)


def _gated_setup(ctx, inputs, output):
    x, z, weight, eps, offset, activation, norm_before_gate, group_size = inputs
    ctx.save_for_backward(x, z, weight, output[1])
    ctx.flags = (offset, activation, norm_before_gate, group_size)


def _gated_backward(ctx, dy, drstd):
    x, z, weight, rstd = ctx.saved_tensors
    dx, dz, dw = rms_norm_gated_backward(dy.contiguous(), x, z, rstd, weight, *ctx.flags)
    return dx, dz, (dw if weight is not None else None), None, None, None, None, None


rms_norm_gated.register_autograd(_gated_backward, setup_context=_gated_setup)


def _no_backward(name, training_op=None):
    """An autograd formula that refuses: the inference ops save nothing a
    backward could use, so a gradient through them is a clear error (and
    not a tensor without grad_fn found later). Without a training op: the
    quantized forwards, whose output has no gradient."""
    def backward(ctx, *grads):
        if training_op is None:
            raise RuntimeError(f"norm_mlir::{name} has no backward (its output is quantized)")
        raise RuntimeError(f"norm_mlir::{name} has no backward (it saves no statistics); "
                           f"use norm_mlir::{training_op} where gradients are needed")
    return backward


rms_norm_inference.register_autograd(_no_backward("rms_norm_inference", "rms_norm"))
layer_norm_inference.register_autograd(_no_backward("layer_norm_inference", "layer_norm"))
fused_add_rms_norm_inference.register_autograd(
    _no_backward("fused_add_rms_norm_inference", "fused_add_rms_norm"))
fused_add_layer_norm_inference.register_autograd(
    _no_backward("fused_add_layer_norm_inference", "fused_add_layer_norm"))
l2_norm_inference.register_autograd(_no_backward("l2_norm_inference", "l2_norm"))
rms_norm_gated_inference.register_autograd(
    _no_backward("rms_norm_gated_inference", "rms_norm_gated"))
for _op, _name in ((rms_norm_quant, "rms_norm_quant"), (layer_norm_quant, "layer_norm_quant"),
                   (fused_add_rms_norm_quant, "fused_add_rms_norm_quant")):
    _op.register_autograd(_no_backward(_name))
