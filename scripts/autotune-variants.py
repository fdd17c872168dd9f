#!/usr/bin/env python3
"""Compiles the autotuner's candidates (run here, where MLIR is): for each
shape class (op kind x N), one bundle per setting of the tuning knobs, into
.out/tune/, with an index.json that bench/autotune.py (run on the GPU) reads.

  scripts/autotune-variants.py [--kinds=ln_bwd,...]   row-resident classes
  scripts/autotune-variants.py --split                split sizes
  scripts/autotune-variants.py --long [--kinds=...]   rows over clusters
  scripts/autotune-variants.py --staged [--kinds=...] rows staged in shared
      memory (depth x budget x rows per block) against the register-prefetch
      knobs of the committed table (or --baseline=TABLE)
  scripts/autotune-variants.py --streamed             forwards: the committed
      table's kernel against rows streamed through L2 (--stream-rows)
  scripts/autotune-variants.py --bulk [--kinds=...]   the committed table's
      kernel with its full outputs stored by each thread (--bulk-stores=0)
      against one bulk copy a row (--bulk-stores=1), where rows are staged

  --dtype=f32 (or f16; default bf16) compiles the candidates for that element
  type into .out/tune-<family>-<dtype>/; the baseline is the table's entry of
  that element size, or, where the table has none, the analytic rule.
"""

import argparse
import concurrent.futures
import functools
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir.programs import program_text  # noqa: E402

COMPILER = os.path.join(ROOT, "build", "bin", "norm-compile")
OUT = os.path.join(ROOT, ".out", "tune")
SIZES = [1024, 2048, 4096, 8192, 16384]
# The tuning key of each kind's main kernel (see TuningKey in NormDialect/Tuning/TuningTable.h).
KEYS = {"rms_fwd": dict(full_operands=1, column_outputs=0, row_reductions=1),
        "ln_fwd": dict(full_operands=1, column_outputs=0, row_reductions=2),
        "rms_bwd": dict(full_operands=2, column_outputs=1, row_reductions=1),
        "ln_bwd": dict(full_operands=2, column_outputs=2, row_reductions=2)}


LONG_SIZES = [16384, 32768, 65536, 131072]
# Staging depends on the row's bytes, not only its power of two: the model
# widths between 4096 and 8192 get classes of their own.
STAGED_SIZES = [1024, 2048, 4096, 5120, 7168, 8192, 16384]
TABLE = os.path.join(ROOT, "tuning", "h200.json")
ELEMENT_BYTES = {"bf16": 2, "f16": 2, "f32": 4}
DTYPE = "bf16"


@functools.lru_cache(maxsize=None)
def read_entries(path):
    """A tuning table's entries (read once per table)."""
    with open(path) as f:
        return json.load(f)["entries"]


def table_entries(kind):
    """The baseline table's entries of `kind` for DTYPE's element size."""
    return [e for e in read_entries(TABLE)
            if e.get("kind") == kind and e["element_bytes"] == ELEMENT_BYTES[DTYPE]]


def nearest_entry(kind, n):
    """The baseline table's entry of (kind, n)'s class nearest in N (as
    TuningTable::lookup), or {}."""
    return min(table_entries(kind), key=lambda e: abs(math.log(e["n"] / n)), default={})


# The register-prefetch knobs of an entry.
PREFETCH_KNOBS = ("register_budget", "num_stages", "rows_per_block", "min_blocks_per_sm")


def table_knobs(kind, n):
    """The nearest entry's register-prefetch knobs (absent ones 0), or {}."""
    best = nearest_entry(kind, n)
    return {k: best.get(k, 0) for k in PREFETCH_KNOBS} if best else {}


def table_entry(kind, n):
    """Every knob the nearest entry sets, its staging depth too."""
    best = nearest_entry(kind, n)
    return {k: best[k] for k in PREFETCH_KNOBS + ("shared_stages",) if k in best}


def knobs(kind, n, family):
    """The candidates' knobs of class (kind, n) in `family` (a FAMILIES
    key; None: the register-prefetch knobs)."""
    if family == "bulk":
        # The table's kernel with the threads' stores and with bulk stores
        # (a class whose kernel does not allow them compiles to the same
        # kernel twice and is left out, see same_kernels).
        entry = table_entry(kind, n)
        return [dict(entry, bulk_stores=False), dict(entry, bulk_stores=True)]
    if family == "streamed":
        # The table's kernel for this class, and the same class streamed
        # (the streaming kernel has no other knobs; the entry keeps the
        # table's, so a class that goes back to row-resident keeps them).
        if not kind.endswith("fwd"):
            return []
        entry = table_entry(kind, n)
        return [dict(entry, stream_rows=False, table=1), dict(entry, stream_rows=True)]
    if family == "staged":
        # The committed register-prefetch knobs, and rows staged 2-4 deep
        # with each register budget (threads per row) and, for the forward,
        # rows per block (the walk the stages pipeline).
        # Without a table entry of this element size the analytic rule
        # (unchanged) competes too. Four-byte rows take twice the registers
        # and shared memory per element: their budgets and rows per block
        # are swept lower (down to one float4 a thread, one row a block).
        base = [dict(table_knobs(kind, n), shared_stages=0, table=1)]
        if not table_entries(kind):
            base.append(dict(rule=1))
        wide = ELEMENT_BYTES[DTYPE] == 4
        if kind.endswith("fwd"):
            return base + [dict(register_budget=b, num_stages=0, rows_per_block=r,
                                min_blocks_per_sm=0, shared_stages=d)
                           for d, b, r in itertools.product(
                               (2, 3, 4), (4, 8, 16) if wide else (16, 32),
                               (1, 2, 4) if wide else (2, 3, 4, 8))]
        return base + [dict(register_budget=b, num_stages=0, rows_per_block=0,
                            min_blocks_per_sm=0, shared_stages=d)
                       for d, b in itertools.product((2, 3, 4),
                                                     (8, 16, 32) if wide else (16, 32, 48))]
    if family == "long":
        # Rows too long for one block: cluster size (1 = the split-rows path),
        # register budget (slice per block), rows per cluster (forward) or
        # split (backward), pipeline depth.
        if kind.endswith("fwd"):
            return [dict(max_cluster_size=c, register_budget=b, num_stages=s, rows_per_block=r)
                    for c, b, s, r in itertools.product((1, 16), (32, 64), (2, 3), (2, 4, 8, 16))]
        return [dict(max_cluster_size=c, register_budget=b, num_stages=s, split_size=sp)
                for c, b, s, sp in itertools.product((1, 16), (32, 48, 64), (1, 2), (32, 64))]
    if family == "split":
        # Split size of the backward's column partials (rows per partial);
        # the other knobs come from the committed table.
        return [dict(split_size=s) for s in (32, 64, 128, 256)] if kind.endswith("bwd") else []
    # min_blocks_per_sm = 2 caps registers so two blocks fit an SM (a few
    # spills for twice the warps).
    if kind.endswith("fwd"):
        return [dict(register_budget=b, num_stages=s, rows_per_block=r, min_blocks_per_sm=m)
                for b, s, r, m in itertools.product((8, 16, 32), (2, 3), (2, 4, 8), (0, 2))]
    return [dict(register_budget=b, num_stages=s, rows_per_block=0, min_blocks_per_sm=m)
            for b, s, m in itertools.product((16, 32, 48), (1, 2, 3), (0, 2))]


# The knobs a tuning-table entry holds (TuningTable::load).
ENTRY_KNOBS = ("register_budget", "num_stages", "rows_per_block", "min_blocks_per_sm",
               "shared_stages", "stream_rows", "bulk_stores")


def entry_table(kind, n, knobs, directory):
    """A tuning table of one entry, this class's with `knobs`, in
    `directory`: a candidate compiled with it is the kernel the committed
    table plans once bench/autotune.py writes the same knobs there. (A
    norm-compile option would reach every kernel of the bundle and feed the
    passes before the plan, e.g. --register-budget decides which rows are
    long; an entry reaches only its class's kernel, and only its plan.)"""
    entry = dict(n=n, element_bytes=ELEMENT_BYTES[DTYPE], **KEYS[kind],
                 **{key: knobs[key] for key in ENTRY_KNOBS if key in knobs})
    path = os.path.join(directory, "table.json")
    with open(path, "w") as f:
        json.dump({"entries": [entry]}, f)
    return path


def variant_name(kind, n, k):
    if k.get("rule"):
        return f"{kind}_{n}_rule"
    if "bulk_stores" in k:
        return f"{kind}_{n}_bulk{int(k['bulk_stores'])}"
    if "stream_rows" in k:
        return f"{kind}_{n}_stream{int(k['stream_rows'])}"
    if "shared_stages" in k:
        if k.get("table"):
            return f"{kind}_{n}_table_d0"
        return f"{kind}_{n}_b{k['register_budget']}_r{k['rows_per_block']}_d{k['shared_stages']}"
    if "max_cluster_size" in k:
        return f"{kind}_{n}_" + "_".join(f"{key}{v}" for key, v in sorted(k.items()))
    if "split_size" in k:
        return f"{kind}_{n}_split{k['split_size']}"
    return (f"{kind}_{n}_b{k['register_budget']}_s{k['num_stages']}_r{k['rows_per_block']}"
            f"_m{k['min_blocks_per_sm']}")


def compile_variant(kind, n, k):
    name = variant_name(kind, n, k)
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "class.mlir")
        with open(src, "w") as f:
            f.write(program_text(kind, n, DTYPE, eps=1e-6))
        cmd = [COMPILER, src, "-o", os.path.join(OUT, name), "--quiet"]
        if k.get("rule"):
            cmd.append("--tuning-table=none")
        elif "max_cluster_size" in k:
            # Long rows: their knobs are options only (the table has no
            # long-row classes).
            cmd += ["--tuning-table=none", f"--max-cluster-size={k['max_cluster_size']}",
                    f"--register-budget={k['register_budget']}",
                    f"--num-stages={k['num_stages']}"]
            if "rows_per_block" in k:
                cmd.append(f"--rows-per-block={k['rows_per_block']}")
            if "split_size" in k:
                cmd.append(f"--split-size={k['split_size']}")
        elif "split_size" in k:
            cmd.append(f"--split-size={k['split_size']}")
        else:
            cmd.append(f"--tuning-table={entry_table(kind, n, k, tmp)}")
        r = subprocess.run(cmd, capture_output=True, text=True)
    return name, r.returncode, r.stderr


def same_kernels(index):
    """The candidates of `index` without the classes whose candidates all
    compiled to the same PTX (an option the kernel ignores)."""
    classes = {}
    for c in index:
        classes.setdefault((c["kind"], c["n"]), []).append(c)
    kept = []
    for cands in classes.values():
        texts = set()
        for c in cands:
            with open(os.path.join(OUT, c["bundle"], "kernels.ptx")) as f:
                texts.add(f.read())
        if len(texts) > 1:
            kept += cands
    return kept


# Knob families: output directory (under .out/) and what they sweep.
FAMILIES = {
    "split": ("tune-split", "split sizes of the backwards' column partials"),
    "long": ("tune-long", "rows over clusters: cluster size, budget, rows, stages"),
    "staged": ("tune-staged", "rows staged in shared memory (depth x budget x rows "
                              "per block) against the baseline's knobs"),
    "streamed": ("tune-streamed", "forwards: the baseline's kernel against rows "
                                  "streamed through L2"),
    "bulk": ("tune-bulk", "the baseline's kernel with its full outputs stored by "
                          "each thread against one bulk copy a row"),
}


def parse_args(argv):
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Families: " + ", ".join(f"--{f}" for f in FAMILIES)
        + " (at most one; none: the register-prefetch knobs).")
    family = p.add_mutually_exclusive_group()
    for name, (_, what) in FAMILIES.items():
        family.add_argument(f"--{name}", action="store_true", help=what)
    p.add_argument("--kinds", default=",".join(KEYS),
                   help="comma-separated kinds (default: all of " + ", ".join(KEYS) + ")")
    p.add_argument("--sizes", default="", help="only these N (comma-separated)")
    p.add_argument("--baseline", default=TABLE,
                   help="the table whose entries the candidates compete with "
                        "(default: the committed tuning/h200.json)")
    p.add_argument("--dtype", default="bf16", choices=sorted(ELEMENT_BYTES),
                   help="the candidates' element type")
    args = p.parse_args(argv)
    args.kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in args.kinds if k not in KEYS]
    if unknown or not args.kinds:
        p.error(f"--kinds: expected some of {', '.join(KEYS)}, got {','.join(unknown) or 'none'}")
    try:
        args.sizes = {int(n) for n in args.sizes.split(",") if n}
    except ValueError:
        p.error(f"--sizes: expected comma-separated row widths, got {args.sizes!r}")
    if not os.path.exists(args.baseline):
        p.error(f"--baseline: no such table {args.baseline}")
    return args


def main(argv=None):
    global OUT, TABLE, DTYPE
    args = parse_args(argv)
    TABLE, DTYPE, kinds, only_sizes = args.baseline, args.dtype, args.kinds, args.sizes
    family = next((f for f in FAMILIES if getattr(args, f)), None)
    OUT = os.path.join(ROOT, ".out", FAMILIES[family][0] if family else "tune")
    if DTYPE != "bf16":
        OUT += f"-{DTYPE}"
    family_sizes = (LONG_SIZES if family == "long"
                    else STAGED_SIZES if family in ("staged", "streamed", "bulk") else SIZES)
    sizes = [n for n in family_sizes if not only_sizes or n in only_sizes]
    if not sizes:
        sys.exit(f"--sizes: none of {', '.join(map(str, sorted(only_sizes)))} is among "
                 f"this family's widths ({', '.join(map(str, family_sizes))})")
    os.makedirs(OUT, exist_ok=True)
    jobs, index = [], []
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 2) as pool:
        for kind in kinds:
            for n in sizes:
                for k in knobs(kind, n, family):
                    jobs.append((kind, n, k, pool.submit(compile_variant, kind, n, k)))
        for kind, n, k, fut in jobs:
            name, rc, err = fut.result()
            if rc:
                print(f"FAILED {name}: {err}", file=sys.stderr)
                continue
            k = {key: v for key, v in k.items() if key not in ("table", "rule")}
            index.append(dict(bundle=name, kind=kind, n=n, dtype=DTYPE,
                              element_bytes=ELEMENT_BYTES[DTYPE],
                              **KEYS[kind], **{"register_budget": 0, "num_stages": 0,
                                               "rows_per_block": 0, **k}))
    if family == "bulk":
        index = same_kernels(index)
    with open(os.path.join(OUT, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print(f"{len(index)} candidate bundles in {OUT}")


if __name__ == "__main__":
    main()
