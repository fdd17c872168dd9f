#!/usr/bin/env python3
"""Runs one bundle function a few times on random inputs, for a profiler.

Usage (on the GPU): ncu --kernel-name norm_fused --launch-skip 2 --launch-count 1 \\
    python3 bench/run_bundle.py .out/bundles/rms_fwd_bf16_8192 8192
"""

import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir.launcher import Launcher, _torch_dtype  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("bundle")
    p.add_argument("rows", type=int)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    bundle = load_bundle(args.bundle)
    launcher = Launcher(bundle)
    function = bundle.function(None)
    tensors = []
    for arg in function.arguments:
        shape = [args.rows if d == "M" else d for d in arg["shape"]]
        t = torch.randn(shape, device="cuda").to(_torch_dtype(arg["dtype"]))
        tensors.append(t.abs() + 0.5 if len(shape) == 1 and "M" in arg["shape"] else t)
    for _ in range(args.repeat):
        launcher(None, *tensors)
    torch.cuda.synchronize()
    print(f"ran {function.name} {args.repeat} times, M = {args.rows}")


if __name__ == "__main__":
    main()
