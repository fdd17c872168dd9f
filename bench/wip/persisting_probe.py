#!/usr/bin/env python3
"""Do lines our kernels load with an L2 evict_last policy survive the
benchmark's flush? (session 33: Inductor's RMS forward at 8448x1024 takes
9.5 us right after one call of ours, 10.4 us after anything else, and the
speed-up fades after about 70 of its own flushed replays; our held-rows
forwards load x with createpolicy.fractional.L2::evict_last.)

Times each implementation's kernels (time_kernels' method) with the plain
flush and with a flush that first resets persisting L2 lines to normal
(cuCtxResetPersistingL2Cache, after a synchronize), and Inductor right
after one call of ours, both ways. If the reset slows ours, the plain
flush leaves part of our inputs in L2 and flatters our number.

Usage (on the GPU): python3 bench/wip/persisting_probe.py --bundles DIR op:MxN ...
"""

import argparse
import ctypes
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import timing  # noqa: E402
from bench import implementations, parse_case  # noqa: E402

_plain_flush = timing._flush
_cuda = ctypes.CDLL("libcuda.so.1")


def _resetting_flush():
    torch.cuda.synchronize()
    rc = _cuda.cuCtxResetPersistingL2Cache()
    if rc:
        raise RuntimeError(f"cuCtxResetPersistingL2Cache returned {rc}")
    _plain_flush()


def spread(fn, reset):
    timing._flush = _resetting_flush if reset else _plain_flush
    try:
        graph = timing._capture(fn)
        for _ in range(10):
            timing._flush()
            graph.replay()
        torch.cuda.synchronize()
        t = [timing.busy_time((a, b) for a, b, _ in g)
             for g in timing.kernel_intervals(fn, graph, 60)]
    finally:
        timing._flush = _plain_flush
    return f"{min(t):6.2f}/{statistics.median(t):6.2f}/{max(t):6.2f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="+", type=parse_case)
    p.add_argument("--bundles", required=True)
    args = p.parse_args()
    torch._dynamo.config.cache_size_limit = 256
    for op, m, n in args.cases:
        impls = implementations(op, m, n, args.bundles)
        print(f"{op} {m}x{n} (us, min/median/max of 60)", flush=True)
        for reset in (False, True, False, True):
            label = "reset+flush" if reset else "flush      "
            line = "  ".join(f"{name} {spread(impls[name], reset)}"
                             for name in ("norm", "compile"))
            impls["norm"]()
            after = spread(impls["compile"], reset)
            print(f"  {label} {line}   compile right after a norm call {after}", flush=True)


if __name__ == "__main__":
    main()
