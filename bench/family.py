#!/usr/bin/env python3
"""The norm family beyond the plain norms: the L2 norm, the gated RMSNorm
and QK-norm (RMSNorm over head_dim) at the rows of attention and Gated
DeltaNet heads, and the norms with FP8 output, against torch.compile of the
same Python and eager PyTorch, in one run: TB/s of the bytes each call must
move, its ratio to the device-to-device copy ceiling, and norm over
torch.compile, per shape and as geomeans.

  bench/family.py --bundles DIR [--shapes heads] [--ops ...]
                  [--timing graph,kernels] [--rounds 3] [--out DIR]
                  [--variants DIR2,DIR3]

DIR holds scripts/build-bundles.py --family's bundles. The calls (bf16, the
weight bf16):
- l2_fwd:    y = x / sqrt(sum x^2 + eps) (inference forward).
             Bytes: read x, write y.
- l2_bwd:    dx from dy, x and the saved rstd. Bytes: read dy, x, rstd,
             write dx.
- gated_fwd: y = rms_norm(x) w silu(z) (inference forward). Bytes: read x,
             z, w, write y.
- gated_bwd: dx, dz, dw from dy, x, z, rstd, w. Bytes: read dy, x, z, rstd,
             w, write dx, dz, dw.
- qk_fwd / qk_bwd: RMSNorm of [tokens x heads, head_dim] rows with one
             weight (QK-norm), as bench/bench.py's rms_fwd / rms_bwd.
- rms_quant / ln_quant: the norm's y quantized to FP8 e4m3 per row (q and
             the row's scale). Bytes: read x and the parameters, write q
             (1 byte an element) and the scales.
- add_rms_quant: the same after the residual add, h returned too. Bytes:
             read x, residual, w, write h, q and the scales.
- rms_quant_g128 / ln_quant_g128 / add_rms_quant_g128: the same with a
             scale per group of 128 columns (DeepSeek-V3's 1 x 128
             activation scales): 4 bytes per 128 elements of scales.
- gated_grouped_fwd / gated_grouped_bwd: the gated RMSNorm over 8 groups of
             the row (Mamba2's ngroups = 8): bytes as gated_fwd /
             gated_bwd, with 8 statistics a row.
The anchors are the same formulas in PyTorch (compiled: what Inductor
builds for them). Timing as bench/bench.py. --variants times the same
bundles from other directories (built with other compiler options) in the
same calls, each printed as its ratio to DIR's: how a codegen or tuning
change is decided for these ops (bench/ab.py's for the plain norms).
"""

import argparse
import datetime
import json
import os
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir.launcher import Launcher  # noqa: E402
from bench import (EPS, TIMERS, compiled, forward_inputs, geomean,  # noqa: E402
                   parse_shapes, start_run, tbps)

OPS = ["l2_fwd", "l2_bwd", "gated_fwd", "gated_bwd", "qk_fwd", "qk_bwd", "rms_quant",
       "ln_quant", "add_rms_quant", "rms_quant_g128", "ln_quant_g128", "add_rms_quant_g128",
       "gated_grouped_fwd", "gated_grouped_bwd"]
# Ops timed at the head rows only, and at the hidden sizes only.
HEAD_OPS = ("qk_fwd", "qk_bwd")
QUANT_OPS = ("rms_quant", "ln_quant", "add_rms_quant")
GROUP_QUANT_OPS = ("rms_quant_g128", "ln_quant_g128", "add_rms_quant_g128")
GROUPED_GATED_OPS = ("gated_grouped_fwd", "gated_grouped_bwd")
GROUP = 128     # columns a scale of the group-quantized forwards
GATE_GROUPS = 8  # groups of the grouped gated norm
# tokens x heads rows of head_dim 64, 128 and 256 (8192-32768 tokens of
# 8-32 heads), a ragged head_dim, and two hidden sizes of gated norms.
SHAPES = {"heads": [(262144, 64), (65536, 128), (262144, 128), (1048576, 128),
                    (131072, 256), (200000, 100), (8192, 4096), (16384, 1024)],
          # FP8 quantization of hidden states: tokens x hidden size.
          "hidden": [(16384, 1024), (8192, 4096), (4096, 8192), (1024, 16384),
                     (512, 32768), (32, 4096)],
          # The group-scaled FP8 forwards and the grouped gated norms.
          "groups": [(16384, 1024), (8192, 4096), (4096, 7168), (4096, 8192), (1024, 16384),
                     (32, 7168), (16384, 2048), (32768, 4096)]}
# The N each of those ops has bundles for (scripts/build-bundles.py).
GROUP_QUANT_N = (1024, 4096, 7168, 8192, 16384)
GROUPED_GATED_N = (2048, 4096, 8192)


def min_bytes(op, m, n, e=2, w=2):
    """Bytes a call must move (see the module's docstring)."""
    grouped = op in GROUPED_GATED_OPS
    if op in QUANT_OPS + GROUP_QUANT_OPS:
        base = op.removesuffix("_g128")
        full = {"rms_quant": e + 1, "ln_quant": e + 1, "add_rms_quant": 3 * e + 1}[base]
        scales = 4 * m * (n // GROUP if op in GROUP_QUANT_OPS else 1)
        return full * m * n + (2 if base == "ln_quant" else 1) * n * w + scales
    op = {"gated_grouped_fwd": "gated_fwd", "gated_grouped_bwd": "gated_bwd"}.get(op, op)
    full = {"l2_fwd": 2, "l2_bwd": 3, "gated_fwd": 3, "gated_bwd": 5,
            "qk_fwd": 2, "qk_bwd": 3}[op]
    params = {"gated_fwd": 1, "gated_bwd": 2, "qk_fwd": 1, "qk_bwd": 2}.get(op, 0)
    stats = 4 * m * (GATE_GROUPS if grouped else 1) if op.endswith("bwd") else 0
    return full * m * n * e + params * n * w + stats


def l2_fwd(x):
    xf = x.float()
    return (xf * torch.rsqrt(xf.square().sum(-1, keepdim=True) + EPS)).to(x.dtype)


def l2_bwd(dy, x, rstd):
    y = x.float() * rstd[:, None]
    g = dy.float()
    return (rstd[:, None] * (g - y * (g * y).sum(-1, keepdim=True))).to(x.dtype)


def gated_fwd(x, z, w):
    n = F.rms_norm(x.float(), (x.shape[-1],), eps=EPS)
    return (n * w.float() * F.silu(z.float())).to(x.dtype)


def gated_bwd(dy, x, z, rstd, w):
    zf = z.float()
    s = torch.sigmoid(zf)
    xn = x.float() * rstd[:, None]
    g = dy.float() * w.float() * (zf * s)
    c = (g * xn).mean(-1, keepdim=True)
    dx = (rstd[:, None] * (g - xn * c)).to(x.dtype)
    dz = (dy.float() * xn * w.float() * s * (1 + zf * (1 - s))).to(x.dtype)
    dw = (dy.float() * xn * zf * s).sum(0).to(w.dtype)
    return dx, dz, dw


def qk_fwd(x, w):
    return F.rms_norm(x, (x.shape[-1],), w, EPS)


def qk_bwd(dy, x, rstd, w):
    xhat = x.float() * rstd[:, None]
    g = dy.float() * w.float()
    c = (g * xhat).mean(-1, keepdim=True)
    return (rstd[:, None] * (g - xhat * c)).to(x.dtype), (dy.float() * xhat).sum(0).to(w.dtype)


def quantize(y):
    scale = (y.abs().amax(-1) / 448.0).clamp_min(1e-12)
    return (y / scale[:, None]).clamp(-448.0, 448.0).to(torch.float8_e4m3fn), scale


def quantize_groups(y):
    """quantize with a scale per group of GROUP columns."""
    g = y.unflatten(-1, (y.shape[-1] // GROUP, GROUP))
    scale = (g.abs().amax(-1) / 448.0).clamp_min(1e-12)
    q = (g / scale[..., None]).clamp(-448.0, 448.0).flatten(-2).to(torch.float8_e4m3fn)
    return q, scale


def rms_quant_g128(x, w):
    return quantize_groups(F.rms_norm(x.float(), (x.shape[-1],), w.float(), EPS))


def ln_quant_g128(x, w, b):
    return quantize_groups(F.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), EPS))


def add_rms_quant_g128(x, r, w):
    h = x + r
    q, scale = rms_quant_g128(h, w)
    return q, h, scale


def _groups(t):
    return t.unflatten(-1, (GATE_GROUPS, t.shape[-1] // GATE_GROUPS))


def gated_grouped_fwd(x, z, w):
    xg = _groups(x.float())
    n = (xg * torch.rsqrt(xg.square().mean(-1, keepdim=True) + EPS)).flatten(-2)
    return (n * w.float() * F.silu(z.float())).to(x.dtype)


def gated_grouped_bwd(dy, x, z, rstd, w):
    """gated_bwd with each group's statistics (rstd: M x groups)."""
    zf = z.float()
    s = torch.sigmoid(zf)
    r = rstd[..., None]
    xn = (_groups(x.float()) * r).flatten(-2)
    g = dy.float() * w.float() * (zf * s)
    c = (_groups(g * xn)).mean(-1, keepdim=True)
    dx = (r * (_groups(g) - _groups(xn) * c)).flatten(-2).to(x.dtype)
    dz = (dy.float() * xn * w.float() * s * (1 + zf * (1 - s))).to(x.dtype)
    dw = (dy.float() * xn * zf * s).sum(0).to(w.dtype)
    return dx, dz, dw


def rms_quant(x, w):
    return quantize(F.rms_norm(x.float(), (x.shape[-1],), w.float(), EPS))


def ln_quant(x, w, b):
    return quantize(F.layer_norm(x.float(), (x.shape[-1],), w.float(), b.float(), EPS))


def add_rms_quant(x, r, w):
    h = x + r
    q, scale = rms_quant(h, w)
    return q, h, scale


# The bundle (scripts/build-bundles.py --family) each op runs, by N.
BUNDLES = {"l2_fwd": "l2_fwd_bf16_{}_infer", "l2_bwd": "l2_bwd_bf16_{}",
           "gated_fwd": "gated_fwd_bf16_{}_infer", "gated_bwd": "gated_bwd_bf16_{}",
           "qk_fwd": "rms_fwd_bf16_{}_infer", "qk_bwd": "rms_bwd_bf16_{}",
           "rms_quant": "rms_fwd_bf16_{}_quant", "ln_quant": "ln_fwd_bf16_{}_quant",
           "add_rms_quant": "rms_fwd_bf16_{}_add_quant",
           "rms_quant_g128": "rms_fwd_bf16_{}_quant_g128",
           "ln_quant_g128": "ln_fwd_bf16_{}_quant_g128",
           "add_rms_quant_g128": "rms_fwd_bf16_{}_add_quant_g128",
           "gated_grouped_fwd": "gated_fwd_bf16_{}_infer_g8",
           "gated_grouped_bwd": "gated_bwd_bf16_{}_g8"}


def bundle_name(op, n):
    """The bundle `op` runs at row width `n`."""
    return BUNDLES[op].format(n)


def runs_at(op, n):
    """Whether the benchmark times `op` at row width `n` (the head-row ops
    at head_dim, the FP8 and grouped ops at their hidden sizes)."""
    if op in HEAD_OPS:
        return n in (64, 128, 256)
    if op in QUANT_OPS:
        return n in (128, 1024, 4096, 8192, 16384, 32768)
    if op in GROUP_QUANT_OPS:
        return n in GROUP_QUANT_N
    if op in GROUPED_GATED_OPS:
        return n in GROUPED_GATED_N
    return True


def implementations(op, m, n, bundles, variants=()):
    """norm's bundle, eager and torch.compile of `op` at M x N on shared
    bf16 inputs, and the same bundle from each directory of `variants`
    (keyed by the directory)."""
    x, w, b = forward_inputs(m, n)
    z, dy = torch.randn_like(x), torch.randn_like(x)
    xf = x.float()
    rstd_l2 = torch.rsqrt(xf.square().sum(-1) + EPS)
    rstd_rms = torch.rsqrt(xf.square().mean(-1) + EPS)
    rstd_groups = (torch.rsqrt(_groups(xf).square().mean(-1) + EPS)
                   if op in GROUPED_GATED_OPS else None)
    ours = Launcher(load_bundle(os.path.join(bundles, bundle_name(op, n))))
    fn, args = {"l2_fwd": (l2_fwd, (x,)), "l2_bwd": (l2_bwd, (dy, x, rstd_l2)),
                "gated_fwd": (gated_fwd, (x, z, w)),
                "gated_bwd": (gated_bwd, (dy, x, z, rstd_rms, w)),
                "qk_fwd": (qk_fwd, (x, w)), "qk_bwd": (qk_bwd, (dy, x, rstd_rms, w)),
                "rms_quant": (rms_quant, (x, w)), "ln_quant": (ln_quant, (x, w, b)),
                "add_rms_quant": (add_rms_quant, (x, z, w)),
                "rms_quant_g128": (rms_quant_g128, (x, w)),
                "ln_quant_g128": (ln_quant_g128, (x, w, b)),
                "add_rms_quant_g128": (add_rms_quant_g128, (x, z, w)),
                "gated_grouped_fwd": (gated_grouped_fwd, (x, z, w)),
                "gated_grouped_bwd": (gated_grouped_bwd, (dy, x, z, rstd_groups, w))}[op]
    f = compiled(f"{op}{m}x{n}", fn)
    impls = {"norm": lambda: ours(None, *args), "eager": lambda: fn(*args),
             "compile": lambda: f(*args)}
    for d in variants:
        other = Launcher(load_bundle(os.path.join(d, bundle_name(op, n))))
        impls[d] = lambda other=other: other(None, *args)
    return impls


def check(op, impls):
    """norm's results against the eager formulas (bf16 tolerance)."""
    ours, ref = impls["norm"](), impls["eager"]()
    ours = ours if isinstance(ours, (list, tuple)) else [ours]
    ref = ref if isinstance(ref, (list, tuple)) else [ref]
    for a, b in zip(ours, ref):
        # FP8 values: within a step of e4m3 (3 mantissa bits) of eager's.
        tol = 7e-2 if a.dtype == torch.float8_e4m3fn else 2e-2
        err = ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30)).item()
        if not err < tol:
            raise RuntimeError(f"{op}: norm's result differs from eager's (relative {err:.2e})")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "family"))
    p.add_argument("--out", default=os.environ.get("OUT", os.path.join(ROOT, ".out")))
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--shapes", default="heads",
                   help="MxN,MxN,... or 'heads' (tokens x heads rows of head_dim) or "
                        "'hidden' (tokens x hidden size; the FP8 outputs run at these) or "
                        "'groups' (the group-scaled FP8 and grouped gated norms)")
    p.add_argument("--timing", default="graph,kernels")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--variants", default="",
                   help="comma-separated bundle directories timed beside --bundles' "
                        "(ratios to its kernels)")
    args = p.parse_args()
    variants = [d for d in args.variants.split(",") if d]
    shapes = SHAPES[args.shapes] if args.shapes in SHAPES else parse_shapes(args.shapes)
    methods = [m for m in args.timing.split(",") if m]
    if any(m not in TIMERS for m in methods) or not methods:
        p.error(f"--timing: choose from {sorted(TIMERS)}")
    ops = [o for o in args.ops.split(",") if o]
    if any(o not in OPS for o in ops):
        p.error(f"--ops: choose from {OPS}")
    ceilings = start_run(methods)
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "timing": methods, "rounds": args.rounds, "dtype": "bf16", "eps": EPS,
               "ceilings_tbps": {m: c / 1e12 for m, c in ceilings.items()}, "ops": {}}
    for op in ops:
        rows = []
        for m, n in shapes:
            if not runs_at(op, n):
                continue
            impls = implementations(op, m, n, args.bundles, variants)
            check(op, impls)
            for d in variants:
                check(op, {"norm": impls[d], "eager": impls["eager"]})
            nbytes = min_bytes(op, m, n)
            row = {"m": m, "n": n, "bytes": nbytes}
            for method in methods:
                row[method] = tbps(impls, nbytes, method, args.rounds)
            rows.append(row)
        results["ops"][op] = {"rows": rows, "geomean": {}}
        for method in methods:
            print(f"\n{op} bf16 [{method}]: TB/s (ratio to copy ceiling), norm/torch.compile",
                  flush=True)
            print(f"{'shape':>14} {'norm':>14} {'eager':>7} {'compile':>8} {'vs compile':>10}")
            for r in rows:
                t = r[method]
                print(f"{r['m']:>7}x{r['n']:<6} {t['norm']:6.2f} "
                      f"({t['norm'] * 1e12 / ceilings[method]:4.0%}) {t['eager']:7.2f} "
                      f"{t['compile']:8.2f} {t['norm'] / t['compile']:10.2f}", flush=True)
            g = {k: geomean([r[method][k] for r in rows]) for k in ("norm", "eager", "compile")}
            print(f"{'geomean':>14} {g['norm']:6.2f} ({g['norm'] * 1e12 / ceilings[method]:4.0%})"
                  f" {g['eager']:7.2f} {g['compile']:8.2f} {g['norm'] / g['compile']:10.2f}",
                  flush=True)
            results["ops"][op]["geomean"][method] = g
            if variants:
                print(f"{'variant':>14} " + " ".join(f"{os.path.basename(d):>12}"
                                                     for d in variants) + "  (x norm)")
                for r in rows:
                    t = r[method]
                    print(f"{r['m']:>7}x{r['n']:<6} " + " ".join(
                        f"{t[d] / t['norm']:12.3f}" for d in variants), flush=True)
                print(f"{'geomean':>14} " + " ".join(
                    f"{geomean([r[method][d] for r in rows]) / g['norm']:12.3f}"
                    for d in variants), flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "family.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten: {path}")


if __name__ == "__main__":
    main()
