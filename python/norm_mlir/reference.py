"""float64 reference implementations of the formulas in docs/math.md."""


def rms_fwd(x, w=None, eps=1e-6, offset=0.0):
    import torch
    xd = x.double()
    rstd = torch.rsqrt(xd.pow(2).mean(-1) + eps)
    y = xd * rstd[..., None]
    if w is not None:
        y = y * (w.double() + offset)
    return y, rstd


def ln_fwd(x, w=None, b=None, eps=1e-6):
    import torch
    xd = x.double()
    mean = xd.mean(-1)
    var = (xd - mean[..., None]).pow(2).mean(-1)
    rstd = torch.rsqrt(var + eps)
    y = (xd - mean[..., None]) * rstd[..., None]
    if w is not None:
        y = y * w.double()
    if b is not None:
        y = y + b.double()
    return y, mean, rstd


def rms_bwd(dy, x, rstd, w=None, offset=0.0):
    dyd, xd, r = dy.double(), x.double(), rstd.double()[..., None]
    g = dyd * (w.double() + offset) if w is not None else dyd
    xhat = xd * r
    c = (g * xhat).mean(-1, keepdim=True)
    dx = r * (g - xhat * c)
    dw = (dyd * xhat).reshape(-1, x.shape[-1]).sum(0) if w is not None else None
    return dx, dw


def ln_bwd(dy, x, mean, rstd, w=None, with_bias=True):
    dyd, xd = dy.double(), x.double()
    r, mu = rstd.double()[..., None], mean.double()[..., None]
    g = dyd * w.double() if w is not None else dyd
    xhat = (xd - mu) * r
    a = g.mean(-1, keepdim=True)
    c = (g * xhat).mean(-1, keepdim=True)
    dx = r * (g - a - xhat * c)
    n = x.shape[-1]
    dw = (dyd * xhat).reshape(-1, n).sum(0) if w is not None else None
    db = dyd.reshape(-1, n).sum(0) if with_bias else None
    return dx, dw, db


def rel_error(out, ref):
    """||out - ref|| / ||ref|| in float64; inf when out has NaN or Inf."""
    import torch
    o = out.double()
    if not torch.isfinite(o).all():
        return float("inf")
    den = ref.norm().item()
    return (o - ref).norm().item() / (den if den > 0 else 1.0)


def residual_sum(x, r):
    """h = x + residual as the programs compute it: summed in f32 and rounded
    once to x's type (the norm then reads the rounded h)."""
    return (x.float() + r.float()).to(x.dtype)


def l2_fwd(x, eps=1e-6):
    """y = x / sqrt(sum x^2 + eps) and that row factor (rstd)."""
    import torch
    xd = x.double()
    rstd = torch.rsqrt(xd.pow(2).sum(-1) + eps)
    return xd * rstd[..., None], rstd


def l2_bwd(dy, x, rstd):
    """dx = rstd (dy - y sum(dy y)), y = x rstd."""
    r = rstd.double()[..., None]
    y = x.double() * r
    dyd = dy.double()
    return r * (dyd - y * (dyd * y).sum(-1, keepdim=True))


def gated_fwd(x, z, w=None, eps=1e-6, offset=0.0, activation="silu",
              norm_before_gate=True, group=None):
    """The gated RMSNorm: y = norm(x) w act(z), or norm(x act(z)) w when the
    gate comes first; each group of `group` columns normalized by itself.
    Returns y and rstd (M, or M x N/group)."""
    import torch
    xd, zd = x.double(), z.double()
    act = torch.nn.functional.silu(zd) if activation == "silu" else torch.sigmoid(zd)
    h = xd if norm_before_gate else xd * act
    n = h.shape[-1]
    g = group or n
    parts = h.unflatten(-1, (n // g, g))
    rstd = torch.rsqrt(parts.pow(2).mean(-1) + eps)
    y = (parts * rstd[..., None]).flatten(-2)
    if w is not None:
        y = y * (w.double() + offset)
    if norm_before_gate:
        y = y * act
    return y, (rstd if group else rstd[..., 0])


def gated_bwd(dy, x, z, w=None, eps=1e-6, offset=0.0, activation="silu",
              norm_before_gate=True, group=None):
    """dx, dz and dw (None without a weight) of gated_fwd, by float64
    autograd."""
    leaves = [t.detach().double().requires_grad_() if t is not None else None
              for t in (x, z, w)]
    y, _ = gated_fwd(*leaves, eps=eps, offset=offset, activation=activation,
                     norm_before_gate=norm_before_gate, group=group)
    (y * dy.double()).sum().backward()
    return tuple(t.grad if t is not None else None for t in leaves)


def fp8_scales(y, group=None):
    """The e4m3 scales of y (float64): the amax of each row, or of each group
    of `group` columns, over 448."""
    n = y.shape[-1]
    parts = y.unflatten(-1, (n // group, group)) if group else y[..., None, :]
    scale = (parts.abs().amax(-1) / 448).clamp_min(1e-12)
    return scale if group else scale[..., 0]


def fp8_excess(q, scale, y, group=None):
    """How far the e4m3 values q (with their f32 scales) fall outside half a
    step of y / scale (3 mantissa bits: 1/16 relative, 2^-10 absolute among
    the subnormals): 0 when every value is within."""
    n = y.shape[-1]
    g = group or n
    target = (y.unflatten(-1, (n // g, g))
              / scale.double().reshape(*y.shape[:-1], n // g)[..., None]).flatten(-2)
    got = q.double()
    bound = target.abs() / 16 + 2.0 ** -10 + 1e-4
    return ((got - target).abs() - bound).clamp_min(0).max().item()
