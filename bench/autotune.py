#!/usr/bin/env python3
"""Autotuner (run on the GPU): times every candidate bundle compiled by
scripts/autotune-variants.py on its shape class and writes the fastest knobs
per class as a tuning table (tuning/h200.json format) that the compiler's
tuning module reads (TuningTable in NormDialect/Tuning/TuningTable.h).

Each candidate is timed at three M (32M, 64M and 128M elements) and scored by
the geometric mean; the log keeps every candidate's TB/s per M (--log-all) so
that a choice depending on M shows up, and the table records the winner's.
"""

import argparse
import collections
import hashlib
import json
import math
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir.launcher import Launcher  # noqa: E402
from bench import TIMERS, min_bytes  # noqa: E402
from candidates import read_candidates  # noqa: E402


DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}


def inputs(kind, m, n, dtype="bf16"):
    dt = DTYPES[dtype]
    x = torch.randn(m, n, device="cuda", dtype=dt)
    w = (1 + 0.1 * torch.randn(n, device="cuda")).to(dt)
    b = (0.1 * torch.randn(n, device="cuda")).to(dt)
    dy = torch.randn(m, n, device="cuda", dtype=dt)
    stats = torch.rand(m, device="cuda") + 0.5
    return {"rms_fwd": [x, w], "ln_fwd": [x, w, b], "rms_bwd": [dy, x, stats, w],
            "ln_bwd": [dy, x, stats, stats, w]}[kind]


def bundle_digest(path):
    """What a bundle launches: its PTX and its manifest (launch shapes)."""
    h = hashlib.sha256()
    for name in ("kernels.ptx", "manifest.json"):
        with open(os.path.join(path, name), "rb") as f:
            h.update(f.read())
    return h.hexdigest()


def write_table(args, entries, merged):
    """Writes `entries` (the classes measured so far) as a tuning table to
    args.out, with the entries of `merged`'s other classes (the table of
    --merge, or None)."""
    # The note says what the table is; which runs wrote which entries is
    # for the commit that lands them, not for the table.
    note = ("written by bench/autotune.py (scripts/autotune-variants.py candidates): "
            "per shape class, the knobs of the fastest candidate, each entry with the "
            "TB/s it measured; scripts/check-tuning-table.py checks that the table "
            "plans the kernels its candidates were")
    if merged:
        measured = {(e["kind"], e["n"], e["element_bytes"]) for e in entries}
        entries = [e for e in merged["entries"]
                   if (e.get("kind"), e["n"], e["element_bytes"]) not in measured] + entries
        entries.sort(key=lambda e: (e.get("kind", ""), e["element_bytes"], e["n"]))
    table = {"device": torch.cuda.get_device_name(), "chip": "sm_90", "note": note,
             "entries": entries}
    with open(args.out, "w") as f:
        json.dump(table, f, indent=1)
    print(f"wrote {args.out}", flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--candidates", default=os.path.join(ROOT, ".out", "tune"),
                   help="directories of candidate bundles with their index.json "
                        "(scripts/autotune-variants.py), comma-separated")
    p.add_argument("--out", default=os.path.join(os.environ.get("OUT", ROOT), "h200.json"))
    p.add_argument("--log-all", action="store_true",
                   help="print every candidate's TB/s at each M")
    p.add_argument("--merge", default="",
                   help="a table whose entries of classes not measured here are kept")
    p.add_argument("--timing", default="graph", choices=sorted(TIMERS),
                   help="graph (CUDA graph replays, events) or kernels (summed kernel "
                        "device time, ../shared/PERF.md's method); see bench/timing.py")
    p.add_argument("--kinds", default="",
                   help="only these kinds' classes (comma-separated, e.g. rms_fwd,ln_fwd)")
    args = p.parse_args()
    timer = TIMERS[args.timing]
    # Several directories pool their candidates per class (e.g. the staged
    # and the streamed families of the forwards).
    try:
        index = read_candidates(args.candidates)
    except ValueError as e:
        p.error(str(e))
    classes = collections.defaultdict(list)
    kinds = set(filter(None, args.kinds.split(",")))
    for c in index:
        if not kinds or c["kind"] in kinds:
            # A class is one dtype's: pooled directories may hold bf16 and
            # f32 candidates of the same kind and N.
            classes[(c["kind"], c["n"], c.get("dtype", "bf16"))].append(c)
    if not classes:
        p.error(f"no candidates of {args.kinds or 'any kind'} in {args.candidates}")
    merged = None
    if args.merge:
        with open(args.merge) as f:
            merged = json.load(f)
    torch.cuda.init()
    entries = []
    for (kind, n, dtype), cands in sorted(classes.items()):
        # Bundles take any M, so a class is scored at three sizes across the
        # public set's range (32M, 64M and 128M elements; it spans
        # 29M-256M): the geometric mean of the TB/s. Split sizes, rows per
        # block and staging depths trade grid size against per-block work
        # differently at each: sweeps scored at 32M + 64M and at 64M + 128M
        # picked opposite knobs for the N = 1024 backwards (staged rows
        # +24% at M = 32768, -7% at M = 65536).
        sizes = [max(1024, (1 << k) // n) for k in (25, 26, 27)]
        eb = cands[0]["element_bytes"]
        args_by_m = {mm: inputs(kind, mm, n, dtype) for mm in sizes}
        timed = []
        # Knobs a kernel does not use compile to the same bundle: each
        # distinct bundle is timed once and every candidate scored by it.
        by_bundle = {}
        for c in cands:
            key = bundle_digest(c["path"])
            if key in by_bundle:
                tbps = by_bundle[key]
            else:
                launcher = Launcher(load_bundle(c["path"]))
                tbps = []
                for mm in sizes:
                    t = timer(lambda: launcher(None, *args_by_m[mm]))
                    tbps.append(min_bytes(kind, mm, n, eb, eb) / t / 1e12)
                by_bundle[key] = tbps
            timed.append((math.exp(sum(map(math.log, tbps)) / len(tbps)), c))
            c["_by_m"] = {str(mm): round(v, 3) for mm, v in zip(sizes, tbps)}
            if args.log_all:
                print(f"  {c['bundle']}: " + " ".join(f"M={mm} {v:.2f}" for mm, v in
                                                       zip(sizes, tbps)), flush=True)
        # Among the candidates of the fastest bundle (one score: one timing),
        # the rule (no knobs) where it is one: knobs the kernel ignored would
        # otherwise reach the classes that take this entry as their nearest.
        timed.sort(key=lambda tc: (-tc[0], not tc[1]["bundle"].endswith("_rule")))
        best_tbps, best = timed[0]
        worst_tbps = timed[-1][0]
        print(f"{kind:8s} {dtype:4s} N={n:<6d} M={','.join(map(str, sizes))} "
              f"best {best_tbps:5.2f} TB/s "
              f"(budget {best['register_budget']}, stages {best['num_stages']}, "
              f"rows/block {best['rows_per_block']}, split {best.get('split_size', '-')}, "
              f"shared stages {best.get('shared_stages', '-')}, "
              f"streamed {best.get('stream_rows', '-')}, "
              f"bulk stores {best.get('bulk_stores', '-')}), "
              f"worst {worst_tbps:5.2f}; all: "
              + " ".join(f"{c['bundle'].split('_', 3)[-1]}={t:.2f}" for t, c in timed[:6]),
              flush=True)
        entries.append({k: best[k] for k in ("n", "element_bytes", "full_operands",
                                             "column_outputs", "row_reductions",
                                             "register_budget", "num_stages",
                                             "rows_per_block", "min_blocks_per_sm",
                                             "shared_stages", "stream_rows",
                                             "bulk_stores")
                        if k in best}
                       | {"measured_tbps": round(best_tbps, 3),
                          "measured_tbps_by_m": best["_by_m"], "kind": kind,
                          # scripts/check-tuning-table.py compiles the class
                          # with the table and compares with this bundle.
                          "candidate": best["bundle"]})
        # Written after every class: a run cut off keeps what it measured.
        write_table(args, entries, merged)



if __name__ == "__main__":
    main()
