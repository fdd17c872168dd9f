#!/usr/bin/env python3
"""How much of a kernel's time does not grow with M: each kernel of norm's
bundle timed at several M of one N (bench/breakdown.py's per-kernel
medians, L2 flushed before each replay), a least-squares line through
(M, us) per kernel, and the same for the elementwise kernel that moves the
op's traffic at each M (bench.py's copy@size: an add for a backward, a copy
for a forward). The line's intercept is the kernel's fixed cost (launch,
ramp, tail, epilogue) and its slope the bandwidth it streams at; the copy's
line is what the traffic alone costs.

Usage (on the GPU):
    python3 bench/fixed_cost.py [--bundles .out/bundles] --op ln_bwd --n 4096
        --m 1056,2112,4224,8448,16896
"""

import argparse
import os
import sys

# PyTorch and the benchmark's modules are imported where they are used, so
# that the line fit can be tested where there is no GPU and no PyTorch.
HERE = os.path.dirname(os.path.abspath(__file__))


def fit(points):
    """(intercept, slope) of the least-squares line through `points`."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    slope = sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else 0.0
    return my - slope * mx, slope


def elementwise(op, m, n):
    """A callable moving `op`'s traffic at M x N in one elementwise kernel."""
    import torch

    a = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    c = torch.empty_like(a)
    if op.endswith("bwd"):
        b = torch.randn_like(a)
        return lambda: torch.add(a, b, out=c)
    return lambda: torch.mul(a, 1, out=c)


def main():
    import torch

    sys.path.insert(0, HERE)
    from bench import implementations, min_bytes
    from breakdown import breakdown, short

    p = argparse.ArgumentParser()
    p.add_argument("--bundles",
                   default=os.path.join(os.path.dirname(HERE), ".out", "bundles"))
    p.add_argument("--op", required=True,
                   choices=("rms_fwd", "ln_fwd", "rms_bwd", "ln_bwd"))
    p.add_argument("--n", type=int, required=True)
    p.add_argument("--m", required=True, help="comma-separated row counts")
    args = p.parse_args()
    try:
        ms = sorted({int(v) for v in args.m.split(",")})
    except ValueError:
        p.error(f"--m: expected comma-separated integers, got {args.m!r}")
    if len(ms) < 2 or ms[0] < 1:
        p.error("--m: at least two positive row counts")
    torch.cuda.init()
    print(f"device: {torch.cuda.get_device_name()}  {args.op} N = {args.n}")
    series = {}
    for m in ms:
        impls = implementations(args.op, m, args.n, args.bundles)
        busy, _, kernels = breakdown(impls["norm"])
        _, _, copy = breakdown(elementwise(args.op, m, args.n))
        row = {"busy": busy, "copy": sum(us for _, us in copy)}
        for name, us in kernels:
            row[short(name, 24)] = us
        print(f"M = {m:7d}: " + "  ".join(f"{k} {v:7.1f}" for k, v in row.items()),
              flush=True)
        for key, us in row.items():
            series.setdefault(key, []).append((m, us))
    per_row_bytes = min_bytes(args.op, 2, args.n) - min_bytes(args.op, 1, args.n)
    print("line through (M, us): fixed us + M x us per row "
          "(TB/s of the op's bytes per row at that slope)")
    for key, points in series.items():
        if len(points) != len(ms):
            print(f"  {key:24s} (not launched at every M)")
            continue
        fixed, slope = fit(points)
        rate = per_row_bytes / (slope * 1e-6) / 1e12 if slope > 0 else float("nan")
        print(f"  {key:24s} fixed {fixed:6.2f} us, {slope * 1e3:8.3f} ns a row "
              f"({rate:.2f} TB/s)")


if __name__ == "__main__":
    main()
