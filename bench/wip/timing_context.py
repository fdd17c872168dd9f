#!/usr/bin/env python3
"""Why bench.py and cold_start_probe.py disagree on the same kernels
(session 32: rms_fwd 8448x1024 0.95x in bench.py, 1.05-1.09x from
time_kernels in the probe): time_kernels of norm and compile at one shape
in several contexts, each printed per call (us).

Usage (on the GPU): python3 bench/wip/timing_context.py --bundles DIR rms_fwd 8448x1024
"""

import argparse
import os
import random
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import implementations, parse_shapes, timing_order  # noqa: E402
from timing import _capture, launch_configs, time_kernels  # noqa: E402


def show(label, impls, names):
    times = {}
    for name in names:
        times.setdefault(name, []).append(time_kernels(impls[name]) * 1e6)
    line = "  ".join(f"{k} " + " ".join(f"{t:.2f}" for t in v) for k, v in times.items())
    ratio = min(times["compile"]) / min(times["norm"])
    print(f"{label:<34} {line}   compile/norm (best) {ratio:.3f}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op")
    p.add_argument("shape")
    p.add_argument("--bundles", required=True)
    p.add_argument("--placements", type=int, default=8)
    args = p.parse_args()
    (m, n), = parse_shapes(args.shape)
    torch._dynamo.config.cache_size_limit = 256
    impls = implementations(args.op, m, n, args.bundles)
    for name in ("norm", "compile"):
        print(f"{name}: {launch_configs(impls[name])}", flush=True)
    show("norm, compile", impls, ["norm", "compile"])
    show("compile, norm", impls, ["compile", "norm"])
    show("x3 alternating", impls, ["norm", "compile"] * 3)
    show("bench order, 5 rounds", impls, timing_order(impls, 5))
    show("bench order w/o eager", impls,
         timing_order({k: v for k, v in impls.items() if k != "eager"}, 5))
    # As cold_start_probe.py times it: two graphs of each call held (their
    # outputs in graph pools of their own) while time_kernels captures a third.
    held = [_capture(impls[name]) for name in ("norm", "compile") for _ in range(2)]
    show("two graphs held, norm, compile x3", impls, ["norm", "compile"] * 3)
    del held
    show("held graphs freed, norm, compile x3", impls, ["norm", "compile"] * 3)
    fresh = implementations(args.op, m, n, args.bundles)
    show("fresh inputs: bench order", fresh, timing_order(fresh, 5))
    show("fresh inputs: norm, compile x3", fresh, ["norm", "compile"] * 3)
    del fresh
    # Placement: new inputs behind a pad of 0-62 MB (a new place in torch's
    # cache each time), norm and compile timed once each on them.
    rng = random.Random(1)
    for i in range(args.placements):
        pad = torch.empty(rng.randrange(0, 32) << 21, dtype=torch.uint8, device="cuda")
        placed = implementations(args.op, m, n, args.bundles)
        show(f"placement {i} (pad {pad.numel() >> 20} MB)", placed, ["norm", "compile"])
        del placed, pad


if __name__ == "__main__":
    main()
