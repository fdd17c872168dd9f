#!/usr/bin/env python3
"""The performance table and plot of docs/performance.md, from benchmark
JSON (bench/bench.py --out): per op, the geometric mean over the run's
shapes of each implementation's TB/s (minimum bytes / time), its ratio to
the copy ceiling, and norm's ratio to torch.compile, shape by shape at its
lowest and highest; --plot writes a PNG of TB/s per shape (needs
matplotlib).

Usage (anywhere, no GPU):
    python3 bench/perf_report.py bench/results/h200-public-fwd.json \\
        bench/results/h200-public-bwd.json [--timing kernels] [--plot out.png]
"""

import argparse
import json
import math

IMPLS = [("norm", "norm"), ("norm_stats", "norm +stats"), ("compile", "torch.compile"),
         ("eager", "PyTorch eager"), ("copy_at_size", "copy@size")]
# One color per implementation in every panel.
COLORS = {"norm": "tab:blue", "norm_stats": "tab:cyan", "compile": "tab:orange",
          "eager": "tab:green", "copy_at_size": "tab:gray"}
OPS = {"rms_fwd": "RMS fwd", "ln_fwd": "LN fwd", "rms_bwd": "RMS bwd", "ln_bwd": "LN bwd"}


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def load(paths, timing):
    """{op: rows} and the copy ceiling (TB/s, the highest of the runs) for
    `timing` ('kernels' or 'graph') from bench.py JSON files."""
    ops, ceiling, meta = {}, 0.0, None
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        # One run, or several shape sets of one run by name.
        for run in ([data] if "ops" in data else list(data.values())):
            meta = meta or {k: run.get(k) for k in ("device", "torch", "dtype", "rounds")}
            ceiling = max(ceiling, run.get("copy_ceiling_tbps", {}).get(timing, 0.0))
            for op, rows in run["ops"].items():
                ops.setdefault(op, []).extend(
                    {"m": r["m"], "n": r["n"], **r[timing]} for r in rows["rows"] if timing in r)
    if not ceiling:
        # Runs without a ceiling of their own: copy@size's best stands in.
        ceiling = max(r["copy_at_size"] for rows in ops.values() for r in rows
                      if "copy_at_size" in r)
    return ops, ceiling, meta


def table(ops, ceiling):
    """Markdown: geomean TB/s (share of the ceiling) per implementation and
    op, then norm / torch.compile (geomean, lowest, highest)."""
    names = [o for o in OPS if o in ops]
    lines = ["| TB/s (of the copy ceiling) | " + " | ".join(OPS[o] for o in names) + " |",
             "| --- |" + " --- |" * len(names)]
    for key, label in IMPLS:
        cells = []
        for op in names:
            values = [r[key] for r in ops[op] if key in r]
            cells.append(f"{geomean(values):.2f} ({geomean(values) / ceiling:.0%})"
                         if values else "")
        if any(cells):
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    cells = []
    for op in names:
        ratios = [(r["norm"] / r["compile"], f"{r['m']}x{r['n']}") for r in ops[op]]
        low, high = min(ratios), max(ratios)
        cells.append(f"{geomean([x for x, _ in ratios]):.2f}x ({low[0]:.2f}x {low[1]} - "
                     f"{high[0]:.2f}x {high[1]})")
    lines.append("| norm / torch.compile (lowest - highest) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(ops, ceiling, path, timing):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = [o for o in OPS if o in ops]
    fig, axes = plt.subplots(1, len(names), figsize=(4.2 * len(names), 3.8), sharey=True)
    for ax, op in zip(axes, names):
        rows = ops[op]
        x = range(len(rows))
        for key, label in IMPLS:
            if all(key in r for r in rows):
                ax.plot(x, [r[key] for r in rows], marker="o", ms=3, label=label,
                        color=COLORS[key])
        ax.axhline(ceiling, color="k", ls="--", lw=1, label="copy ceiling")
        ax.set_xticks(list(x))
        ax.set_xticklabels([f"{r['m']}x{r['n']}" for r in rows], rotation=70, fontsize=6)
        ax.set_title(OPS[op])
    axes[0].set_ylabel(f"TB/s ({timing} time)")
    handles = {h.get_label(): h for ax in axes for h in ax.get_lines()}
    axes[-1].legend(handles.values(), handles.keys(), fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--timing", default="kernels", choices=["kernels", "graph"])
    parser.add_argument("--plot")
    args = parser.parse_args()
    ops, ceiling, meta = load(args.runs, args.timing)
    print(f"{meta['device']}, torch {meta['torch']}, {meta['dtype']}, {args.timing} time, "
          f"{meta['rounds']} rounds, copy ceiling {ceiling:.2f} TB/s\n")
    print(table(ops, ceiling))
    if args.plot:
        plot(ops, ceiling, args.plot, args.timing)


if __name__ == "__main__":
    main()
