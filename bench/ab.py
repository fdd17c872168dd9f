#!/usr/bin/env python3
"""A/B timing of bundle directories built with different compiler options.

Times only norm's kernels (no anchors), every variant on inputs of the same
shape in one process (--rounds: each in every position of the order and
after each other variant), and prints TB/s per shape and variant with the
geomean, the ratio of each variant to the first, and the copy ceiling of
the same run.
This is how a tuning rule or a codegen change is decided before it becomes
the default; bench/bench.py then measures the default against the anchors.

Usage (on the GPU):
    python3 bench/ab.py --variants .out/bundles,.out/staged \\
        [--ops rms_fwd,ln_bwd] [--shapes 2048x32768,512x131072] [--out F.json]
        [--forward infer] [--rounds 3]
"""

import argparse
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import (TIMERS, copy_ceiling, geomean, implementations, min_bytes,  # noqa: E402
                   parse_shapes, timing_order)
from norm_mlir.bundle import DTYPE_BYTES  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--variants", required=True,
                   help="comma-separated bundle directories; the first is the baseline")
    p.add_argument("--ops", default="rms_fwd,ln_fwd,rms_bwd,ln_bwd")
    p.add_argument("--shapes", default="")
    p.add_argument("--out", default="")
    p.add_argument("--timing", default="graph", choices=sorted(TIMERS),
                   help="graph (CUDA graph replays, events) or kernels (summed kernel "
                        "device time, ../shared/PERF.md's method); see bench/timing.py")
    p.add_argument("--forward", default="stats", choices=("stats", "infer"),
                   help="which forward bundles to time: <op>_bf16_<N> (saves the "
                        "statistics; what the variant builders make) or "
                        "<op>_bf16_<N>_infer (the inference forward, what bench.py "
                        "compares with the anchors; scripts/build-bundles.py builds both)")
    p.add_argument("--dtype", default="bf16", choices=sorted(DTYPE_BYTES),
                   help="the bundles' dtype (<op>_<dtype>_<N>[_infer]; the default "
                        "set has inference forwards of bf16 and a few f32 N, "
                        "scripts/build-bundles.py --n ... --dtype builds others)")
    p.add_argument("--rounds", type=int, default=1,
                   help="time each variant this many times per shape, each round in "
                        "another order (every position, every predecessor: "
                        "bench.timing_order), and keep the median")
    args = p.parse_args()
    if args.rounds < 1:
        p.error(f"--rounds: must be at least 1, got {args.rounds}")
    timer = TIMERS[args.timing]
    variants = [v for v in args.variants.split(",") if v]
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as e:
        p.error(f"--shapes: {e}")
    torch.cuda.init()
    ceiling = copy_ceiling(timer)
    names = [os.path.basename(os.path.normpath(v)) for v in variants]
    print(f"device: {torch.cuda.get_device_name()}  copy ceiling {ceiling / 1e12:.2f} TB/s "
          f"[{args.timing}]")
    results = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
               "copy_ceiling_tbps": ceiling / 1e12, "timing": args.timing,
               "rounds": args.rounds, "variants": variants, "ops": {}}
    for op in args.ops.split(","):
        print(f"\n{op}: TB/s per variant (ratio to {names[0]})")
        print(f"{'shape':>14} " + " ".join(f"{n[-16:]:>16}" for n in names))
        rows = []
        size = DTYPE_BYTES[args.dtype]
        for m, n in shapes:
            nbytes = min_bytes(op, m, n, e=size, w=size)
            row = {"m": m, "n": n}
            infer = args.forward == "infer" and op.endswith("_fwd")
            wanted = f"{op}_{args.dtype}_{n}" + ("_infer" if infer else "")
            calls = {}
            for name, directory in zip(names, variants):
                if not os.path.isdir(os.path.join(directory, wanted)):
                    row[name] = None
                    continue
                # The same bundle in every directory, whatever else it has.
                impls = implementations(op, m, n, directory, args.dtype)
                calls[name] = impls["norm"] if infer else impls.get("norm_stats",
                                                                     impls["norm"])
            seconds = {name: [] for name in calls}
            for name in timing_order(list(calls), args.rounds):
                seconds[name].append(timer(calls[name]))
            for name, times in seconds.items():
                row[name] = nbytes / statistics.median(times) / 1e12
            rows.append(row)
            base = row[names[0]]
            cells = []
            for name in names:
                v = row[name]
                cells.append(f"{'-':>16}" if v is None else
                             f"{v:6.2f} ({v / base if base else float('nan'):5.2f}x)".rjust(16))
            print(f"{m:>6}x{n:<7} " + " ".join(cells), flush=True)
        means = {name: geomean([r[name] for r in rows]) for name in names}
        print(f"{'geomean':>14} " + " ".join(
            f"{means[nm]:6.2f} ({means[nm] / means[names[0]]:5.2f}x)".rjust(16) for nm in names))
        results["ops"][op] = {"rows": rows, "geomean_tbps": means}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
