#!/usr/bin/env python3
"""Whether two builds of the same bundles launch the same kernels for every
row count M (run here; no GPU needed).

  scripts/same-launches.py OLD_DIR NEW_DIR [--filter ln_fwd_bf16_768]
      [--max-m 300000] [--sass]

For each bundle in both directories and each M from 0 to 1024, every row
count either manifest names (each constant c of its conditions and sizes,
with c - 1 and c + 1: where versions change) and every 997th M up to
--max-m: the launches whose conditions hold at M, in order, with
each kernel's PTX (its name replaced, so renumbered kernels compare equal),
grid, block, cluster, shared memory and parameters. A compiler change that
only drops or renumbers versions (or moves a version bound no M crosses)
keeps them equal; one that changes what some M runs is listed with the
first such M. The bundles' buffers are compared too. With --sass, a
bundle that differs also gets the kernels whose SASS (ptxas, then nvdisasm)
differs, or "SASS identical" where only the PTX does (a directive such as
.minnctapersm that leaves the code as it was). Exit status: 0 when every
bundle compares equal, 1 otherwise.
"""

import argparse
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir.bundle import load_bundle  # noqa: E402  (the runtime's own reading)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_tools import nvdisasm_path, ptxas_path, sass_by_kernel, sass_listing  # noqa: E402


def kernel_texts(ptx):
    """{kernel name: its PTX entry with the name replaced} of a bundle's PTX."""
    kernels = {}
    for match in re.finditer(r"^\.visible \.entry (\w+)\(", ptx, re.M):
        name = match.group(1)
        end = ptx.index("\n}\n", match.start()) + 3
        # Its parameters are named after it (NAME_param_0): every
        # occurrence goes.
        kernels[name] = ptx[match.start():end].replace(name, "KERNEL")
    return kernels


def launches_at(bundle, kernels, m):
    """What a call with M rows launches, function by function, in order
    (Function.launches_at, as the launcher chooses)."""
    chosen = []
    for function in bundle.functions.values():
        for launch in function.launches_at(m):
            rest = {k: v for k, v in launch.items()
                    if k not in ("kernel", "when", "grid", "grid_y")}
            chosen.append((function.name, kernels[launch["kernel"]],
                           function.grid(launch, m), json.dumps(rest, sort_keys=True)))
    return chosen


def constants(expr):
    """The integers in a manifest expression (conditions, sizes)."""
    if isinstance(expr, bool):
        return
    if isinstance(expr, int):
        yield expr
    elif isinstance(expr, dict):
        for value in expr.values():
            yield from constants(value)
    elif isinstance(expr, list):
        for value in expr:
            yield from constants(value)


def rows_to_check(bundles, max_m):
    """The row counts compared: the small ones, those around every constant
    of either bundle's launches, and a sparse sweep."""
    rows = set(range(0, min(1024, max_m) + 1)) | set(range(1024, max_m + 1, 997))
    for bundle in bundles:
        for function in bundle.functions.values():
            for launch in function.launches:
                for key in ("when", "grid", "grid_y"):
                    for c in constants(launch.get(key, 1)):
                        rows.update(m for m in (c - 1, c, c + 1) if 0 <= m <= max_m)
    return sorted(rows)


def compare(old_dir, new_dir, max_m):
    """None if the bundles launch the same for every M checked, else why not."""
    bundles = [load_bundle(old_dir), load_bundle(new_dir)]
    kernels = [kernel_texts(bundle.ptx) for bundle in bundles]
    if [f.buffers for f in bundles[0].functions.values()] != \
            [f.buffers for f in bundles[1].functions.values()]:
        return "buffers differ"
    for m in rows_to_check(bundles, max_m):
        if launches_at(bundles[0], kernels[0], m) != launches_at(bundles[1], kernels[1], m):
            return f"launches differ from M = {m}"
    return None


def sass_differences(old_dir, new_dir, chip, ptxas, nvdisasm):
    """Of the kernels whose PTX differs between two builds of a bundle (by
    name), those whose SASS differs too, as "NAME (A -> B instructions)";
    a kernel in only one build counts as differing."""
    texts, sass = [], []
    for d in (old_dir, new_dir):
        ptx = os.path.join(d, "kernels.ptx")
        with open(ptx) as f:
            texts.append(kernel_texts(f.read()))
        sass.append(sass_by_kernel(sass_listing(ptx, chip, ptxas, nvdisasm)))
    differing = []
    for name in sorted(set(texts[0]) | set(texts[1])):
        if texts[0].get(name) == texts[1].get(name):
            continue
        old, new = sass[0].get(name), sass[1].get(name)
        if old is None or new is None or old != new:
            differing.append(f"{name} ({len(old or [])} -> {len(new or [])} instructions)")
    return differing


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--filter", default="", help="only bundles whose name contains this")
    p.add_argument("--max-m", type=int, default=300000)
    p.add_argument("--sass", action="store_true",
                   help="for a bundle that launches differently, also compare the SASS "
                        "ptxas makes of each kernel whose PTX differs (needs ptxas and "
                        "nvdisasm: $PTXAS, $NVDISASM or PATH)")
    args = p.parse_args()
    tools = (ptxas_path(), nvdisasm_path())
    if args.sass and None in tools:
        sys.exit("--sass needs ptxas and nvdisasm ($PTXAS, $NVDISASM or PATH; "
                 "`pip install nvidia-cuda-nvdisasm`)")
    names = sorted(set(os.listdir(args.old)) & set(os.listdir(args.new)))
    names = [n for n in names if args.filter in n
             and os.path.exists(os.path.join(args.old, n, "manifest.json"))]
    if not names:
        sys.exit(f"no bundles in both {args.old} and {args.new}")
    differing = 0
    for name in names:
        why = compare(os.path.join(args.old, name), os.path.join(args.new, name), args.max_m)
        if why:
            differing += 1
            if args.sass:
                old, new = (os.path.join(d, name) for d in (args.old, args.new))
                with open(os.path.join(new, "manifest.json")) as f:
                    chip = json.load(f).get("target", "sm_90")
                kernels = sass_differences(old, new, chip, *tools)
                why += (f"; SASS differs in {', '.join(kernels)}" if kernels
                        else "; SASS identical")
            print(f"{name}: {why}")
    print(f"{len(names)} bundles, {differing} launching differently")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
