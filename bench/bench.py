#!/usr/bin/env python3
"""Benchmark: norm kernels beside PyTorch eager, torch.compile and, where
liger_kernel imports (bench/liger_anchors.py says how to carry it to the GPU
machine), Liger's Triton kernels, on one GPU.

For RMSNorm and LayerNorm, forward and backward, bf16 (--dtype: f16 or f32
too, anchors and copy@size in the same dtype), over the public shape set of
../shared/PERF.md: measures the device-to-device copy ceiling, then
each implementation's time, and prints achieved TB/s (minimum bytes / time),
the ratio to the ceiling and to torch.compile, per shape and as geomeans,
and beside them copy@size: the elementwise kernel moving the same traffic
at the same M x N (--no-sized-copy skips it).
Writes JSON (and a PNG plot when matplotlib is there) to --out.

Timing (bench/timing.py), both by default (--timing), anchors, ceiling and
copy@size each measured the same way as the implementations:
- graph: every implementation is captured once in a CUDA graph and the
  graph replays are timed with CUDA events (median, L2 flushed before each
  replay, persisting lines reset first: timing.py), so host dispatch gaps are
  excluded for all alike; a call that launches several kernels is timed as
  their sum plus the gaps between them inside the graph.
- kernels: ../shared/PERF.md's method, the summed device time of the
  kernels a call launches (torch.profiler over replays of the same graph,
  each after an L2 flush; median), which leaves out the gaps between them.
Per shape the implementations are timed one after another, norm first;
--reverse and --rounds (each timed in every position and after each
other implementation, median) check that the order does not decide the
result (timing_order).
"""

import argparse
import functools
import glob
import datetime
import json
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir.bundle import DTYPE_BYTES  # noqa: E402
from norm_mlir.launcher import Launcher, _torch_dtype  # noqa: E402
from timing import launch_configs, time_graph, time_kernels  # noqa: E402,F401  (ab.py, autotune.py)
import liger_anchors as liger  # noqa: E402

TIMERS = {"graph": time_graph, "kernels": time_kernels}

SHAPES = [(32768, 1024), (32768, 2048), (16384, 4096), (65536, 4096), (16384, 5120),
          (4097, 7168), (8192, 8192), (4096, 16384), (2048, 32768), (1024, 65536),
          (512, 131072)]
# Named sets for --shapes: the public set, the shapes outside it that the
# issue asks about (large M with short rows, N not a power of two, long
# ragged rows), short M (decode-like batches, M = 1-4096) and common
# models' hidden sizes.
SHAPE_SETS = {
    "public": SHAPES,
    "extra": [(16384, 1024), (65536, 1024), (131072, 1024), (100000, 1000),
              (65536, 2048), (16384, 4097), (4096, 8192), (9362, 7168),
              (2048, 40000), (4096, 32771), (300, 131072)],
    "short-m": [(1, 4096), (16, 4096), (128, 4096), (512, 4096), (2048, 4096),
                (64, 1024), (512, 1024), (4096, 1024), (4096, 1000), (100000, 1000),
                (16384, 1024), (256, 8192), (1024, 8192)],
    # Common models' hidden sizes (scripts/build-bundles.py MODEL_N) at
    # training batches of 8-32M elements and at decode-like short M.
    "llm": [(16384, 768), (8192, 1536), (8192, 2560), (8192, 3072), (4096, 6144),
            (2048, 12288), (1, 3072), (64, 3072), (512, 3072), (256, 6144),
            (32, 12288)],
    # The shortest rows the forwards stream (scripts/build-bundles.py's
    # SHORT_STREAMED_N), where the backwards and some forwards were behind
    # torch.compile.
    "short-n": [(1, 256), (4096, 256), (16384, 256), (65536, 256), (4096, 640),
                (16384, 640), (65536, 640)],
}
EPS = 1e-6


def parse_shapes(text):
    """The shapes --shapes names: a set of SHAPE_SETS, or MxN,MxN,...
    (empty: the public set). ValueError on anything else."""
    if not text:
        return SHAPES
    if text in SHAPE_SETS:
        return SHAPE_SETS[text]
    shapes = []
    for item in text.split(","):
        parts = item.strip().split("x")
        if len(parts) != 2 or not all(v.isdigit() and int(v) > 0 for v in parts):
            raise ValueError(f"bad shape {item!r}: expected MxN with positive M and N, "
                             f"or one of {sorted(SHAPE_SETS)}")
        shapes.append((int(parts[0]), int(parts[1])))
    return shapes


OPS = ("rms_fwd", "ln_fwd", "rms_bwd", "ln_bwd")


def parse_case(text):
    """One op at one shape, "op:MxN" (op one of OPS), as (op, m, n), for the
    probes' arguments; argparse.ArgumentTypeError on anything else."""
    op, sep, shape = text.partition(":")
    try:
        shapes = parse_shapes(shape) if sep and shape else []
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if op not in OPS or len(shapes) != 1:
        raise argparse.ArgumentTypeError(
            f"bad case {text!r}: expected op:MxN with op one of {', '.join(OPS)}")
    return (op, *shapes[0])


def min_bytes(op, m, n, e=2, w=2):
    return {"rms_fwd": m * n * 2 * e + n * w + 4 * m,
            "ln_fwd": m * n * 2 * e + 2 * n * w + 8 * m,
            "rms_bwd": m * n * 3 * e + 4 * m + 2 * n * w,
            "ln_bwd": m * n * 3 * e + 8 * m + 3 * n * w}[op]



def copy_ceiling(timer=time_graph):
    """Device-to-device copy bandwidth (read + write) of 2 GiB: the best of
    cudaMemcpy and an elementwise copy kernel, after a warm-up that brings
    the clocks up, each timed by `timer`."""
    n = 1 << 30  # 2 GiB of bf16
    a = torch.empty(n, dtype=torch.bfloat16, device="cuda").normal_()
    b = torch.empty_like(a)
    for _ in range(50):
        b.copy_(a)
    t_memcpy = timer(lambda: b.copy_(a))
    t_kernel = timer(lambda: torch.mul(a, 1, out=b))
    del a, b
    return 2 * n * 2 / min(t_memcpy, t_kernel)


def sized_copy(op, m, n, method="graph", dtype="bf16"):
    """Bandwidth (TB/s) of the elementwise kernel that moves what `op` must
    move at M x N, timed like the implementations (CUDA graph, L2 flushed):
    a copy (read x, write y) for a forward, an add (read x and dy, write dx)
    for a backward. A kernel of 64-512 MB does not reach the 2 GiB copy
    ceiling (costs fixed per launch weigh more: presumably the ramp and
    tail, and the dirty lines the L2 flush leaves to write back), so this
    is what the same traffic attains at this size."""
    return _sized_copy(3 if op.endswith("bwd") else 2, m, n, method, dtype)


@functools.lru_cache(maxsize=None)
def _sized_copy(operands, m, n, method, dtype):
    """sized_copy for `operands` M x N tensors of `dtype` (2: copy, 3: add), timed
    once per shape and method: RMSNorm and LayerNorm of one direction move
    the same."""
    timer = TIMERS[method]
    a = torch.randn(m, n, device="cuda", dtype=_torch_dtype(dtype))
    c = torch.empty_like(a)
    if operands == 2:
        t = min(timer(lambda: c.copy_(a)), timer(lambda: torch.mul(a, 1, out=c)))
    else:
        b = torch.randn_like(a)
        t = timer(lambda: torch.add(a, b, out=c))
    return operands * m * n * a.element_size() / t / 1e12


# ---- anchors ---------------------------------------------------------------

def rms_bwd_math(dy, x, rstd, w):
    xhat = x.float() * rstd[:, None]
    g = dy.float() * w.float()
    c = (g * xhat).mean(-1, keepdim=True)
    dx = (rstd[:, None] * (g - xhat * c)).to(x.dtype)
    dw = (dy.float() * xhat).sum(0).to(w.dtype)
    return dx, dw


def ln_bwd_math(dy, x, mean, rstd, w):
    xhat = (x.float() - mean[:, None]) * rstd[:, None]
    g = dy.float() * w.float()
    a = g.mean(-1, keepdim=True)
    c = (g * xhat).mean(-1, keepdim=True)
    dx = (rstd[:, None] * (g - a - xhat * c)).to(x.dtype)
    dw = (dy.float() * xhat).sum(0).to(w.dtype)
    db = dy.float().sum(0).to(w.dtype)
    return dx, dw, db


def rms_bwd_eager(dy, x, rstd, w):
    fused = getattr(torch.ops.aten, "_fused_rms_norm_backward", None)
    if fused is not None:
        return fused(dy, x, [x.shape[-1]], rstd[:, None], w, [True, True])
    return rms_bwd_math(dy, x, rstd, w)


def ln_bwd_eager(dy, x, mean, rstd, w, b):
    return torch.ops.aten.native_layer_norm_backward(
        dy, x, [x.shape[-1]], mean[:, None], rstd[:, None], w, b, [True, True, True])


COMPILED = {}


def compiled(name, fn):
    if name not in COMPILED:
        COMPILED[name] = torch.compile(fn, dynamic=False)
    return COMPILED[name]


def forward_inputs(m, n, dtype="bf16"):
    """x (M x N), weight and bias (N) of a timed call in `dtype` (a bundle
    dtype name: bf16, f16, f32), the weight near 1."""
    dt = _torch_dtype(dtype)
    x = torch.randn(m, n, device="cuda", dtype=dt)
    w = (1 + 0.1 * torch.randn(n, device="cuda")).to(dt)
    b = (0.1 * torch.randn(n, device="cuda")).to(dt)
    return x, w, b


def implementations(op, m, n, bundles, dtype="bf16"):
    """Callables timing `op` at M x N: norm's (the bundle `<op>_<dtype>_<N>`
    under `bundles`; for forwards "norm" is the inference forward and
    "norm_stats" the one saving the statistics), torch eager,
    torch.compile and, where liger_kernel imports, Liger's kernels
    (bench/liger_anchors.py), all on the same inputs of `dtype` (a bundle
    dtype name)."""
    x, w, b = forward_inputs(m, n, dtype)
    dy = torch.randn(m, n, device="cuda", dtype=_torch_dtype(dtype))
    xf = x.float()
    mean = xf.mean(-1)
    rstd_ln = torch.rsqrt(xf.var(-1, unbiased=False) + EPS)
    rstd_rms = torch.rsqrt(xf.pow(2).mean(-1) + EPS)
    path = os.path.join(bundles, f"{op}_{dtype}_{n}")

    def with_liger(impls, anchor):
        return impls | {"liger": liger.guarded(anchor)} if liger.available() else impls

    if op in ("rms_fwd", "ln_fwd"):
        # The anchors run the inference forward (no autograd, so no saved
        # statistics); "norm" is ours in the same mode (the _infer bundle,
        # which stores no mean or rstd) and "norm_stats" the forward that
        # saves them for a backward. With one of the two bundles, "norm" is
        # the one there is.
        infer = path + "_infer"
        stats = (Launcher(load_bundle(path))
                 if os.path.isdir(path) or not os.path.isdir(infer) else None)
        inference = Launcher(load_bundle(infer)) if os.path.isdir(infer) else stats
        args = (x, w) if op == "rms_fwd" else (x, w, b)
        impls = {"norm": lambda: inference(None, *args)}
        if stats:
            impls["norm_stats"] = lambda: stats(None, *args)
    else:
        ours = Launcher(load_bundle(path))
    if op == "rms_fwd":
        return with_liger(impls | {
            "eager": lambda: F.rms_norm(x, (n,), w, EPS),
            "compile": (lambda f: lambda: f(x, w))(compiled(
                f"rms_fwd{m}x{n}{dtype}", lambda x, w: F.rms_norm(x, (n,), w, EPS)))},
            lambda: liger.rms_fwd(x, w, EPS))
    if op == "ln_fwd":
        return with_liger(impls | {
            "eager": lambda: F.layer_norm(x, (n,), w, b, EPS),
            "compile": (lambda f: lambda: f(x, w, b))(compiled(
                f"ln_fwd{m}x{n}{dtype}", lambda x, w, b: F.layer_norm(x, (n,), w, b, EPS)))},
            lambda: liger.ln_fwd(x, w, b, EPS))
    if op == "rms_bwd":
        return with_liger({"norm": lambda: ours(None, dy, x, rstd_rms, w),
                           "eager": lambda: rms_bwd_eager(dy, x, rstd_rms, w),
                           "compile": (lambda f: lambda: f(dy, x, rstd_rms, w))(
                               compiled(f"rms_bwd{m}x{n}{dtype}", rms_bwd_math))},
                          lambda: liger.rms_bwd(dy, x, rstd_rms, w, EPS))
    return with_liger({"norm": lambda: ours(None, dy, x, mean, rstd_ln, w),
                       "eager": lambda: ln_bwd_eager(dy, x, mean, rstd_ln, w, b),
                       "compile": (lambda f: lambda: f(dy, x, mean, rstd_ln, w))(
                           compiled(f"ln_bwd{m}x{n}{dtype}", ln_bwd_math))},
                      lambda: liger.ln_bwd(dy, x, mean, rstd_ln, w, b))


def launch_summary(launches):
    """One line of a row's `launches` (implementation -> launch_configs)."""
    return "; ".join(f"{name} " + ", ".join(f"{kernel[:32]} grid {grid} block {block}"
                                            for kernel, grid, block, _ in configs)
                     for name, configs in launches.items())


def _balanced_rows(k):
    """A Williams design over range(k): rows (orders) in which each index
    takes every position equally often and follows every other index
    equally often (k rows when k is even, 2k when odd)."""
    base, lo, hi = [0], 1, k - 1
    while len(base) < k:
        base.append(lo)
        lo += 1
        if len(base) < k:
            base.append(hi)
            hi -= 1
    # Relabelled so that the first row is range(k): a single round keeps
    # the order given.
    label = {v: j for j, v in enumerate(base)}
    rows = [[label[(v + i) % k] for v in base] for i in range(k)]
    return rows + [row[::-1] for row in rows] if k % 2 else rows


def timing_order(names, rounds, reverse=False):
    """The order bench times a shape's implementations in: `rounds` passes
    over `names` (reversed first when `reverse`), the passes the rows of a
    Williams design, so that over a full set of rounds (len(names) when
    even, twice that when odd) each implementation is timed once in every
    position and once just after each other one. What a timing leaves
    behind can reach the next (Inductor's RMS forward at
    8448x1024 took 9.5 us after ours and 10.3 us after eager, through L2
    lines the flush did not evict until it reset them), so a fixed
    predecessor, which rotating one order keeps, would charge one
    implementation the same neighbour every round."""
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    names = list(reversed(names)) if reverse else list(names)
    rows = _balanced_rows(len(names)) if names else [[]]
    return [names[i] for r in range(rounds) for i in rows[r % len(rows)]]


def tbps(impls, nbytes, method, rounds):
    """{name: TB/s} of each callable in `impls` moving `nbytes`: the median
    of `rounds` timings by `method` (TIMERS), taken in timing_order."""
    seconds = {name: [] for name in impls}
    for name in timing_order(impls, rounds):
        seconds[name].append(TIMERS[method](impls[name]))
    return {name: nbytes / statistics.median(t) / 1e12 for name, t in seconds.items()}


def geomean(values):
    values = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def print_table(op, rows, method, ceiling, sized, dtype="bf16"):
    """The per-shape table of one op and timing method, and its geomeans
    (returned)."""
    stats = any(r[method].get("norm_stats") for r in rows)
    # Liger's column where its kernels ran (liger_anchors.py); a shape it
    # refused shows nan.
    lig = any("liger" in r[method] or "liger_error" in r[method] for r in rows)
    print(f"\n{op} {dtype} [{method}]: TB/s (ratio to copy ceiling) and norm/torch.compile"
          + (" and norm/Liger" if lig else "")
          + ("; norm is the inference forward like the anchors, +stats the forward "
             "that also saves the statistics" if stats else ""), flush=True)
    print(f"{'shape':>14} {'norm':>14}" + (f" {'+stats':>7}" if stats else "")
          + f" {'eager':>7} {'compile':>8} {'vs compile':>10}"
          + (f" {'liger':>7} {'vs liger':>8}" if lig else "")
          + (f"{'copy@size':>11} {'norm/copy@size':>14}" if sized else ""))
    nan = float("nan")
    for r in rows:
        t = r[method]
        c, s = t.get("compile"), t.get("copy_at_size")
        print(f"{r['m']:>6}x{r['n']:<7} {t['norm']:6.2f} ({t['norm'] * 1e12 / ceiling:4.0%})"
              + (f" {t.get('norm_stats') or nan:7.2f}" if stats else "")
              + f" {t.get('eager') or nan:7.2f} {c or nan:8.2f} "
              f"{(t['norm'] / c) if c else nan:10.2f}"
              + (f" {t.get('liger') or nan:7.2f} "
                 f"{(t['norm'] / t['liger']) if t.get('liger') else nan:8.2f}" if lig else "")
              + (f"{s:11.2f} {t['norm'] / s:14.2f}" if s else ""), flush=True)
    summary = {k: geomean([r[method].get(k) for r in rows])
               for k in ("norm", "norm_stats", "eager", "compile", "liger", "copy_at_size")}
    if not stats:
        del summary["norm_stats"]
    if not lig:
        del summary["liger"]
    print(f"{'geomean':>14} {summary['norm']:6.2f} ({summary['norm'] * 1e12 / ceiling:4.0%})"
          + (f" {summary['norm_stats']:7.2f}" if stats else "")
          + f" {summary['eager']:7.2f} {summary['compile']:8.2f} "
          f"{summary['norm'] / summary['compile']:10.2f}"
          + (f" {summary['liger']:7.2f} {summary['norm'] / summary['liger']:8.2f}"
             if lig else "")
          + (f"{summary['copy_at_size']:11.2f} {summary['norm'] / summary['copy_at_size']:14.2f}"
             if sized else ""), flush=True)
    return summary


def behind_compile(ops, method, anchor="compile"):
    """(op, m, n, norm / anchor) of every shape of `ops` (results["ops"]:
    op -> {"rows": [...]}) where norm is slower than `anchor`
    (torch.compile, or "liger") by `method`'s timing, slowest first; shapes
    without both times are left out."""
    behind = []
    for op, result in ops.items():
        for r in result["rows"]:
            t = r.get(method, {})
            if t.get("norm") and t.get(anchor) and t["norm"] < t[anchor]:
                behind.append((op, r["m"], r["n"], t["norm"] / t[anchor]))
    return sorted(behind, key=lambda b: b[3])


def start_run(methods):
    """What every benchmark run does first: allow one compiled anchor per
    shape, measure the copy ceiling by each timing method and print it with
    the device. Returns {method: ceiling in bytes per second}."""
    torch.cuda.init()
    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.recompile_limit = 256
    ceilings = {m: copy_ceiling(TIMERS[m]) for m in methods}
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}  copy ceiling "
          + ", ".join(f"{ceilings[m] / 1e12:.2f} TB/s [{m}]" for m in methods), flush=True)
    return ceilings


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--out", default=os.environ.get("OUT", os.path.join(ROOT, ".out")))
    p.add_argument("--ops", default="rms_fwd,ln_fwd,rms_bwd,ln_bwd")
    p.add_argument("--shapes", default="",
                   help="MxN,MxN,... or a named set: " + ", ".join(sorted(SHAPE_SETS)))
    p.add_argument("--timing", default="graph,kernels",
                   help="timing methods, comma-separated: graph (CUDA graph replays timed "
                        "with events) and/or kernels (summed kernel device time, "
                        "../shared/PERF.md's method); see bench/timing.py")
    p.add_argument("--no-compile", action="store_true")
    p.add_argument("--rounds", type=int, default=1,
                   help="time each implementation this many times per shape and method, "
                        "each round in another order (every position, every predecessor: "
                        "see timing_order), and keep the median")
    p.add_argument("--reverse", action="store_true",
                   help="time the implementations in the reversed order (torch.compile "
                        "first, norm last)")
    p.add_argument("--dtype", default="bf16", choices=sorted(DTYPE_BYTES),
                   help="element type of x, dy, the weights and outputs: the bundles "
                        "<op>_<dtype>_<N>[_infer] (the default set has f16 and f32 ones "
                        "at a few N; a forward without an _infer bundle times the one "
                        "saving the statistics), the anchors' inputs and copy@size")
    p.add_argument("--no-sized-copy", action="store_true",
                   help="skip the same-size copy column (copy or add of the op's traffic)")
    args = p.parse_args()
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as e:
        p.error(f"--shapes: {e}")
    if args.rounds < 1:
        p.error(f"--rounds: must be at least 1, got {args.rounds}")
    methods = [m for m in args.timing.split(",") if m]
    unknown = [m for m in methods if m not in TIMERS]
    if unknown or not methods:
        p.error(f"--timing: unknown method(s) {unknown}; choose from {sorted(TIMERS)}")
    ceilings = start_run(methods)
    results = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
               "device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "timing": methods, "rounds": args.rounds, "reverse": args.reverse,
               "dtype": args.dtype, "eps": EPS, "ops": {}}
    for op in args.ops.split(","):
        rows = []
        for m, n in shapes:
            impls = implementations(op, m, n, args.bundles, args.dtype)
            if args.no_compile:
                impls.pop("compile")
            size = DTYPE_BYTES[args.dtype]
            nbytes = min_bytes(op, m, n, e=size, w=size)
            row = {"m": m, "n": n, "bytes": nbytes}
            for method in methods:
                timed = row.setdefault(method, {})
                seconds = {name: [] for name in impls}
                for name in timing_order(impls, args.rounds, args.reverse):
                    if name + "_error" in timed:
                        continue
                    try:
                        seconds[name].append(TIMERS[method](impls[name]))
                    except Exception as e:  # an anchor failing must not hide our numbers
                        timed[name + "_error"] = str(e)[:200]
                for name, times in seconds.items():
                    timed[name] = nbytes / statistics.median(times) / 1e12 if times else None
                if not args.no_sized_copy:
                    timed["copy_at_size"] = sized_copy(op, m, n, method, args.dtype)
            # What was compared: Inductor autotunes its kernels' launch
            # configuration when it compiles, so one run's anchor may not
            # be the next run's.
            # A profiler that cannot export its trace must not cost the run.
            try:
                row["launches"] = {name: launch_configs(impls[name])
                                   for name in ("norm", "compile") if name in impls}
            except Exception as e:
                row["launches"] = {"error": [[str(e)[:200], None, None, None]]}
            rows.append(row)
            print(f"{op} {m}x{n}: " + ", ".join(
                f"norm {row[method]['norm']:.2f} [{method}]" for method in methods)
                + "; launches " + launch_summary(row["launches"]), flush=True)
        results["ops"][op] = {"rows": rows, "geomean_tbps": {}}
        for method in methods:
            results["ops"][op]["geomean_tbps"][method] = print_table(
                op, rows, method, ceilings[method], not args.no_sized_copy, args.dtype)
    # Where norm is behind torch.compile, in one line per timing method.
    results["behind_compile"] = {}
    for method in methods:
        behind = behind_compile(results["ops"], method)
        results["behind_compile"][method] = [
            {"op": op, "m": m, "n": n, "ratio": ratio} for op, m, n, ratio in behind]
        print(f"\nbehind torch.compile [{method}]: " + (", ".join(
            f"{op} {m}x{n} {ratio:.2f}x" for op, m, n, ratio in behind) or "none"))
    # And behind Liger, where its kernels ran; else why they did not.
    if liger.available():
        results["behind_liger"] = {}
        for method in methods:
            behind = behind_compile(results["ops"], method, "liger")
            results["behind_liger"][method] = [
                {"op": op, "m": m, "n": n, "ratio": ratio} for op, m, n, ratio in behind]
            print(f"behind Liger [{method}]: " + (", ".join(
                f"{op} {m}x{n} {ratio:.2f}x" for op, m, n, ratio in behind) or "none"))
    else:
        results["liger"] = liger.MISSING
        print(f"\nno Liger column: {liger.MISSING}")
    # Measure the ceiling again at the end; keep the higher (clock ramp-up).
    results["copy_ceiling_tbps"] = {}
    for method in methods:
        end = copy_ceiling(TIMERS[method])
        print(f"copy ceiling [{method}] at start {ceilings[method] / 1e12:.2f} TB/s, "
              f"at end {end / 1e12:.2f} TB/s")
        results["copy_ceiling_tbps"][method] = max(ceilings[method], end) / 1e12
    # The compiler does not run here (no MLIR on the GPU machine): its time
    # from user-level IR to PTX is measured on the development machine by
    # bench/compile_time.sh; the newest result is printed and recorded with
    # the kernel numbers.
    # Newest by name without the extension: "...-12-03" before "...-12-03-s41"
    # (sorting whole names put "-12-03.txt" after "-12-03-s41.txt").
    compile_times = sorted(glob.glob(os.path.join(ROOT, "bench", "results",
                                                  "compile-time-*.txt")),
                           key=lambda p: os.path.splitext(os.path.basename(p))[0])
    if compile_times:
        with open(compile_times[-1]) as f:
            text = f.read()
        print(f"\ncompile time, IR to PTX ({os.path.basename(compile_times[-1])}, "
              f"development machine):\n{text.rstrip()}")
        results["compile_time"] = {"source": os.path.basename(compile_times[-1]),
                                   "lines": text.splitlines()}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "bench.json"), "w") as f:
        json.dump(results, f, indent=1)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        ops = list(results["ops"])
        fig, axes = plt.subplots(1, len(ops), figsize=(5 * len(ops), 4), sharey=True)
        for ax, op in zip(axes if len(ops) > 1 else [axes], ops):
            method = methods[0]
            rows = [r[method] | {"m": r["m"], "n": r["n"]} for r in results["ops"][op]["rows"]]
            labels = [f"{r['m']}x{r['n']}" for r in rows]
            for k, name in enumerate(("norm", "eager", "compile")):
                ax.bar([i + 0.27 * (k - 1) for i in range(len(rows))],
                       [r.get(name) or 0 for r in rows], 0.27, label=name)
            ax.axhline(results["copy_ceiling_tbps"][method], color="k", ls="--", lw=1,
                       label="copy")
            ax.set_xticks(range(len(rows)))
            ax.set_xticklabels(labels, rotation=70, fontsize=7)
            ax.set_title(f"{op} [{method}]")
        axes[0].set_ylabel("TB/s") if len(ops) > 1 else axes.set_ylabel("TB/s")
        (axes[0] if len(ops) > 1 else axes).legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(args.out, "bench.png"), dpi=110)
    except ImportError:
        pass


if __name__ == "__main__":
    main()
