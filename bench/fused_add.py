#!/usr/bin/env python3
"""The pre-norm residual add fused with the norm, against torch.compile of
the same Python, eager PyTorch and, for RMSNorm where liger_kernel imports,
Liger's fused_add_rms_norm (bench/liger_anchors.py), in one run: TB/s of the
bytes each call must move, its ratio to the device-to-device copy ceiling,
and norm over torch.compile (and Liger), per shape and as geomeans.

  bench/fused_add.py --bundles DIR [--shapes public] [--timing graph,kernels]
                     [--rounds 3] [--out DIR]

DIR holds scripts/build-bundles.py --bench-only's <op>_bf16_<N>_add and
<op>_bf16_<N>_add_infer bundles. The calls:
- rms_fwd / ln_fwd: h = x + residual, y = norm(h); returns y and h (the next
  block's residual). "norm" is the inference forward (no statistics, as
  the anchors under no_grad), "+stats" the training forward that also
  saves mean/rstd. Bytes: read x, residual and the parameters, write y, h.
- rms_bwd / ln_bwd: the gradient of x and residual, the norm's gradient at
  h plus h's own gradient dh (summed in f32, rounded once), and dW (dB).
  The anchors are the same formulas in PyTorch (compiled: what Inductor
  builds for that backward). Bytes: read dy, dh, h, the statistics and the
  weight, write dx, dW (dB).
Timing as bench/bench.py (timing.py): graph replays with events, or the
summed kernel device time; each implementation timed in every position
over --rounds (bench.timing_order).
"""

import argparse
import datetime
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir.launcher import Launcher  # noqa: E402
from bench import (EPS, SHAPE_SETS, TIMERS, compiled, forward_inputs, geomean,  # noqa: E402
                   parse_shapes, start_run, tbps, timing_order)
import liger_anchors as liger  # noqa: E402

OPS = ["rms_fwd", "ln_fwd", "rms_bwd", "ln_bwd"]


def min_bytes(op, m, n, e=2, w=2):
    """Bytes a call must move: four M x N tensors (two read, two written:
    x, residual -> y, h; dy, dh, h -> dx), the parameters (read; a backward
    writes dW and dB too) and a backward's statistics."""
    params = 1 if op.startswith("rms") else 2
    full = 4 * m * n * e
    if op.endswith("fwd"):
        return full + params * n * w
    return full + 2 * params * n * w + params * m * 4


def add_rms_fwd(x, r, w):
    h = x + r
    return F.rms_norm(h, (x.shape[-1],), w, EPS), h


def add_ln_fwd(x, r, w, b):
    h = x + r
    return F.layer_norm(h, (x.shape[-1],), w, b, EPS), h


def add_rms_bwd(dy, dh, h, rstd, w):
    xhat = h.float() * rstd[:, None]
    g = dy.float() * w.float()
    c = (g * xhat).mean(-1, keepdim=True)
    dx = (rstd[:, None] * (g - xhat * c) + dh.float()).to(h.dtype)
    dw = (dy.float() * xhat).sum(0).to(w.dtype)
    return dx, dw


def add_ln_bwd(dy, dh, h, mean, rstd, w):
    xhat = (h.float() - mean[:, None]) * rstd[:, None]
    g = dy.float() * w.float()
    a = g.mean(-1, keepdim=True)
    c = (g * xhat).mean(-1, keepdim=True)
    dx = (rstd[:, None] * (g - a - xhat * c) + dh.float()).to(h.dtype)
    dw = (dy.float() * xhat).sum(0).to(w.dtype)
    db = dy.float().sum(0).to(w.dtype)
    return dx, dw, db


def implementations(op, m, n, bundles, anchors=True):
    """Callables of `op` at M x N on shared bf16 inputs: norm's bundles,
    torch eager and torch.compile of the same Python, and for RMSNorm
    Liger's fused_add_rms_norm where it runs and takes the shape (rows of
    at most 65536; bench/liger_anchors.py) (without `anchors`, norm's
    alone)."""
    x, w, b = forward_inputs(m, n)
    r = torch.randn_like(x)
    dy, dh = torch.randn_like(x), torch.randn_like(x)
    h = x + r
    hf = h.float()
    mean = hf.mean(-1)
    rstd_ln = torch.rsqrt(hf.var(-1, unbiased=False) + EPS)
    rstd_rms = torch.rsqrt(hf.pow(2).mean(-1) + EPS)
    path = os.path.join(bundles, f"{op}_bf16_{n}_add")
    ours = Launcher(load_bundle(path))
    if not anchors:
        if op.endswith("fwd"):
            infer = Launcher(load_bundle(path + "_infer"))
            args = (x, r, w) if op == "rms_fwd" else (x, r, w, b)
            return {"norm": lambda: infer(None, *args)}
        args = ((dy, dh, h, rstd_rms, w) if op == "rms_bwd"
                else (dy, dh, h, mean, rstd_ln, w))
        return {"norm": lambda: ours(None, *args)}
    def with_liger(impls, factory):
        anchor = liger.set_up(factory)
        return impls | {"liger": anchor} if anchor else impls

    if op == "rms_fwd":
        infer = Launcher(load_bundle(path + "_infer"))
        f = compiled(f"add_rms_fwd{m}x{n}", add_rms_fwd)
        return with_liger({"norm": lambda: infer(None, x, r, w),
                           "norm_stats": lambda: ours(None, x, r, w),
                           "eager": lambda: add_rms_fwd(x, r, w), "compile": lambda: f(x, r, w)},
                          lambda: liger.add_rms_fwd(x, r, w, EPS))
    if op == "ln_fwd":
        infer = Launcher(load_bundle(path + "_infer"))
        f = compiled(f"add_ln_fwd{m}x{n}", add_ln_fwd)
        return {"norm": lambda: infer(None, x, r, w, b),
                "norm_stats": lambda: ours(None, x, r, w, b),
                "eager": lambda: add_ln_fwd(x, r, w, b), "compile": lambda: f(x, r, w, b)}
    if op == "rms_bwd":
        f = compiled(f"add_rms_bwd{m}x{n}", add_rms_bwd)
        return with_liger({"norm": lambda: ours(None, dy, dh, h, rstd_rms, w),
                           "eager": lambda: add_rms_bwd(dy, dh, h, rstd_rms, w),
                           "compile": lambda: f(dy, dh, h, rstd_rms, w)},
                          lambda: liger.add_rms_bwd(dy, dh, h, rstd_rms, w, EPS))
    f = compiled(f"add_ln_bwd{m}x{n}", add_ln_bwd)
    return {"norm": lambda: ours(None, dy, dh, h, mean, rstd_ln, w),
            "eager": lambda: add_ln_bwd(dy, dh, h, mean, rstd_ln, w),
            "compile": lambda: f(dy, dh, h, mean, rstd_ln, w)}


def check(op, impls):
    """norm's results against the eager formulas (bf16 tolerance): a fast
    wrong kernel is no result."""
    ours, ref = impls["norm"](), impls["eager"]()
    ours = ours if isinstance(ours, (list, tuple)) else [ours]
    for a, b in zip(ours, ref):
        err = ((a.float() - b.float()).norm() / b.float().norm().clamp_min(1e-30)).item()
        if not err < 2e-2:
            raise RuntimeError(f"{op}: norm's result differs from eager's (relative {err:.2e})")


def ab(args, shapes, methods, ops):
    """--variants: norm's kernels from each bundle directory, per shape, the
    TB/s of each and its ratio to the first directory's."""
    dirs = [d for d in args.variants.split(",") if d]
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "timing": methods, "rounds": args.rounds, "variants": dirs, "ops": {}}
    print(f"device: {torch.cuda.get_device_name()}  variants: {', '.join(dirs)}", flush=True)
    for method in methods:
        for op in ops:
            print(f"\nfused add + {op} [{method}]: TB/s per variant (ratio to the first)")
            ratios = {d: [] for d in dirs}
            for m, n in shapes:
                calls = {d: implementations(op, m, n, d, anchors=False)["norm"] for d in dirs}
                nbytes = min_bytes(op, m, n)
                seconds = {d: [] for d in dirs}
                for d in timing_order(dirs, args.rounds):
                    seconds[d].append(TIMERS[method](calls[d]))
                rates = {d: nbytes / statistics.median(t) / 1e12 for d, t in seconds.items()}
                for d in dirs:
                    ratios[d].append(rates[d] / rates[dirs[0]])
                print(f"{m:>6}x{n:<7} " + " ".join(f"{rates[d]:6.2f} ({rates[d] / rates[dirs[0]]:.2f})"
                                                   for d in dirs), flush=True)
                results["ops"].setdefault(op, []).append({"m": m, "n": n, method: rates})
            print(f"{'geomean ratio':>14} " + " ".join(f"{geomean(ratios[d]):13.3f}" for d in dirs))
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "fused-add-ab.json"), "w") as f:
        json.dump(results, f, indent=1)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--out", default=os.environ.get("OUT", os.path.join(ROOT, ".out")))
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--shapes", default="public",
                   help="MxN,MxN,... or a named set: " + ", ".join(sorted(SHAPE_SETS)))
    p.add_argument("--timing", default="graph,kernels")
    p.add_argument("--rounds", type=int, default=1)
    p.add_argument("--variants", default="",
                   help="comma-separated bundle directories built with different compiler "
                        "options: times norm's kernels from each (no anchors) and prints "
                        "each against the first (an A/B, as bench/ab.py for the plain ops)")
    args = p.parse_args()
    shapes = parse_shapes(args.shapes)
    methods = [m for m in args.timing.split(",") if m]
    if any(m not in TIMERS for m in methods) or not methods:
        p.error(f"--timing: choose from {sorted(TIMERS)}")
    ops = [o for o in args.ops.split(",") if o]
    if any(o not in OPS for o in ops):
        p.error(f"--ops: choose from {OPS}")
    if args.variants:
        return ab(args, shapes, methods, ops)
    ceilings = start_run(methods)
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "timing": methods, "rounds": args.rounds, "dtype": "bf16", "eps": EPS,
               "ceilings_tbps": {m: c / 1e12 for m, c in ceilings.items()}, "ops": {}}
    for op in ops:
        rows = []
        for m, n in shapes:
            impls = implementations(op, m, n, args.bundles)
            check(op, impls)
            nbytes = min_bytes(op, m, n)
            row = {"m": m, "n": n, "bytes": nbytes}
            for method in methods:
                row[method] = tbps(impls, nbytes, method, args.rounds)
            rows.append(row)
        results["ops"][op] = {"rows": rows, "geomean": {}}
        for method in methods:
            stats = op.endswith("fwd")
            # Liger's column where its kernels ran at some shape (nan where
            # it refused one).
            lig = any("liger" in r[method] for r in rows)
            nan = float("nan")
            print(f"\nfused add + {op} bf16 [{method}]: TB/s (ratio to copy ceiling), "
                  "norm/torch.compile" + (" and norm/Liger" if lig else "")
                  + ("; norm is the inference forward, +stats the "
                     "training forward" if stats else ""), flush=True)
            print(f"{'shape':>14} {'norm':>14}" + (f" {'+stats':>7}" if stats else "")
                  + f" {'eager':>7} {'compile':>8} {'vs compile':>10}"
                  + (f" {'liger':>7} {'vs liger':>8}" if lig else ""))
            for r in rows:
                t = r[method]
                print(f"{r['m']:>6}x{r['n']:<7} {t['norm']:6.2f} "
                      f"({t['norm'] * 1e12 / ceilings[method]:4.0%})"
                      + (f" {t['norm_stats']:7.2f}" if stats else "")
                      + f" {t['eager']:7.2f} {t['compile']:8.2f} {t['norm'] / t['compile']:10.2f}"
                      + (f" {t.get('liger', nan):7.2f} {t['norm'] / t.get('liger', nan):8.2f}"
                         if lig else ""),
                      flush=True)
            g = {k: geomean([r[method].get(k) for r in rows])
                 for k in ("norm", "norm_stats", "eager", "compile", "liger")
                 if any(k in r[method] for r in rows)}
            print(f"{'geomean':>14} {g['norm']:6.2f} ({g['norm'] * 1e12 / ceilings[method]:4.0%})"
                  + (f" {g['norm_stats']:7.2f}" if stats else "")
                  + f" {g['eager']:7.2f} {g['compile']:8.2f} {g['norm'] / g['compile']:10.2f}"
                  + (f" {g['liger']:7.2f} {g['norm'] / g['liger']:8.2f}" if lig else ""),
                  flush=True)
            results["ops"][op]["geomean"][method] = g
    if not liger.available():
        results["liger"] = liger.MISSING
        print(f"\nno Liger column: {liger.MISSING}")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "fused-add.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"\nwritten: {path}")


if __name__ == "__main__":
    main()
