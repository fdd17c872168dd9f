"""torch.library custom ops backed by norm kernels, with fake (meta)
implementations and autograd, so they work in eager mode and inside
torch.compile graphs. CUDA tensors run the GPU kernels (bundles); CPU tensors
run the same programs through the CPU lowering (norm_mlir.cpu), which needs
the compiler (libNormCAPI.so).

Ops (all take the normalized size from the last dimension of x):
  norm_mlir::rms_norm(x, weight?, eps, offset) -> (y, rstd)
  norm_mlir::rms_norm_backward(dy, x, rstd, weight?, offset) -> (dx, dw)
  norm_mlir::layer_norm(x, weight?, bias?, eps) -> (y, mean, rstd)
  norm_mlir::layer_norm_backward(dy, x, mean, rstd, weight?, has_bias) -> (dx, dw, db)
  norm_mlir::rms_norm_inference(x, weight?, eps, offset) -> y
  norm_mlir::layer_norm_inference(x, weight?, bias?, eps) -> y
dw/db are empty tensors when there is no weight/bias. The inference ops are
the forwards without the saved statistics (their kernels store no mean or
rstd) and refuse a backward: norm_mlir.functional (and so the modules) calls
them when nothing needs a gradient.
"""

import torch

from .compiler import compile_program
from .launcher import Launcher
from .programs import op_program

_launchers = {}


def _chip(device):
    major, minor = torch.cuda.get_device_capability(device)
    return f"sm_{major}{minor}"


def _launcher(kind, n, x, weight, **flags):
    # One Launcher per device: its kernels are loaded in that device's context.
    key = (kind, n, x.dtype, weight.dtype if weight is not None else None,
           tuple(sorted(flags.items())), x.device.index, _chip(x.device))
    if key not in _launchers:
        program = op_program(kind, n, x.dtype,
                             weight.dtype if weight is not None else None, **flags)
        _launchers[key] = Launcher(compile_program(program, chip=key[-1]))
    return _launchers[key]


_FLOATS = (torch.bfloat16, torch.float16, torch.float32)


def _check_params(x, *params, name):
    for p in params:
        if p is None:
            continue
        if p.dim() != 1 or p.shape[0] != x.shape[-1]:
            raise ValueError(f"{name}: weight/bias must have shape ({x.shape[-1]},), "
                             f"got {tuple(p.shape)}")
        if p.device != x.device:
            raise ValueError(f"{name}: weight/bias must be on {x.device}, got {p.device}")
        if p.dtype not in _FLOATS:
            raise TypeError(f"{name}: weight/bias must be bfloat16, float16 or float32, "
                            f"got {p.dtype}")


def _check_input(x, *params, name):
    """What every kernel, CPU or GPU, needs of x and its weight and bias."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name}: x must be a torch.Tensor")
    if x.dtype not in _FLOATS:
        raise TypeError(f"{name}: x must be bfloat16, float16 or float32, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ValueError(f"{name}: x must have a non-empty last dimension, got shape {tuple(x.shape)}")
    _check_params(x, *params, name=name)


def _check(x, *params, name):
    """The GPU kernels' check: _check_input, on a CUDA device."""
    _check_input(x, *params, name=name)
    if not x.is_cuda:
        raise ValueError(f"{name}: x must be a CUDA or CPU tensor, got {x.device}")


def _check_grad(dy, x, *stats, name):
    """A backward's dy (x's shape and dtype) and saved statistics (float32,
    one per row of x), on x's device."""
    if not isinstance(dy, torch.Tensor) or dy.shape != x.shape or dy.dtype != x.dtype:
        raise ValueError(f"{name}: dy must have the shape and dtype of x "
                         f"({tuple(x.shape)}, {x.dtype}), got "
                         f"{(tuple(dy.shape), dy.dtype) if isinstance(dy, torch.Tensor) else dy!r}")
    rows = x.numel() // x.shape[-1]
    for t in (dy,) + stats:
        if t.device != x.device:
            raise ValueError(f"{name}: dy and the statistics must be on {x.device}, got {t.device}")
    for t in stats:
        if t.dtype != torch.float32 or t.numel() != rows:
            raise ValueError(f"{name}: mean/rstd must be float32 with one value per row of x "
                             f"({rows}), got {t.dtype} with {t.numel()}")


def _check_bias(weight, bias, name):
    if bias is not None and weight is None:
        raise ValueError(f"{name}: a bias needs a weight")
    if bias is not None and bias.dtype != weight.dtype:
        raise TypeError(f"{name}: the bias must have the weight's dtype ({weight.dtype}), "
                        f"got {bias.dtype}")


def _aligned(t):
    """`t` as the kernels read it: contiguous and starting on a 16-byte
    boundary, which their 16-byte vector accesses need. A strided view, or a
    contiguous one at an odd offset into its storage (a slice of a larger
    buffer, a view into a flat parameter), is copied into a fresh tensor
    (torch's allocators align those): one more read and write of it. No
    kernel version with narrower accesses is built for such tensors: it
    would double the bundles compiled for inputs that are rare. Fresh
    tensors and views at aligned offsets pass through untouched."""
    t = t.contiguous()
    if t.data_ptr() % 16:
        t = t.clone()
    return t


def _rows(t):
    return _aligned(t).view(-1, t.shape[-1])


def _gpu_forward(kind, x, weight, params, flags, stats):
    """A forward on the GPU: y and its `stats` f32 statistics per row (0: the
    inference forward's program, which returns y alone)."""
    if not stats:
        flags = dict(flags, stats=False)
    launcher = _launcher(kind, x.shape[-1], x, weight, **flags)
    outs = launcher(None, _rows(x), *[_aligned(p) for p in params if p is not None])
    return (outs[0].view(x.shape),) + tuple(t.view(x.shape[:-1]) for t in outs[1:])


@torch.library.custom_op("norm_mlir::rms_norm", mutates_args=())
def rms_norm(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
             offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, weight, name="rms_norm")
    return _gpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 1)


@rms_norm.register_fake
def _(x, weight, eps, offset):
    return torch.empty_like(x), x.new_empty(x.shape[:-1], dtype=torch.float32)


@torch.library.custom_op("norm_mlir::rms_norm_backward", mutates_args=())
def rms_norm_backward(dy: torch.Tensor, x: torch.Tensor, rstd: torch.Tensor,
                      weight: torch.Tensor | None,
                      offset: float) -> tuple[torch.Tensor, torch.Tensor]:
    _check(x, weight, name="rms_norm_backward")
    _check_grad(dy, x, rstd, name="rms_norm_backward")
    n = x.shape[-1]
    launcher = _launcher("rms_bwd", n, x, weight, offset=offset)
    args = [_rows(dy), _rows(x), _aligned(rstd).view(-1)]
    if weight is not None:
        args.append(_aligned(weight))
    outs = launcher(None, *args)
    dw = outs[1] if weight is not None else x.new_empty(0)
    return outs[0].view(x.shape), dw


@rms_norm_backward.register_fake
def _(dy, x, rstd, weight, offset):
    return torch.empty_like(x), (torch.empty_like(weight) if weight is not None
                                 else x.new_empty(0))


def _rms_setup(ctx, inputs, output):
    x, weight, eps, offset = inputs
    ctx.save_for_backward(x, weight, output[1])
    ctx.offset = offset


def _rms_backward(ctx, dy, drstd):
    x, weight, rstd = ctx.saved_tensors
    dx, dw = rms_norm_backward(dy.contiguous(), x, rstd, weight, ctx.offset)
    return dx, (dw if weight is not None else None), None, None


rms_norm.register_autograd(_rms_backward, setup_context=_rms_setup)


@torch.library.custom_op("norm_mlir::rms_norm_inference", mutates_args=())
def rms_norm_inference(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
                       offset: float) -> torch.Tensor:
    _check(x, weight, name="rms_norm_inference")
    return _gpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 0)[0]


@rms_norm_inference.register_fake
def _(x, weight, eps, offset):
    return torch.empty_like(x)


def _no_backward(name, training_op):
    """An autograd formula that refuses: the inference ops save nothing a
    backward could use, so a gradient through them is a clear error (and
    not a tensor without grad_fn found later)."""
    def backward(ctx, *grads):
        raise RuntimeError(f"norm_mlir::{name} has no backward (it saves no statistics); "
                           f"use norm_mlir::{training_op} where gradients are needed")
    return backward


rms_norm_inference.register_autograd(_no_backward("rms_norm_inference", "rms_norm"))


@torch.library.custom_op("norm_mlir::layer_norm", mutates_args=())
def layer_norm(x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None,
               eps: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, weight, bias, name="layer_norm")
    _check_bias(weight, bias, "layer_norm")
    return _gpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None), 2)


@layer_norm.register_fake
def _(x, weight, bias, eps):
    stats = x.new_empty(x.shape[:-1], dtype=torch.float32)
    return torch.empty_like(x), stats, torch.empty_like(stats)


@torch.library.custom_op("norm_mlir::layer_norm_backward", mutates_args=())
def layer_norm_backward(dy: torch.Tensor, x: torch.Tensor, mean: torch.Tensor,
                        rstd: torch.Tensor, weight: torch.Tensor | None,
                        has_bias: bool) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    _check(x, weight, name="layer_norm_backward")
    _check_grad(dy, x, mean, rstd, name="layer_norm_backward")
    n = x.shape[-1]
    launcher = _launcher("ln_bwd", n, x, weight, bias=has_bias)
    args = [_rows(dy), _rows(x), _aligned(mean).view(-1), _aligned(rstd).view(-1)]
    if weight is not None:
        args.append(_aligned(weight))
    outs = list(launcher(None, *args))
    dx = outs.pop(0).view(x.shape)
    dw = outs.pop(0) if weight is not None else x.new_empty(0)
    db = outs.pop(0) if has_bias else x.new_empty(0)
    return dx, dw, db


@layer_norm_backward.register_fake
def _(dy, x, mean, rstd, weight, has_bias):
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    db = (torch.empty_like(weight) if (has_bias and weight is not None)
          else x.new_empty(x.shape[-1]) if has_bias else x.new_empty(0))
    return torch.empty_like(x), dw, db


def _ln_setup(ctx, inputs, output):
    x, weight, bias, eps = inputs
    ctx.save_for_backward(x, weight, output[1], output[2])
    ctx.has_bias = bias is not None


def _ln_backward(ctx, dy, dmean, drstd):
    x, weight, mean, rstd = ctx.saved_tensors
    dx, dw, db = layer_norm_backward(dy.contiguous(), x, mean, rstd, weight, ctx.has_bias)
    return (dx, dw if weight is not None else None, db if ctx.has_bias else None, None)


layer_norm.register_autograd(_ln_backward, setup_context=_ln_setup)


@torch.library.custom_op("norm_mlir::layer_norm_inference", mutates_args=())
def layer_norm_inference(x: torch.Tensor, weight: torch.Tensor | None,
                         bias: torch.Tensor | None, eps: float) -> torch.Tensor:
    _check(x, weight, bias, name="layer_norm_inference")
    _check_bias(weight, bias, "layer_norm_inference")
    return _gpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None), 0)[0]


@layer_norm_inference.register_fake
def _(x, weight, bias, eps):
    return torch.empty_like(x)


layer_norm_inference.register_autograd(_no_backward("layer_norm_inference", "layer_norm"))


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
for _forward, _aten in ((rms_norm, "aten::rms_norm"), (rms_norm_inference, "aten::rms_norm"),
                        (layer_norm, "aten::layer_norm"),
                        (layer_norm_inference, "aten::layer_norm")):
    for _key, _device in (("AutocastCUDA", "cuda"), ("AutocastCPU", "cpu")):
        if torch._C._dispatch_has_kernel_for_dispatch_key(_aten, _key):
            torch.library.register_autocast(_forward, _device, torch.float32)


# ---- CPU kernels: the CPU lowering of the same programs ---------------------

_TYPE_NAMES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}


def _numpy(t):
    """A numpy view of a contiguous CPU tensor (bf16 as its uint16 bits)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view("uint16")
    return t.numpy()


def _cpu_run(kind, x, weight, flags, inputs, outputs):
    from . import cpu
    program = cpu.op(kind, x.shape[-1], _TYPE_NAMES[x.dtype],
                     _TYPE_NAMES[weight.dtype] if weight is not None else None, **flags)
    program.run(kind, *[_numpy(t.contiguous()) for t in inputs],
                *[_numpy(t) for t in outputs])


def _cpu_forward(kind, x, weight, params, flags, stats):
    """A forward through the CPU lowering: y and `stats` f32 statistics per
    row (0: the inference forward's program, which returns y alone)."""
    _check_input(x, *params, name=kind)
    rows = _rows(x)
    outputs = [torch.empty_like(rows)] + [x.new_empty(rows.shape[0], dtype=torch.float32)
                                          for _ in range(stats)]
    if not stats:
        flags = dict(flags, stats=False)
    _cpu_run(kind, x, weight, flags, [rows] + [p for p in params if p is not None], outputs)
    return (outputs[0].view(x.shape),) + tuple(t.view(x.shape[:-1]) for t in outputs[1:])


@rms_norm.register_kernel("cpu")
def _(x, weight, eps, offset):
    return _cpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 1)


@rms_norm_inference.register_kernel("cpu")
def _(x, weight, eps, offset):
    return _cpu_forward("rms_fwd", x, weight, [weight], dict(eps=eps, offset=offset), 0)[0]


@rms_norm_backward.register_kernel("cpu")
def _(dy, x, rstd, weight, offset):
    _check_input(x, weight, name="rms_norm_backward")
    _check_grad(dy, x, rstd, name="rms_norm_backward")
    rows = _rows(x)
    dx = torch.empty_like(rows)
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    _cpu_run("rms_bwd", x, weight, dict(offset=offset),
             [_rows(dy), rows, rstd.reshape(-1)] + ([weight] if weight is not None else []),
             [dx] + ([dw] if weight is not None else []))
    return dx.view(x.shape), dw


@layer_norm.register_kernel("cpu")
def _(x, weight, bias, eps):
    _check_bias(weight, bias, "layer_norm")
    return _cpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None), 2)


@layer_norm_inference.register_kernel("cpu")
def _(x, weight, bias, eps):
    _check_bias(weight, bias, "layer_norm_inference")
    return _cpu_forward("ln_fwd", x, weight, [weight, bias],
                        dict(eps=eps, bias=bias is not None), 0)[0]


@layer_norm_backward.register_kernel("cpu")
def _(dy, x, mean, rstd, weight, has_bias):
    _check_input(x, weight, name="layer_norm_backward")
    _check_grad(dy, x, mean, rstd, name="layer_norm_backward")
    rows = _rows(x)
    dx = torch.empty_like(rows)
    dw = torch.empty_like(weight) if weight is not None else x.new_empty(0)
    db = (torch.empty_like(weight) if weight is not None else x.new_empty(x.shape[-1])) \
        if has_bias else x.new_empty(0)
    outputs = [dx] + ([dw] if weight is not None else []) + ([db] if has_bias else [])
    _cpu_run("ln_bwd", x, weight, dict(bias=has_bias),
             [_rows(dy), rows, mean.reshape(-1), rstd.reshape(-1)]
             + ([weight] if weight is not None else []), outputs)
    return dx.view(x.shape), dw, db
