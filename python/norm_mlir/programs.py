"""User-level norm programs (MLIR text) for the ops the package exposes.

Every program has a static normalized size N and a dynamic row count M, so one
compiled bundle serves every M.
"""

import math

from . import order_programs

_TYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32",
          "bf16": "bf16", "f16": "f16", "f32": "f32"}


def mlir_type(dtype):
    """'bf16' / 'f16' / 'f32' for a torch dtype or a name."""
    key = str(dtype).replace("torch.", "")
    if key not in _TYPES:
        raise ValueError(f"unsupported dtype {dtype}: norm supports bfloat16, float16, float32")
    return _TYPES[key]


def _add(name, a, at, b, bt, out_t, elem):
    """A norm.map that adds full tensors `a` (element type at) and `b` (bt)
    in f32 and rounds once to `elem`: the residual add of a pre-norm block."""
    ext = lambda v, t: (f"arith.extf %{v}e : {t} to f32" if t != "f32" else None)
    lines = [f"  %{name} = norm.map <full> ins(%{a} : full {out_t.replace(elem, at)}, "
             f"%{b} : full {out_t.replace(elem, bt)}) -> {out_t} {{",
             f"  ^bb0(%{a}e: {at}, %{b}e: {bt}):"]
    operands = []
    for v, t in ((a, at), (b, bt)):
        if t == "f32":
            operands.append(f"%{v}e")
        else:
            lines.append(f"    %{v}f = {ext(v, t)}")
            operands.append(f"%{v}f")
    lines.append(f"    %{name}s = arith.addf {operands[0]}, {operands[1]} : f32")
    if elem == "f32":
        lines.append(f"    norm.yield %{name}s : f32")
    else:
        lines.append(f"    %{name}t = arith.truncf %{name}s : f32 to {elem}")
        lines.append(f"    norm.yield %{name}t : {elem}")
    lines.append("  }")
    return "\n".join(lines) + "\n"


def program_text(kind, n, dtype, weight_dtype=None, weight=True, bias=True,
                 eps=1e-6, offset=0.0, stats=True, residual=False, activation="silu",
                 norm_before_gate=True, quant=False, group_size=None):
    """MLIR for one op.

    kind: 'rms_fwd', 'rms_bwd', 'ln_fwd' or 'ln_bwd', or one of the programs
    written as order-typed IR (norm_mlir.order_programs): 'l2_fwd',
    'l2_bwd' (the L2 norm), 'gated_fwd', 'gated_bwd' (the gated RMSNorm,
    with `activation`, `norm_before_gate` and `group_size`, the columns of
    each group normalized by itself). Arguments and results
    follow the op's operand order (see docs/bundle.md). stats=False makes a
    forward return only y (the inference forward): its kernel then stores no
    mean or rstd, which the backward is the only reader of.

    quant=True (the forwards) quantizes y to FP8 e4m3 per row: the program
    returns q (f8E4M3FN) and the row's f32 scale in y's place (q * scale
    approximates y; order_programs.fp8_quant_ops), the norm's y computed in
    f32 and never stored. With group_size G (a divisor of N) the scales are
    per group of G consecutive columns of a row (M x N/G).

    residual=True makes the pre-norm block's fused residual add: a forward
    takes (x, residual, ...) and normalizes h = x + residual, returning y, h
    and its statistics; a backward takes (dy, dh, h, statistics, ...) and
    returns dx = the norm's gradient at h plus dh (summed in f32, rounded
    once: the gradient of both x and the residual). The add is a norm.map
    that the mixed-order fusion puts into the norm's kernel.
    """
    if not isinstance(n, int) or n <= 0:
        raise ValueError(f"N must be a positive integer, got {n!r}")
    # MLIR has no literal for inf or nan: a clear error here, not a parse
    # error in generated text.
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps must be positive and finite, got {eps!r}")
    if not math.isfinite(offset):
        raise ValueError(f"offset must be finite, got {offset!r}")
    if quant and kind not in ("rms_fwd", "ln_fwd"):
        raise ValueError(f"quant=True is for the RMSNorm and LayerNorm forwards, not {kind!r}")
    if group_size is not None:
        if not quant and kind not in ("gated_fwd", "gated_bwd"):
            raise ValueError("group_size is for quant=True (group scales) and the gated "
                             f"norm, not {kind!r}")
        if not isinstance(group_size, int) or group_size <= 0 or n % group_size:
            raise ValueError(f"group_size must be a positive divisor of N ({n}), "
                             f"got {group_size!r}")
    if not stats and kind not in ("rms_fwd", "ln_fwd", "l2_fwd", "gated_fwd"):
        raise ValueError(f"stats=False is for the forwards, not {kind!r}")
    t = mlir_type(dtype)
    wt = mlir_type(weight_dtype) if weight_dtype is not None else t
    x = f"tensor<?x{n}x{t}>"
    v = f"tensor<{n}x{wt}>"
    s = "tensor<?xf32>"
    # MLIR float literals need a mantissa with a decimal point.
    eps_attr = f"epsilon = {float(eps):.17e} : f64"
    off = f", weight_offset = {float(offset):.17e} : f64" if offset else ""
    if kind in ("l2_fwd", "l2_bwd"):
        return order_programs.l2_program(kind, n, t, eps, stats)
    if kind in ("gated_fwd", "gated_bwd"):
        return order_programs.gated_program(kind, n, t, wt, weight, eps, offset, activation,
                                            norm_before_gate, stats, group_size)
    if quant:
        return _quant_program(kind, n, t, wt, weight, bias, eps_attr, off, stats, residual,
                              group_size)
    if residual:
        return _residual_program(kind, n, t, wt, weight, bias, eps_attr, off, stats)
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
                f"  %y, %mean, %rstd = norm.layer_norm %x{wc} {{{eps_attr}{off}}} : {x} -> {x}, {s}, {s}\n"
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
        attrs = _grad_attrs(bias, off)
        return (f"func.func @ln_bwd({', '.join(args)}) -> ({', '.join(res)}) {{\n"
                f"  {', '.join(names)} = norm.layer_norm_grad %dy, %x, %mean, %rstd{wc}{attrs} : {x}, {x}, {s}, {s} -> {types}\n"
                f"  return {', '.join(names)} : {', '.join(res)}\n}}\n")
    raise ValueError(f"unknown op kind {kind!r}")


def _grad_attrs(bias, off):
    """The attribute dictionary of a norm.layer_norm_grad: has_bias and the
    weight offset (`off`, ", weight_offset = ..." or empty)."""
    attrs = (["has_bias"] if bias else []) + ([off[2:]] if off else [])
    return f" {{{', '.join(attrs)}}}" if attrs else ""


def _residual_program(kind, n, t, wt, weight, bias, eps_attr, off, stats):
    """program_text's residual=True programs (see there)."""
    x = f"tensor<?x{n}x{t}>"
    xf = f"tensor<?x{n}xf32>"
    v = f"tensor<{n}x{wt}>"
    s = "tensor<?xf32>"
    if kind in ("rms_fwd", "ln_fwd"):
        rms = kind == "rms_fwd"
        bias = bias and weight and not rms
        args = ([f"%x: {x}", f"%r: {x}"] + ([f"%w: {v}"] if weight else [])
                + ([f"%b: {v}"] if bias else []))
        wc = (f" weight(%w : {v})" if weight else "") + (f" bias(%b : {v})" if bias else "")
        stat_names = ["%rstd"] if rms else ["%mean", "%rstd"]
        names = ["%y", "%h"] + (stat_names if stats else [])
        types = [x, x] + ([s] * len(stat_names) if stats else [])
        norm = (f"  %y, %rstd = norm.rms_norm %h{wc} {{{eps_attr}{off}}} : {x} -> {x}, {s}\n"
                if rms else
                f"  %y, %mean, %rstd = norm.layer_norm %h{wc} {{{eps_attr}{off}}} : {x} -> {x}, {s}, {s}\n")
        return (f"func.func @{kind}({', '.join(args)}) -> ({', '.join(types)}) {{\n"
                + _add("h", "x", t, "r", t, x, t) + norm
                + f"  return {', '.join(names)} : {', '.join(types)}\n}}\n")
    if kind in ("rms_bwd", "ln_bwd"):
        rms = kind == "rms_bwd"
        bias = bias and not rms
        stats_args = [f"%rstd: {s}"] if rms else [f"%mean: {s}", f"%rstd: {s}"]
        args = [f"%dy: {x}", f"%dh: {x}", f"%h: {x}"] + stats_args + ([f"%w: {v}"] if weight else [])
        wc = f" weight(%w : {v})" if weight else ""
        res = [x] + ([v] if weight else []) + ([v] if bias else [])
        names = ["%dx"] + (["%dw"] if weight else []) + (["%db"] if bias else [])
        grad_names = ["%dn"] + names[1:]
        if rms:
            attrs = f" {{{off[2:]}}}" if off else ""
            grad = (f"  {', '.join(grad_names)} = norm.rms_norm_grad %dy, %h, %rstd{wc}{attrs} : "
                    f"{x}, {x}, {s} -> {', '.join([xf] + res[1:])}\n")
        else:
            types = xf + (f" dw {v}" if weight else "") + (f" db {v}" if bias else "")
            attrs = _grad_attrs(bias, off)
            grad = (f"  {', '.join(grad_names)} = norm.layer_norm_grad %dy, %h, %mean, %rstd{wc}{attrs} : "
                    f"{x}, {x}, {s}, {s} -> {types}\n")
        return (f"func.func @{kind}({', '.join(args)}) -> ({', '.join(res)}) {{\n"
                + grad + _add("dx", "dn", "f32", "dh", t, x, t)
                + f"  return {', '.join(names)} : {', '.join(res)}\n}}\n")
    raise ValueError(f"unknown op kind {kind!r}")


def _quant_program(kind, n, t, wt, weight, bias, eps_attr, off, stats, residual,
                   group_size=None):
    """program_text's quant=True forwards (see there): returns q, then h
    with the residual add, the scale (per row, or per group of group_size
    columns), then the statistics."""
    x = f"tensor<?x{n}x{t}>"
    xf = f"tensor<?x{n}xf32>"
    q = f"tensor<?x{n}xf8E4M3FN>"
    v = f"tensor<{n}x{wt}>"
    s = "tensor<?xf32>"
    rms = kind == "rms_fwd"
    bias = bias and weight and not rms
    args = ([f"%x: {x}"] + ([f"%r: {x}"] if residual else []) + ([f"%w: {v}"] if weight else [])
            + ([f"%b: {v}"] if bias else []))
    wc = (f" weight(%w : {v})" if weight else "") + (f" bias(%b : {v})" if bias else "")
    src = "%h" if residual else "%x"
    body = _add("h", "x", t, "r", t, x, t) if residual else ""
    if rms:
        body += f"  %yn, %rstd = norm.rms_norm {src}{wc} {{{eps_attr}{off}}} : {x} -> {xf}, {s}\n"
    else:
        body += (f"  %yn, %mean, %rstd = norm.layer_norm {src}{wc} {{{eps_attr}{off}}} : "
                 f"{x} -> {xf}, {s}, {s}\n")
    body += order_programs.fp8_quant_ops("yn", n, group_size)
    stat_names = ["%rstd"] if rms else ["%mean", "%rstd"]
    names = ["%q"] + (["%h"] if residual else []) + ["%scale"] + (stat_names if stats else [])
    types = ([q] + ([x] if residual else []) + [order_programs.scale_type(n, group_size)]
             + ([s] * len(stat_names) if stats else []))
    return (f"func.func @{kind}({', '.join(args)}) -> ({', '.join(types)}) {{\n{body}"
            f"  return {', '.join(names)} : {', '.join(types)}\n}}\n")


def op_program(kind, n, dtype, weight_dtype, **flags):
    """The program the custom ops compile for one call: `dtype` and
    `weight_dtype` are type names ('bf16', ...) or torch dtypes; weight_dtype
    None means no weight. Shared by norm_mlir.ops and the cache prebuilder so
    both produce the same cache keys."""
    return program_text(kind, n, mlir_type(dtype),
                        weight_dtype=mlir_type(weight_dtype) if weight_dtype is not None else None,
                        weight=weight_dtype is not None, **flags)
