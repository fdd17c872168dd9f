"""Programs written directly as order-typed IR: norm.reduce (a row or
column reduction) and norm.map (elementwise work on full tensors, rows or
columns), which norm-fuse-mixed-order puts into one kernel each.

  l2_fwd / l2_bwd:       the L2 norm of Gated DeltaNet's q and k,
                         y = x * rsqrt(sum_j x^2 + eps), no weight;
  gated_fwd / gated_bwd: the gated RMSNorm of Gated DeltaNet and Mamba2,
                         y = rms_norm(x) * w' * act(z) (the norm before the
                         gate) or rms_norm(x * act(z)) * w' (after it), with
                         act silu or sigmoid and w' = w + offset;
  fp8_quant_ops:         the per-row FP8 e4m3 quantization that
                         programs.py's quant=True forwards append to a
                         norm with an f32 y.

The formulas with their order types are in docs/math.md. Every region
computes in f32 and rounds once where it stores.
"""

import re

ACTIVATIONS = ("silu", "sigmoid")


class _Op:
    """One norm.reduce or norm.map: its inputs become f32 values named as the
    inputs, the body lines compute with them, `result` is yielded."""

    def __init__(self, name, head, inputs, out_type, group_size=None):
        self.name, self.head, self.inputs, self.out_type = name, head, inputs, out_type
        self.attrs = f" {{group_size = {group_size} : i64}}" if group_size else ""
        self.lines = []

    def let(self, name, text):
        """A body line `%name = text` (an f32 op)."""
        self.lines.append(f"    %{name} = {text}")
        return f"%{name}"

    def text(self, result, store="f32"):
        ins = ", ".join(f"%{v} : {role} {t}" for v, role, t, _ in self.inputs)
        # f32 elements are used as they are; others are extended to f32.
        args = ", ".join(f"%{v}: f32" if e == "f32" else f"%{v}_e: {e}"
                         for v, _, _, e in self.inputs)
        body = [f"  ^bb0({args}):"]
        body += [f"    %{v} = arith.extf %{v}_e : {e} to f32"
                 for v, _, _, e in self.inputs if e != "f32"]
        body += self.lines
        if store != "f32":
            body.append(f"    %t = arith.truncf {result} : f32 to {store}")
            result = "%t"
        body.append(f"    norm.yield {result} : {store}")
        # Regions see the function's values: the region's own names get the
        # op's name as a prefix so they never shadow them.
        body = re.sub(r"%(\w+)", rf"%{self.name}_\1", "\n".join(body))
        return (f"  %{self.name} = {self.head} ins({ins}){self.attrs} -> {self.out_type} {{\n"
                f"{body}\n  }}\n")


def _const(op, name, value):
    return op.let(name, f"arith.constant {float(value):.17e} : f32")


def _act(op, z, activation):
    """act(z) and sigmoid(z), which its derivative is made of."""
    nz = op.let("nz", f"arith.negf {z} : f32")
    ez = op.let("ez", f"math.exp {nz} : f32")
    one = _const(op, "one", 1.0)
    den = op.let("den", f"arith.addf {one}, {ez} : f32")
    # afn: the GPU kernels divide by PTX div.full.f32 (2 ulp, Triton's f32
    # division) rather than the IEEE form (lib/Conversion/DivForm.h).
    sig = op.let("sig", f"arith.divf {one}, {den} fastmath<afn> : f32")
    if activation == "sigmoid":
        return sig, sig
    return op.let("act", f"arith.mulf {z}, {sig} : f32"), sig


def _act_grad(op, z, sig, activation):
    """act'(z) from sigmoid(z): s (1 - s) for sigmoid, s (1 + z (1 - s)) for
    silu."""
    one = "%one"
    oms = op.let("oms", f"arith.subf {one}, {sig} : f32")
    if activation == "sigmoid":
        return op.let("dact", f"arith.mulf {sig}, {oms} : f32")
    zo = op.let("zo", f"arith.mulf {z}, {oms} : f32")
    t = op.let("t1", f"arith.addf {one}, {zo} : f32")
    return op.let("dact", f"arith.mulf {sig}, {t} : f32")


def _rstd_map(name, ss, scale, eps, group_size=None, n=None):
    """The row map rsqrt(scale * ss + eps) (a group map with group_size)."""
    order = "group" if group_size else "row"
    s = scale_type(n, group_size)
    op = _Op(name, f"norm.map <{order}>", [(ss, order, s, "f32")], s, group_size)
    s = op.let("scaled", f"arith.mulf %{ss}, {_const(op, 'scale', scale)} : f32")
    a = op.let("a", f"arith.addf {s}, {_const(op, 'eps', eps)} : f32")
    return op.text(op.let("q", f"math.rsqrt {a} : f32"))


def _check_activation(activation):
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")


def l2_program(kind, n, t, eps, stats=True):
    """The L2 norm: 'l2_fwd' takes x and returns y (and rstd, the row's
    1/sqrt(sum x^2 + eps), unless stats is False); 'l2_bwd' takes dy, x,
    rstd and returns dx = rstd (dy - y sum_j dy y) with y = x rstd."""
    x = f"tensor<?x{n}x{t}>"
    s = "tensor<?xf32>"
    if kind == "l2_fwd":
        ss = _Op("ss", "norm.reduce <row> <add>", [("x", "full", x, t)], s)
        body = ss.text(ss.let("sq", "arith.mulf %x, %x : f32"))
        body += _rstd_map("rstd", "ss", 1.0, eps)
        y = _Op("y", "norm.map <full>", [("x", "full", x, t), ("rstd", "row", s, "f32")], x)
        body += y.text(y.let("p", "arith.mulf %x, %rstd : f32"), t)
        res, ret = (f"({x}, {s})", f"%y, %rstd : {x}, {s}") if stats else (x, f"%y : {x}")
        return f"func.func @l2_fwd(%x: {x}) -> {res} {{\n{body}  return {ret}\n}}\n"
    if kind == "l2_bwd":
        dot = _Op("dot", "norm.reduce <row> <add>", [("dy", "full", x, t), ("x", "full", x, t)], s)
        body = dot.text(dot.let("p", "arith.mulf %dy, %x : f32"))
        # c = rstd^2 * sum_j dy x, so dx = rstd (dy - x c).
        c = _Op("c", "norm.map <row>", [("dot", "row", s, "f32"), ("rstd", "row", s, "f32")], s)
        r2 = c.let("r2", "arith.mulf %rstd, %rstd : f32")
        body += c.text(c.let("v", f"arith.mulf %dot, {r2} : f32"))
        dx = _Op("dx", "norm.map <full>", [("dy", "full", x, t), ("x", "full", x, t),
                                          ("rstd", "row", s, "f32"), ("c", "row", s, "f32")], x)
        xc = dx.let("xc", "arith.mulf %x, %c : f32")
        d = dx.let("d", f"arith.subf %dy, {xc} : f32")
        body += dx.text(dx.let("v", f"arith.mulf %rstd, {d} : f32"), t)
        return (f"func.func @l2_bwd(%dy: {x}, %x: {x}, %rstd: {s}) -> {x} {{\n{body}"
                f"  return %dx : {x}\n}}\n")
    raise ValueError(f"unknown op kind {kind!r}")


def gated_program(kind, n, t, wt, weight, eps, offset, activation, norm_before_gate,
                  stats=True, group_size=None):
    """The gated RMSNorm. 'gated_fwd' takes x, z (x's shape and dtype) and
    the weight, returns y (and rstd unless stats is False); 'gated_bwd' takes
    dy, x, z, rstd and the weight, returns dx, dz (and dw). With group_size
    G (a divisor of N other than N) each group of G consecutive columns of a
    row is normalized by itself (Mamba2's ngroups): its statistics are group
    reductions and rstd is M x N/G."""
    _check_activation(activation)
    if group_size == n:
        group_size = None
    x = f"tensor<?x{n}x{t}>"
    s = scale_type(n, group_size)
    order = "group" if group_size else "row"
    g_n = group_size or n
    v = f"tensor<{n}x{wt}>"
    w_in = [("w", "col", v, wt)] if weight else []

    def scaled_weight(op):
        """w + offset (1 without a weight)."""
        if not weight:
            return _const(op, "wone", 1.0)
        return op.let("wo", f"arith.addf %w, {_const(op, 'off', offset)} : f32") if offset else "%w"

    def normed_input(op):
        """What the norm normalizes: x, or x act(z) after the gate."""
        if norm_before_gate:
            return "%x", None, None
        a, sig = _act(op, "%z", activation)
        return op.let("h", f"arith.mulf %x, {a} : f32"), a, sig

    xz = [("x", "full", x, t), ("z", "full", x, t)]
    if kind == "gated_fwd":
        ins = [("x", "full", x, t)] if norm_before_gate else xz
        ss = _Op("ss", f"norm.reduce <{order}> <add>", ins, s, group_size)
        h, _, _ = normed_input(ss)
        body = ss.text(ss.let("sq", f"arith.mulf {h}, {h} : f32"))
        body += _rstd_map("rstd", "ss", 1.0 / g_n, eps, group_size, n)
        y = _Op("y", "norm.map <full>", xz + [("rstd", order, s, "f32")] + w_in, x, group_size)
        h, _, _ = normed_input(y)
        p = y.let("xn", f"arith.mulf {h}, %rstd : f32")
        p = y.let("yw", f"arith.mulf {p}, {scaled_weight(y)} : f32")
        if norm_before_gate:
            a, _ = _act(y, "%z", activation)
            p = y.let("yg", f"arith.mulf {p}, {a} : f32")
        body += y.text(p, t)
        args = [f"%x: {x}", f"%z: {x}"] + ([f"%w: {v}"] if weight else [])
        res, ret = (f"({x}, {s})", f"%y, %rstd : {x}, {s}") if stats else (x, f"%y : {x}")
        return f"func.func @gated_fwd({', '.join(args)}) -> {res} {{\n{body}  return {ret}\n}}\n"
    if kind != "gated_bwd":
        raise ValueError(f"unknown op kind {kind!r}")
    common = [("dy", "full", x, t)] + xz + [("rstd", order, s, "f32")]

    def norm_grad_parts(op):
        """g (the gradient reaching the norm's output xn = h rstd) and xn."""
        h, a, sig = normed_input(op)
        xn = op.let("xn", f"arith.mulf {h}, %rstd : f32")
        g = op.let("g", f"arith.mulf %dy, {scaled_weight(op)} : f32")
        if norm_before_gate:
            a, sig = _act(op, "%z", activation)
            g = op.let("gg", f"arith.mulf {g}, {a} : f32")
        return g, xn, a, sig

    def input_grad(op):
        """dn = rstd (g - xn c / N), the gradient at the normalized input
        (c: the row reduction below), with act(z) and sigmoid(z)."""
        g, xn, a, sig = norm_grad_parts(op)
        cn = op.let("cn", f"arith.mulf %c, {_const(op, 'invn', 1.0 / g_n)} : f32")
        xc = op.let("xc", f"arith.mulf {xn}, {cn} : f32")
        dn = op.let("dn", f"arith.mulf %rstd, {op.let('gd', f'arith.subf {g}, {xc} : f32')} : f32")
        return dn, a, sig

    # c = sum_j g xn over the row (group): the statistics' term of the
    # RMSNorm gradient.
    c = _Op("c", f"norm.reduce <{order}> <add>", common + w_in, s, group_size)
    g, xn, _, _ = norm_grad_parts(c)
    body = c.text(c.let("p", f"arith.mulf {g}, {xn} : f32"))
    dx = _Op("dx", "norm.map <full>", common + [("c", order, s, "f32")] + w_in, x, group_size)
    dn, a, sig = input_grad(dx)
    if not norm_before_gate:
        dn = dx.let("dxg", f"arith.mulf {dn}, {a} : f32")
    body += dx.text(dn, t)
    # dz: the gate's gradient, dy w' xn act'(z) before the norm, dn x act'(z)
    # after it (dn recomputed in the same kernel from the same reads).
    dz = _Op("dz", "norm.map <full>", common + ([("c", order, s, "f32")] if not norm_before_gate
                                                else []) + w_in, x, group_size)
    if norm_before_gate:
        xn = dz.let("xn", "arith.mulf %x, %rstd : f32")
        a, sig = _act(dz, "%z", activation)
        q = dz.let("q", f"arith.mulf %dy, {dz.let('xw', f'arith.mulf {xn}, {scaled_weight(dz)} : f32')} : f32")
    else:
        dn, a, sig = input_grad(dz)
        q = dz.let("q", f"arith.mulf {dn}, %x : f32")
    body += dz.text(dz.let("v", f"arith.mulf {q}, {_act_grad(dz, '%z', sig, activation)} : f32"), t)
    results = [("%dx", x), ("%dz", x)]
    if weight:
        # dw = sum_i dy xn (times act(z) before the norm).
        dw = _Op("dw", "norm.reduce <col> <add>", common, f"tensor<{n}x{wt}>", group_size)
        h, _, _ = normed_input(dw)
        p = dw.let("xn", f"arith.mulf {h}, %rstd : f32")
        p = dw.let("p", f"arith.mulf %dy, {p} : f32")
        if norm_before_gate:
            a, _ = _act(dw, "%z", activation)
            p = dw.let("pg", f"arith.mulf {p}, {a} : f32")
        body += dw.text(p)
        results.append(("%dw", v))
    args = [f"%dy: {x}", f"%x: {x}", f"%z: {x}", f"%rstd: {s}"] + ([f"%w: {v}"] if weight else [])
    names, types = ", ".join(r for r, _ in results), ", ".join(t for _, t in results)
    return (f"func.func @gated_bwd({', '.join(args)}) -> ({types}) {{\n{body}"
            f"  return {names} : {types}\n}}\n")


# The largest finite f8E4M3FN value, and the smallest scale a row gets (an
# all-zero row quantizes to zeros, not 0/0).
FP8_MAX = 448.0
MIN_SCALE = 1e-12


def scale_type(n, group_size=None):
    """The type of fp8_quant_ops' %scale: one a row, or one a row and group."""
    return f"tensor<?x{n // group_size}xf32>" if group_size else "tensor<?xf32>"


def fp8_quant_ops(y, n, group_size=None):
    """norm.reduce / norm.map text quantizing %`y` (an f32 M x N value) to
    f8E4M3FN per row, or with `group_size` G per group of G consecutive
    columns of a row (DeepSeek-V3's 1 x 128 activation scales): %amax =
    max |y| over the row (group), %scale = max(amax / 448, 1e-12) (M, or
    M x N/G), %q = y * (1 / scale) rounded to f8E4M3FN (saturating).
    Dequantized, q * scale approximates y. One division a row (group), not
    one an element: an f32 division (div.rn) per element made the kernels at
    rows of 128 compute-bound (Evidence: docs/tuning.md, fp8_quant_ops)."""
    xf, s = f"tensor<?x{n}xf32>", scale_type(n, group_size)
    order = "group" if group_size else "row"
    amax = _Op("amax", f"norm.reduce <{order}> <max>", [(y, "full", xf, "f32")], s, group_size)
    neg = amax.let("neg", f"arith.negf %{y} : f32")
    body = amax.text(amax.let("abs", f"arith.maximumf %{y}, {neg} : f32"))
    scale = _Op("scale", f"norm.map <{order}>", [("amax", order, s, "f32")], s, group_size)
    v = scale.let("v", f"arith.divf %amax, {_const(scale, 'max', FP8_MAX)} : f32")
    body += scale.text(scale.let("c", f"arith.maximumf {v}, {_const(scale, 'min', MIN_SCALE)} : f32"))
    inv = _Op("inv", f"norm.map <{order}>", [("scale", order, s, "f32")], s, group_size)
    body += inv.text(inv.let("r", f"arith.divf {_const(inv, 'one', 1.0)}, %scale : f32"))
    q = _Op("q", "norm.map <full>", [(y, "full", xf, "f32"), ("inv", order, s, "f32")],
            f"tensor<?x{n}xf8E4M3FN>", group_size)
    body += q.text(q.let("v", f"arith.mulf %{y}, %inv : f32"), "f8E4M3FN")
    return body
