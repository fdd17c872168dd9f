#!/usr/bin/env python3
"""Warp-stall hot spots of one kernel from ncu's source page.

Reads the CSV that `ncu --import R.ncu-rep --page source --csv --print-source sass`
writes (SourceCounters section collected) and prints the stall reasons summed
over the kernel, then every SASS instruction holding at least --share of the
samples with its two largest reasons: where the warps of a kernel wait (a
barrier, an mbarrier of a staged row, a global load issued late).

Usage: python3 bench/ncu_hotspots.py K-sass.csv [--share 0.006]
"""

import argparse
import csv

SAMPLES = "Warp Stall Sampling (All Samples)"


def hotspots(rows, share):
    """From the CSV's rows (row 0 names the kernel, row 1 the columns):
    (kernel, total samples, instruction count, [(reason, samples)] largest
    first, [(index, samples, SASS, [(reason, samples)] top two)] for the
    instructions holding at least `share` of the samples)."""
    header, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]

    def count(row, name):
        return int(row[col[name]] or 0)

    total = sum(count(r, SAMPLES) for r in data)
    sums = sorted(((s[len("stall_"):], sum(count(r, s) for r in data)) for s in reasons),
                  key=lambda rs: -rs[1])
    hot = []
    for index, r in enumerate(data):
        n = count(r, SAMPLES)
        if total == 0 or n < share * total:
            continue
        top = sorted(((s[len("stall_"):], count(r, s)) for s in reasons), key=lambda rs: -rs[1])
        hot.append((index, n, r[col["Source"]].strip(), [rs for rs in top[:2] if rs[1]]))
    kernel = rows[0][1] if len(rows[0]) > 1 else "kernel"
    return kernel, total, len(data), sums, hot


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--share", type=float, default=0.006,
                   help="least share of all samples an instruction must hold to be printed")
    args = p.parse_args()
    with open(args.csv, newline="") as f:
        kernel, total, count, sums, hot = hotspots(list(csv.reader(f)), args.share)
    print(f"{kernel}: {total} samples over {count} SASS instructions")
    print("  " + ", ".join(f"{s} {n / max(total, 1):.0%}" for s, n in sums[:8]))
    for index, n, source, top in hot:
        why = ", ".join(f"{s} {k}" for s, k in top)
        print(f"{index:5d} {n / total:6.1%}  {source[:64]:64s} {why}")


if __name__ == "__main__":
    main()
