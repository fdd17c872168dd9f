"""What every norm_mlir kernel shares on the tensor side: the argument
checks (CPU, CUDA, with or without the native extension, whose C++ kernels
give the same errors), the copy into the layout the kernels read, and the
chip and target a device's bundles are compiled for."""

import functools
import os

import torch

FLOATS = (torch.bfloat16, torch.float16, torch.float32)


# The chips with kernels of their own, by compute capability; every other GPU
# from Ampere on runs sm_80's, which use no clusters, bulk copies or dependent
# launches (the driver compiles their PTX for it).
_CHIPS = {(9, 0): "sm_90", (10, 0): "sm_100", (10, 3): "sm_100", (12, 0): "sm_120",
          (12, 1): "sm_120"}
PORTABLE_CHIP = "sm_80"


def _capability_of(chip):
    """(major, minor) of a chip name sm_NN[a|f], or None."""
    digits = chip[3:].rstrip("af") if chip.startswith("sm_") else ""
    if len(digits) < 2 or not digits.isdigit():
        return None
    return int(digits[:-1]), int(digits[-1])


def chip_runs_on(chip, major, minor):
    """Whether PTX compiled for `chip` runs on a GPU of compute capability
    (major, minor): on its own chip and, through the driver's JIT, on newer
    ones, except the arch-specific (sm_NNa) PTX, which runs only on NN."""
    wanted = _capability_of(chip)
    return wanted is not None and (
        wanted == (major, minor) if chip.endswith("a") else wanted <= (major, minor))


def chip_for_capability(major, minor, requested=""):
    """The chip bundles are compiled for on a GPU of compute capability
    (major, minor): `requested` (NORM_MLIR_CHIP) where that GPU can run its
    PTX, else the GPU's own tuned chip, else sm_80. Raises where the GPU is
    older than Ampere or cannot run the requested chip's PTX."""
    if (major, minor) < (8, 0):
        raise RuntimeError(f"norm_mlir needs a GPU of compute capability 8.0 (Ampere) or "
                           f"newer; this one is {major}.{minor}")
    if requested:
        if not chip_runs_on(requested, major, minor):
            raise RuntimeError(f"NORM_MLIR_CHIP={requested}: a GPU of compute capability "
                               f"{major}.{minor} cannot run that chip's kernels (sm_80 runs on "
                               f"every GPU from 8.0 on)")
        return requested
    return _CHIPS.get((major, minor), PORTABLE_CHIP)


@functools.lru_cache(maxsize=None)
def _device_chip(index, requested):
    return chip_for_capability(*torch.cuda.get_device_capability(index), requested)


def device_chip(device):
    """The chip name ("sm_90", ...) bundles are compiled for on `device`
    (chip_for_capability; NORM_MLIR_CHIP=sm_80 asks for the portable kernels
    on any GPU)."""
    index = device.index if isinstance(device, torch.device) else device
    return _device_chip(torch.cuda.current_device() if index is None else index,
                        os.environ.get("NORM_MLIR_CHIP", ""))


# The compiler's target for sm_90 (norm-set-target's values for compute
# capability 90: an H100 SXM or H200), and the device property each option
# takes.
_TARGET_DEFAULTS = {"num-sms": 132, "shared-memory-per-block": 232448,
                    "shared-memory-per-sm": 233472, "threads-per-sm": 2048,
                    "registers-per-sm": 65536}
_TARGET_PROPERTIES = {"num-sms": "multi_processor_count",
                      "shared-memory-per-block": "shared_memory_per_block_optin",
                      "shared-memory-per-sm": "shared_memory_per_multiprocessor",
                      "threads-per-sm": "max_threads_per_multi_processor",
                      "registers-per-sm": "regs_per_multiprocessor"}


def target_options(properties, chip="sm_90"):
    """The compiler's target options for a GPU with `properties` (what
    torch.cuda.get_device_properties gives) and kernels for `chip`: its SMs,
    shared memory, threads and registers. For sm_90 only what differs from
    the compiler's values for it, so that bundles built for those GPUs (an
    H100 SXM, an H200) keep one cache key (an H100 PCIe gives
    "num-sms=114"); for other chips all of them, as the compiler's values
    for those are another GPU's (sm_80's an A100's)."""
    parts = []
    for option, attribute in _TARGET_PROPERTIES.items():
        value = getattr(properties, attribute, None)
        if isinstance(value, int) and value > 0 and (
                chip != "sm_90" or value != _TARGET_DEFAULTS[option]):
            parts.append(f"{option}={value}")
    return " ".join(parts)


@functools.lru_cache(maxsize=None)
def _device_target_options(index, chip):
    return target_options(torch.cuda.get_device_properties(index), chip)


def device_target_options(device):
    """target_options of CUDA `device` for its chip (device_chip; read once
    per device and chip)."""
    index = device.index if isinstance(device, torch.device) else device
    index = torch.cuda.current_device() if index is None else index
    return _device_target_options(index, device_chip(index))


def check_params(x, *params, name):
    for p in params:
        if p is None:
            continue
        if p.dim() != 1 or p.shape[0] != x.shape[-1]:
            raise ValueError(f"{name}: weight/bias must have shape ({x.shape[-1]},), "
                             f"got {tuple(p.shape)}")
        if p.device != x.device:
            raise ValueError(f"{name}: weight/bias must be on {x.device}, got {p.device}")
        if p.dtype not in FLOATS:
            raise TypeError(f"{name}: weight/bias must be bfloat16, float16 or float32, "
                            f"got {p.dtype}")


def check_input(x, *params, name):
    """What every kernel, CPU or GPU, needs of x and its weight and bias."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name}: x must be a torch.Tensor")
    if x.dtype not in FLOATS:
        raise TypeError(f"{name}: x must be bfloat16, float16 or float32, got {x.dtype}")
    if x.dim() < 1 or x.shape[-1] == 0:
        raise ValueError(f"{name}: x must have a non-empty last dimension, got shape {tuple(x.shape)}")
    check_params(x, *params, name=name)


def check_cuda(x, *params, name):
    """The GPU kernels' check: check_input, on a CUDA device."""
    check_input(x, *params, name=name)
    if not x.is_cuda:
        raise ValueError(f"{name}: x must be a CUDA or CPU tensor, got {x.device}")


def check_grad(dy, x, *stats, name, per_row=1):
    """A backward's dy (x's shape and dtype) and saved statistics (float32,
    `per_row` a row of x: one, or one a group), on x's device."""
    if not isinstance(dy, torch.Tensor) or dy.shape != x.shape or dy.dtype != x.dtype:
        raise ValueError(f"{name}: dy must have the shape and dtype of x "
                         f"({tuple(x.shape)}, {x.dtype}), got "
                         f"{(tuple(dy.shape), dy.dtype) if isinstance(dy, torch.Tensor) else dy!r}")
    rows = x.numel() // x.shape[-1] * per_row
    for t in (dy,) + stats:
        if t.device != x.device:
            raise ValueError(f"{name}: dy and the statistics must be on {x.device}, got {t.device}")
    for t in stats:
        if t.dtype != torch.float32 or t.numel() != rows:
            what = "one value per row" if per_row == 1 else f"{per_row} values per row (group)"
            raise ValueError(f"{name}: mean/rstd must be float32 with {what} of x "
                             f"({rows}), got {t.dtype} with {t.numel()}")


def check_residual(residual, x, name, what="residual"):
    """A second activation read beside x (a fused add's residual, a
    backward's dh, a gate z): x's shape, dtype and device; `what` names it
    in the error."""
    if (not isinstance(residual, torch.Tensor) or residual.shape != x.shape
            or residual.dtype != x.dtype or residual.device != x.device):
        got = ((tuple(residual.shape), residual.dtype, residual.device)
               if isinstance(residual, torch.Tensor) else residual)
        raise ValueError(f"{name}: {what} must have the shape, dtype and device of x "
                         f"({tuple(x.shape)}, {x.dtype}, {x.device}), got {got}")


def check_bias(weight, bias, name):
    if bias is not None and weight is None:
        raise ValueError(f"{name}: a bias needs a weight")
    if bias is not None and bias.dtype != weight.dtype:
        raise TypeError(f"{name}: the bias must have the weight's dtype ({weight.dtype}), "
                        f"got {bias.dtype}")


def aligned(t):
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


def shaped_results(outs, x, full=1):
    """A forward's results over the rows of x: the first `full` (y, h, q)
    viewed as x, the rest (per-row statistics, scales) as x's rows, those
    with a value per group (M x N/G) as x's rows by their groups."""
    return tuple(t.view(x.shape if i < full else x.shape[:-1] + t.shape[1:])
                 for i, t in enumerate(outs))


def group_count(group_size, n, name):
    """The groups a row of n elements has for an op's `group_size` (0: one,
    the whole row), after checking that it divides n."""
    if (not isinstance(group_size, int) or isinstance(group_size, bool) or group_size < 0
            or (group_size and n % group_size)):
        raise ValueError(f"{name}: group_size must be 0 (the whole row) or divide the last "
                         f"dimension ({n}), got {group_size!r}")
    return n // group_size if group_size else 1


def group_flag(group_size, whole=None):
    """The program flag of an op's group_size: none for 0, nor for `whole`
    (the row length, where a group of the whole row is the plain op)."""
    return {"group_size": group_size} if group_size and group_size != whole else {}


def rows(t):
    """`t` aligned, as a matrix of its rows."""
    return aligned(t).view(-1, t.shape[-1])


ACTIVATIONS = ("silu", "sigmoid")


# What the functional API computes in, by kernel or by torch: float64 only
# by torch. Integers would be normalized and rounded back to integers, and
# FP8 inputs have no arithmetic in torch.
FUNCTIONAL_FLOATS = FLOATS + (torch.float64,)


def check_floating(name, **tensors):
    """The functional ops' tensors (None for an absent one) are float32,
    bfloat16, float16 or float64, else a TypeError naming the argument.
    Called where an op falls back to torch: the kernels' path has checked
    its dtypes already."""
    for arg, t in tensors.items():
        if t is None:
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{name}: {arg} must be a tensor, got {type(t).__name__}")
        if t.dtype not in FUNCTIONAL_FLOATS:
            raise TypeError(f"{name}: {arg} must be float32, bfloat16, float16 or "
                            f"float64, got {t.dtype}")


def check_activation(activation, name):
    """A gate's activation: 'silu' or 'sigmoid'."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"{name}: activation must be 'silu' or 'sigmoid', got {activation!r}")


def gated_flags(x, z, offset, activation, norm_before_gate, group_size, name):
    """The gated RMSNorm's program flags, after checking the gate z (x's
    shape, dtype and device), its activation and the group size (0: the
    whole row); x and the weight are the caller's to check (CPU or CUDA)."""
    check_residual(z, x, name, what="the gate z")
    check_activation(activation, name)
    group_count(group_size, x.shape[-1], name)
    return dict(offset=offset, activation=activation, norm_before_gate=norm_before_gate,
                **group_flag(group_size, x.shape[-1]))
