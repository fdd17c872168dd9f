#!/usr/bin/env python3
"""Runs one implementation that bench/bench.py times (norm, eager or
compile) at one shape, for a profiler: the same inputs and the same
torch.compile anchors as the benchmark.

Usage (on the GPU):
    ncu --kernel-name regex:'^(norm|triton)' --launch-skip 40 --launch-count 2 \\
        python3 bench/profile_impl.py rms_bwd 1x4096 --impl compile
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import implementations, parse_shapes  # noqa: E402
from timing import _flush  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op", choices=("rms_fwd", "ln_fwd", "rms_bwd", "ln_bwd"))
    p.add_argument("shape", help="MxN")
    p.add_argument("--impl", default="norm", help="norm, norm_stats, eager or compile")
    p.add_argument("--bundles", default=os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), ".out", "bundles"))
    p.add_argument("--repeat", type=int, default=50)
    p.add_argument("--flush", action="store_true",
                   help="overwrite the L2 before each call, as the benchmark's timing "
                        "does (bench/timing.py): profile with ncu --cache-control none "
                        "to see the call meet the flush's dirty lines")
    args = p.parse_args()
    (m, n), = parse_shapes(args.shape)
    impls = implementations(args.op, m, n, args.bundles)
    if args.impl not in impls:
        sys.exit(f"no implementation {args.impl!r}; there are {sorted(impls)}")
    run = impls[args.impl]
    for _ in range(args.repeat):
        if args.flush:
            _flush()
        run()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
