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
