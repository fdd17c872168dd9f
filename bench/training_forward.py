#!/usr/bin/env python3
"""The training forwards beside torch.compile's: both save the statistics a
backward reads (rstd; for LayerNorm mean and rstd), where bench/bench.py
compares the inference forwards (no statistics) as PERF.md's anchors run.

Ours is the bundle <op>_bf16_<N> (the forward that returns y and its
statistics); torch.compile's is its training forward, called on inputs that
require gradients, so AOTAutograd's forward graph saves what its backward
needs. Kernel time (bench/timing.py's PERF.md method), PERF.md's byte
formula (which counts the statistics), the copy ceiling of the same run.

Usage (on the GPU):
    python3 bench/training_forward.py [--bundles .out/bundles] [--shapes 32768x1024,...]
        [--rounds 5]
"""

import argparse
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import (EPS, TIMERS, compiled, copy_ceiling, forward_inputs,  # noqa: E402
                   geomean, min_bytes, parse_shapes, timing_order)
from bench import ROOT, Launcher, load_bundle  # noqa: E402


def training_pair(op, m, n, bundles):
    """(ours, torch.compile's) training forwards of one shape."""
    x, w, b = forward_inputs(m, n)
    ours = Launcher(load_bundle(os.path.join(bundles, f"{op}_bf16_{n}")))
    xg, wg, bg = (t.clone().requires_grad_() for t in (x, w, b))
    if op == "rms_fwd":
        f = compiled(f"rms_fwd_train{m}x{n}", lambda x, w: F.rms_norm(x, (n,), w, EPS))
        return (lambda: ours(None, x, w)), (lambda: f(xg, wg))
    f = compiled(f"ln_fwd_train{m}x{n}", lambda x, w, b: F.layer_norm(x, (n,), w, b, EPS))
    return (lambda: ours(None, x, w, b)), (lambda: f(xg, wg, bg))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--ops", default="rms_fwd,ln_fwd")
    p.add_argument("--shapes", default="")
    p.add_argument("--rounds", type=int, default=1,
                   help="time each pair this many times, each first in half the "
                        "rounds (bench.py's timing_order), and keep the medians "
                        "(the 1-3 us shapes need 5-7)")
    args = p.parse_args()
    if args.rounds < 1:
        p.error(f"--rounds must be at least 1, got {args.rounds}")
    torch.cuda.init()
    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.recompile_limit = 256
    timer = TIMERS["kernels"]
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as e:
        p.error(f"--shapes: {e}")
    ceiling = copy_ceiling(timer)
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}  "
          f"copy ceiling {ceiling / 1e12:.2f} TB/s [kernels]")
    behind = []
    for op in args.ops.split(","):
        print(f"\n{op}, training forwards (statistics saved) [kernels]: TB/s")
        print(f"{'shape':>14} {'norm':>7} {'compile':>8} {'vs compile':>10}"
              f" {'norm us':>9} {'compile us':>10}")
        ours_all, theirs_all = [], []
        for m, n in shapes:
            ours, theirs = training_pair(op, m, n, args.bundles)
            nbytes = min_bytes(op, m, n)
            # bench.py's order: over the rounds each goes first equally often.
            impls = {"norm": ours, "compile": theirs}
            seconds = {name: [] for name in impls}
            failed = None
            for name in timing_order(impls, args.rounds):
                if name == "compile" and failed is not None:
                    continue
                try:
                    seconds[name].append(timer(impls[name]))
                except Exception as e:  # an anchor failing must not hide our number
                    if name != "compile":
                        raise
                    failed = e
            if failed is not None:
                print(f"  torch.compile failed: {str(failed)[:200]}")
            t_ours = statistics.median(seconds["norm"])
            t_theirs = (statistics.median(seconds["compile"]) if seconds["compile"]
                        else float("nan"))
            a = nbytes / t_ours / 1e12
            c = nbytes / t_theirs / 1e12
            ours_all.append(a)
            theirs_all.append(c)
            if a < c:
                behind.append(f"{op} {m}x{n} {a / c:.3f}x")
            print(f"{m:>6}x{n:<7} {a:7.2f} {c:8.2f} {a / c:10.3f}"
                  f" {t_ours * 1e6:9.3f} {t_theirs * 1e6:10.3f}", flush=True)
        ga, gc = geomean(ours_all), geomean(theirs_all)
        print(f"{'geomean':>14} {ga:7.2f} {gc:8.2f} {ga / gc:10.2f}")
    print(f"\nbehind torch.compile: {', '.join(behind) if behind else 'none'}")


if __name__ == "__main__":
    main()
