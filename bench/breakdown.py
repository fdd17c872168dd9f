#!/usr/bin/env python3
"""Where a call's device time goes: per kernel of norm's bundle (and of
torch.compile's code), the median duration over replays of the call's CUDA
graph, each after an L2 flush (bench/timing.py's kernel timing), with the
call's busy time (the union of its kernels' intervals), the sum of the
durations, the overlap between them (programmatic dependent launches) and
the TB/s of the busy time.

Usage (on the GPU):
    python3 bench/breakdown.py [--bundles .out/bundles] [--ops rms_bwd,ln_bwd]
        [--shapes 32768x1024,512x131072] [--no-compile]
"""

import argparse
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import ROOT, implementations, min_bytes, parse_shapes  # noqa: E402
from timing import busy_time, kernel_intervals  # noqa: E402


def short(name, width=48):
    """A kernel name without its template arguments, at most `width` long."""
    return name.split("<")[0].split("(")[0][:width]


def breakdown(fn):
    """(busy us, summed us, [(kernel, median us)]) of the call `fn`."""
    groups = kernel_intervals(fn)
    busy, summed = [], []
    per_kernel = {}
    for group in groups:
        intervals = [(a, b) for a, b, _ in group]
        busy.append(busy_time(intervals))
        summed.append(sum(b - a for a, b in intervals))
        for k, (a, b, name) in enumerate(sorted(group)):
            per_kernel.setdefault((k, name), []).append(b - a)
    kernels = [(name, statistics.median(v)) for (_, name), v in sorted(per_kernel.items())]
    return statistics.median(busy), statistics.median(summed), kernels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--ops", default="rms_fwd,ln_fwd,rms_bwd,ln_bwd")
    p.add_argument("--shapes", default="")
    p.add_argument("--no-compile", action="store_true")
    args = p.parse_args()
    try:
        shapes = parse_shapes(args.shapes)
    except ValueError as e:
        p.error(f"--shapes: {e}")
    torch.cuda.init()
    torch._dynamo.config.cache_size_limit = 256
    torch._dynamo.config.recompile_limit = 256
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    for op in args.ops.split(","):
        for m, n in shapes:
            impls = implementations(op, m, n, args.bundles)
            names = ["norm"] + ([] if args.no_compile else ["compile"])
            nbytes = min_bytes(op, m, n)
            for name in names:
                busy, summed, kernels = breakdown(impls[name])
                print(f"{op} {m}x{n} {name}: busy {busy:7.1f} us ({nbytes / busy / 1e6:.2f} TB/s), "
                      f"sum {summed:7.1f} us, overlap {summed - busy:5.1f} us", flush=True)
                for kernel, us in kernels:
                    print(f"    {us:7.1f} us  {short(kernel)}")


if __name__ == "__main__":
    main()
