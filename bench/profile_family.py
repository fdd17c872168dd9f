#!/usr/bin/env python3
"""Runs one implementation that bench/family.py or bench/fused_add.py
times (norm, eager or compile) at one shape, for a profiler: the same
inputs and torch.compile anchors as that benchmark (bench/profile_impl.py
does this for bench/bench.py's ops). fused_add.py's ops are named add_<op>
(add_rms_fwd: the residual add and RMSNorm's inference forward).

Usage (on the GPU):
    ncu --kernel-name regex:'^(norm|triton)' --launch-skip 40 --launch-count 1 \\
        python3 bench/profile_family.py gated_fwd 262144x64 --impl compile --bundles DIR
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import parse_shapes  # noqa: E402
import family  # noqa: E402
import fused_add  # noqa: E402

ADD_OPS = ["add_" + op for op in fused_add.OPS]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op", choices=family.OPS + ADD_OPS)
    p.add_argument("shape", help="MxN")
    p.add_argument("--impl", default="norm", help="norm, eager or compile")
    p.add_argument("--bundles", required=True,
                   help="scripts/build-bundles.py --family's (the add_ ops: --bench-only's)")
    p.add_argument("--repeat", type=int, default=50)
    args = p.parse_args()
    (m, n), = parse_shapes(args.shape)
    if args.op in ADD_OPS:
        impls = fused_add.implementations(args.op[len("add_"):], m, n, args.bundles)
    else:
        impls = family.implementations(args.op, m, n, args.bundles)
    if args.impl not in impls:
        sys.exit(f"no implementation {args.impl!r}; there are {sorted(impls)}")
    run = impls[args.impl]
    for _ in range(args.repeat):
        run()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
