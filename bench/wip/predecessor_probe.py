#!/usr/bin/env python3
"""What does one timing leave that slows the next? (session 33: at
rms_fwd 8448x1024 Inductor's kernel takes 10.3 us when timed after eager
or after itself and 9.5 us after ours; same launch, same output address.)

Each line: a preparation, then compile's call captured and its kernels
timed over 60 flushed replays (min / median / max, us), then the same
graph timed again.

Usage (on the GPU): python3 bench/wip/predecessor_probe.py --bundles DIR rms_fwd 8448x1024
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import implementations, parse_shapes  # noqa: E402
from timing import _capture, kernel_times, time_kernels  # noqa: E402


def spread(fn, graph):
    t = kernel_times(fn, graph)
    return f"{min(t):.2f}/{statistics.median(t):.2f}/{max(t):.2f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op")
    p.add_argument("shape")
    p.add_argument("--bundles", required=True)
    p.add_argument("--target", default="compile")
    args = p.parse_args()
    (m, n), = parse_shapes(args.shape)
    impls = implementations(args.op, m, n, args.bundles)
    target = impls[args.target]
    extra = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)

    def eager_add():
        return extra + 1

    preps = {
        "after norm timing": lambda: time_kernels(impls["norm"]),
        "after compile timing": lambda: time_kernels(target),
        "after eager timing": lambda: time_kernels(impls["eager"]),
        "after eager timing + empty_cache": lambda: (time_kernels(impls["eager"]),
                                                     torch.cuda.empty_cache()),
        "after norm timing, then 1 s": lambda: (time_kernels(impls["norm"]), time.sleep(1)),
        "after compile timing, then 1 s": lambda: (time_kernels(target), time.sleep(1)),
        "after an eager add's timing": lambda: time_kernels(eager_add),
        "after one eager call (no graph)": lambda: (impls["eager"](), torch.cuda.synchronize()),
        "after one norm call (no graph)": lambda: (impls["norm"](), torch.cuda.synchronize()),
        "after compile timing (graph kept)": None,
    }
    for label, prep in preps.items():
        for _ in range(2):
            if prep is None:
                kept = _capture(target)
                time_kernels(target)
            else:
                prep()
            graph = _capture(target)
            first = spread(target, graph)
            again = spread(target, graph)
            print(f"{label:<36} {first}   same graph again {again}", flush=True)
            del graph
            if prep is None:
                del kept


if __name__ == "__main__":
    main()
