#!/usr/bin/env python3
"""Does where a call's output lands decide its kernel time? (session 33:
at rms_fwd 8448x1024 Inductor's kernel takes 10.3 us when timed after
eager or after itself and 9.5 us after ours, same grid and block, so the
ratio bench.py prints moves with its timing order.)

For each of K placements, with the inputs fixed: a pad of a random size
is allocated, then each implementation's call is captured (its outputs'
addresses recorded) and timed with time_kernels' method. Prints one line
per placement and per implementation: output address (MB offsets from the
first input), kernel time (us); then the spread of each.

Usage (on the GPU): python3 bench/wip/placement_probe.py --bundles DIR rms_fwd 8448x1024 [--placements K]
"""

import argparse
import os
import random
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from bench import implementations, parse_shapes  # noqa: E402
from timing import kernel_times  # noqa: E402


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _tensors(v)]
    return []


def capture(fn):
    """The call's graph and the addresses of the tensors it returns."""
    fn()
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = fn()
    torch.cuda.synchronize()
    return graph, [t.data_ptr() for t in _tensors(out)]


def kernel_us(fn, graph):
    return statistics.median(kernel_times(fn, graph))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op")
    p.add_argument("shape")
    p.add_argument("--bundles", required=True)
    p.add_argument("--placements", type=int, default=12)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    (m, n), = parse_shapes(args.shape)
    torch._dynamo.config.cache_size_limit = 256
    impls = implementations(args.op, m, n, args.bundles)
    names = [k for k in ("norm", "compile") if k in impls]
    base = torch.empty(1, device="cuda").data_ptr()
    rng = random.Random(args.seed)
    times = {k: [] for k in names}
    print(f"{args.op} {m}x{n}: addresses in MB from a probe tensor at {base:#x}", flush=True)
    for i in range(args.placements):
        pad = torch.empty(rng.randrange(0, 32) << 21, dtype=torch.uint8, device="cuda")
        order = names if i % 2 == 0 else names[::-1]
        line = []
        for name in order:
            graph, ptrs = capture(impls[name])
            t = kernel_us(impls[name], graph)
            times[name].append(t)
            where = ",".join(f"{(q - base) / 2**20:+.1f}" for q in ptrs)
            line.append(f"{name} at {where} {t:.2f}")
            del graph
        print(f"placement {i:2d} pad {pad.numel() >> 20:2d} MB: " + "   ".join(line), flush=True)
        del pad
    # What the previous timing leaves: capture and time `prev` (its graph
    # freed), then `name`, as bench.py's consecutive time_kernels calls do.
    for name in names:
        for prev in [k for k in impls if k != name] + [name]:
            g, _ = capture(impls[prev])
            kernel_us(impls[prev], g)
            del g
            graph, ptrs = capture(impls[name])
            t = kernel_us(impls[name], graph)
            del graph
            where = ",".join(f"{(q - base) / 2**20:+.1f}" for q in ptrs)
            print(f"{name} after {prev:<10} at {where} {t:.2f}", flush=True)
    for name in names:
        v = times[name]
        print(f"{name}: median {statistics.median(v):.2f} min {min(v):.2f} max {max(v):.2f} us")
    if len(names) == 2:
        r = [c / n_ for n_, c in zip(times["norm"], times["compile"])]
        print(f"compile/norm per placement: median {statistics.median(r):.3f} "
              f"min {min(r):.3f} max {max(r):.3f}; of medians "
              f"{statistics.median(times['compile']) / statistics.median(times['norm']):.3f}")


if __name__ == "__main__":
    main()
