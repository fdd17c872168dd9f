#!/usr/bin/env python3
"""The launch geometry of every kernel an implementation that bench/bench.py
times launches at one shape, as the profiler (CUPTI) records it: grid,
block, registers a thread, shared memory a block, and its duration after an
L2 flush. Puts ours beside torch.compile's (Inductor's) kernels.

Usage (on the GPU):
    python3 bench/launch_geometry.py --bundles DIR rms_fwd:4096x1024 ln_fwd:4096x1000 ...
"""

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import implementations, parse_case  # noqa: E402
from timing import _capture, _flush, profile_trace  # noqa: E402


def kernels(fn, reps=20):
    """(name, grid, block, registers, shared bytes, median us) of each
    kernel of one call of `fn` (graph replays, each after an L2 flush)."""
    graph = _capture(fn)
    for _ in range(3):
        _flush()
        graph.replay()
    torch.cuda.synchronize()
    trace = profile_trace([_flush, graph.replay] * reps)
    events = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    flush_name = events[0]["name"]  # every call follows a flush
    seen = {}
    for e in events:
        if e["name"] == flush_name:
            continue
        a = e.get("args", {})
        key = e["name"]
        entry = seen.setdefault(key, {"grid": a.get("grid"), "block": a.get("block"),
                                      "registers": a.get("registers per thread"),
                                      "shared": a.get("shared memory"), "us": []})
        entry["us"].append(e["dur"])
    return [(name, v["grid"], v["block"], v["registers"], v["shared"],
             sorted(v["us"])[len(v["us"]) // 2]) for name, v in seen.items()]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="+", type=parse_case,
                   help="op:MxN, op one of rms_fwd ln_fwd rms_bwd ln_bwd")
    p.add_argument("--bundles", required=True)
    p.add_argument("--impls", default="norm,compile")
    args = p.parse_args()
    for op, m, n in args.cases:
        case = f"{op}:{m}x{n}"
        impls = implementations(op, m, n, args.bundles)
        for impl in args.impls.split(","):
            for name, grid, block, regs, shared, us in kernels(impls[impl]):
                print(f"{case:<20}{impl:<9}{name[:44]:<46}grid {str(grid):<16}block "
                      f"{str(block):<14}regs {regs!s:<5}smem {shared!s:<7}{us:7.2f} us",
                      flush=True)


if __name__ == "__main__":
    main()
