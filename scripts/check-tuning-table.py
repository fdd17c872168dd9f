#!/usr/bin/env python3
"""Checks that a tuning table plans the kernels its autotuner measured (run
here, where MLIR is): for every entry whose `candidate` (the winning bundle
bench/autotune.py recorded) is in the candidates directory, compiles the
entry's class with the table and compares what the two bundles launch at
the row counts the entry was measured at (its measured_tbps_by_m): each
kernel's PTX, grid, block and shared memory (scripts/same-launches.py). The
other M may differ: an option given to norm-compile reaches every kernel of
the bundle, a table entry only the kernels of its class.

  scripts/check-tuning-table.py --candidates .out/tune-staged-f32 [--table T]

A difference means the table's knobs do not reproduce the measured kernel,
e.g. several candidates compiled to one bundle and the knobs recorded for it
plan another kernel once read from the table; exit status 1 then.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from candidates import read_candidates  # noqa: E402
from norm_mlir.bundle import load_bundle  # noqa: E402
from norm_mlir.programs import program_text  # noqa: E402
_spec = importlib.util.spec_from_file_location(
    "same_launches", os.path.join(ROOT, "scripts", "same-launches.py"))
same_launches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(same_launches)

COMPILER = os.path.join(ROOT, "build", "bin", "norm-compile")


def launches(path, rows):
    """What the bundle at `path` launches at each of `rows`."""
    bundle = load_bundle(path)
    kernels = same_launches.kernel_texts(bundle.ptx)
    return [same_launches.launches_at(bundle, kernels, m) for m in rows]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--candidates", required=True,
                   help="directories of candidate bundles with their index.json "
                        "(scripts/autotune-variants.py), comma-separated")
    p.add_argument("--table", default=os.path.join(ROOT, "tuning", "h200.json"))
    args = p.parse_args()
    try:
        index = {c["bundle"]: c for c in read_candidates(args.candidates)}
    except ValueError as e:
        sys.exit(str(e))
    with open(args.table) as f:
        entries = json.load(f)["entries"]
    checked = differ = 0
    for e in entries:
        cand = index.get(e.get("candidate", ""))
        # Candidate names do not carry the dtype: one of another class
        # (bf16's of the same kind, N and knobs) is not this entry's.
        if cand is None or any(cand.get(k) != e.get(k) for k in ("kind", "n", "element_bytes")):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "class.mlir")
            with open(src, "w") as f:
                f.write(program_text(cand["kind"], cand["n"], cand.get("dtype", "bf16"),
                                     eps=1e-6))
            out = os.path.join(tmp, "bundle")
            r = subprocess.run([COMPILER, src, "-o", out, "--quiet",
                                f"--tuning-table={args.table}"],
                               capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{cand['bundle']}: norm-compile failed: {r.stderr}")
            rows = sorted(map(int, e.get("measured_tbps_by_m", {}))) or [cand["n"]]
            same = launches(out, rows) == launches(
                cand["path"], rows)
        checked += 1
        if not same:
            differ += 1
            print(f"DIFFERS {cand['kind']} N = {cand['n']} ({cand.get('dtype', 'bf16')}): "
                  f"the table launches other kernels than candidate {cand['bundle']} "
                  f"at M = {', '.join(map(str, rows))}")
    print(f"{checked} entries checked against their candidates, {differ} differ")
    if not checked:
        sys.exit(f"no entry of {args.table} names a candidate in {args.candidates}")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
