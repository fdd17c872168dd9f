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


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("--share", type=float, default=0.006,
                   help="least share of all samples an instruction must hold to be printed")
    args = p.parse_args()
    with open(args.csv, newline="") as f:
        rows = list(csv.reader(f))
    # Row 0 names the kernel, row 1 the columns.
    header, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(header)}
    reasons = [h for h in header if h.startswith("stall_") and "Not Issued" not in h]

    def count(row, name):
        return int(row[col[name]] or 0)

    total = sum(count(r, SAMPLES) for r in data)
    print(f"{rows[0][1] if len(rows[0]) > 1 else 'kernel'}: {total} samples over "
          f"{len(data)} SASS instructions")
    sums = sorted(((sum(count(r, s) for r in data), s) for s in reasons), reverse=True)
    print("  " + ", ".join(f"{s[6:]} {n / max(total, 1):.0%}" for n, s in sums[:8]))
    for index, r in enumerate(data):
        n = count(r, SAMPLES)
        if n < args.share * total:
            continue
        top = sorted(((count(r, s), s[6:]) for s in reasons), reverse=True)[:2]
        why = ", ".join(f"{s} {k}" for k, s in top if k)
        print(f"{index:5d} {n / total:6.1%}  {r[col['Source']].strip()[:64]:64s} {why}")


if __name__ == "__main__":
    main()
