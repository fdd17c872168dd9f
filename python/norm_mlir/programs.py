"""User-level norm programs (MLIR text) for the ops the package exposes.

Every program has a static normalized size N and a dynamic row count M, so one
compiled bundle serves every M.
"""

import math

_TYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32",
          "bf16": "bf16", "f16": "f16", "f32": "f32"}


def mlir_type(dtype):
    """'bf16' / 'f16' / 'f32' for a torch dtype or a name."""
    key = str(dtype).replace("torch.", "")
    if key not in _TYPES:
        raise ValueError(f"unsupported dtype {dtype}: norm supports bfloat16, float16, float32")
    return _TYPES[key]


def program_text(kind, n, dtype, weight_dtype=None, weight=True, bias=True,
                 eps=1e-6, offset=0.0, stats=True):
    """MLIR for one op.

    kind: 'rms_fwd', 'rms_bwd', 'ln_fwd' or 'ln_bwd'. Arguments and results
    follow the op's operand order (see docs/bundle.md). stats=False makes a
    forward return only y (the inference forward): its kernel then stores no
    mean or rstd, which the backward is the only reader of.
    """
    if not isinstance(n, int) or n <= 0:
        raise ValueError(f"N must be a positive integer, got {n!r}")
    # MLIR has no literal for inf or nan: a clear error here, not a parse
    # error in generated text.
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps must be positive and finite, got {eps!r}")
    if not math.isfinite(offset):
        raise ValueError(f"offset must be finite, got {offset!r}")
    if not stats and kind not in ("rms_fwd", "ln_fwd"):
        raise ValueError(f"stats=False is for the forwards, not {kind!r}")
    t = mlir_type(dtype)
    wt = mlir_type(weight_dtype) if weight_dtype is not None else t
    x = f"tensor<?x{n}x{t}>"
    v = f"tensor<{n}x{wt}>"
    s = "tensor<?xf32>"
    # MLIR float literals need a mantissa with a decimal point.
    eps_attr = f"epsilon = {float(eps):.17e} : f64"
    off = f", weight_offset = {float(offset):.17e} : f64" if offset else ""
    if kind == "rms_fwd":
        args = [f"%x: {x}"] + ([f"%w: {v}"] if weight else [])
        wc = f" weight(%w : {v})" if weight else ""
        res, ret = (f"({x}, {s})", f"%y, %rstd : {x}, {s}") if stats else (x, f"%y : {x}")
        return (f"func.func @rms_fwd({', '.join(args)}) -> {res} {{\n"
                f"  %y, %rstd = norm.rms_norm %x{wc} {{{eps_attr}{off}}} : {x} -> {x}, {s}\n"
                f"  return {ret}\n}}\n")
    if kind == "ln_fwd":
        bias = bias and weight
        args = [f"%x: {x}"] + ([f"%w: {v}"] if weight else []) + ([f"%b: {v}"] if bias else [])
        wc = (f" weight(%w : {v})" if weight else "") + (f" bias(%b : {v})" if bias else "")
        res, ret = ((f"({x}, {s}, {s})", f"%y, %mean, %rstd : {x}, {s}, {s}") if stats
                    else (x, f"%y : {x}"))
        return (f"func.func @ln_fwd({', '.join(args)}) -> {res} {{\n"
                f"  %y, %mean, %rstd = norm.layer_norm %x{wc} {{{eps_attr}}} : {x} -> {x}, {s}, {s}\n"
                f"  return {ret}\n}}\n")
    if kind == "rms_bwd":
        args = [f"%dy: {x}", f"%x: {x}", f"%rstd: {s}"] + ([f"%w: {v}"] if weight else [])
        wc = f" weight(%w : {v})" if weight else ""
        res = [x] + ([v] if weight else [])
        names = ["%dx"] + (["%dw"] if weight else [])
        attrs = f" {{{off[2:]}}}" if off else ""
        return (f"func.func @rms_bwd({', '.join(args)}) -> ({', '.join(res)}) {{\n"
                f"  {', '.join(names)} = norm.rms_norm_grad %dy, %x, %rstd{wc}{attrs} : {x}, {x}, {s} -> {', '.join(res)}\n"
                f"  return {', '.join(names)} : {', '.join(res)}\n}}\n")
    if kind == "ln_bwd":
        args = [f"%dy: {x}", f"%x: {x}", f"%mean: {s}", f"%rstd: {s}"] + ([f"%w: {v}"] if weight else [])
        wc = f" weight(%w : {v})" if weight else ""
        res = [x] + ([v] if weight else []) + ([v] if bias else [])
        names = ["%dx"] + (["%dw"] if weight else []) + (["%db"] if bias else [])
        types = x + (f" dw {v}" if weight else "") + (f" db {v}" if bias else "")
        attrs = " {has_bias}" if bias else ""
        return (f"func.func @ln_bwd({', '.join(args)}) -> ({', '.join(res)}) {{\n"
                f"  {', '.join(names)} = norm.layer_norm_grad %dy, %x, %mean, %rstd{wc}{attrs} : {x}, {x}, {s}, {s} -> {types}\n"
                f"  return {', '.join(names)} : {', '.join(res)}\n}}\n")
    raise ValueError(f"unknown op kind {kind!r}")


def op_program(kind, n, dtype, weight_dtype, **flags):
    """The program the custom ops compile for one call: `dtype` and
    `weight_dtype` are type names ('bf16', ...) or torch dtypes; weight_dtype
    None means no weight. Shared by norm_mlir.ops and the cache prebuilder so
    both produce the same cache keys."""
    return program_text(kind, n, mlir_type(dtype),
                        weight_dtype=mlir_type(weight_dtype) if weight_dtype is not None else None,
                        weight=weight_dtype is not None, **flags)
