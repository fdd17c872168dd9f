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
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import timing  # noqa: E402
from bench import implementations, parse_case  # noqa: E402

_resetting_flush = timing._flush


def spread(fn, reset):
    """kernel_times of `fn` with timing's flush (`reset`) or with the
    overwrite alone, the flush before session 33."""
    timing._flush = _resetting_flush if reset else timing.overwrite_l2
    try:
        t = timing.kernel_times(fn)
    finally:
        timing._flush = _resetting_flush
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
