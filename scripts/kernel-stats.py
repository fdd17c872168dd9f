#!/usr/bin/env python3
"""Registers, spills and occupancy of the kernels in bundle directories,
from ptxas (run here; no GPU needed).

  scripts/kernel-stats.py [--filter ln_fwd_bf16] [--fail-on-spills] [--waves | --fail-on-waves]
      [DIR ...]
      (default: .out/bundles/*; --fail-on-spills: exit 1 if any kernel
      spills more than --allow-spills BUNDLE/KERNEL=BYTES grants it, 77 if
      ptxas is missing, for ctest; --waves: list the launches whose grid
      stops growing with M, a split kernel's partial rows or a persistent
      grid, at more blocks than one wave of what ptxas lets an SM hold;
      --fail-on-waves: that, and exit 1 if there are any)

For every launch of every bundle: block size, cluster size, shared memory
(static from ptxas, dynamic from the manifest), registers and spill bytes
(ptxas -v: the larger of its spill stores and loads, what --allow-spills
bounds), and the resident blocks and warps per SM those allow on an
H100/H200 (65536 registers allocated per warp in units of 256, whole
warps in each of the four quarters of the register file, 228 KB of
shared memory with 1 KB reserved per block, 2048 threads, 32 blocks). With
nvdisasm on PATH (or $NVDISASM; `pip install nvidia-cuda-nvdisasm`), also
the kernel's static SASS instruction count and its global loads placed after
a global store (ld>st), which wait on everything before that store. What the
tuning rules estimate (estimateBlocksPerSM) is a prediction; this is what
ptxas made of it.
"""

import argparse
import glob
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_tools import nvdisasm_path, ptxas_path, sass_by_kernel  # noqa: E402

# Hopper (sm_90) per-SM limits.
REGISTERS_PER_SM = 65536
REGISTER_UNIT_PER_WARP = 256
# The register file is split among the SM's four sub-partitions, and each
# warp's registers come from one of them: whole warps per quarter.
SUB_PARTITIONS = 4
SHARED_PER_SM = 228 * 1024
SHARED_RESERVED_PER_BLOCK = 1024
THREADS_PER_SM = 2048
BLOCKS_PER_SM = 32


# The SMs of an H100 SXM / H200, for --waves.
NUM_SMS = 132
# Row counts at which --waves reads a grid: below M = F x 256 a split
# kernel's grid stays at about its F partial rows a wave (at least 132; the
# rows round up per partial row, so a little under F), where a grid of one
# block per row or per few rows doubles.
PLATEAU_ROWS = (16384, 32768)


def plateau_grid(grid, evaluate):
    """The grid a launch keeps as M grows (its partial rows or persistent
    blocks), or None where it grows with M; `evaluate` reads manifest size
    expressions (norm_mlir.bundle.evaluate)."""
    if isinstance(grid, int):
        return None
    low, high = (evaluate(grid, m) for m in PLATEAU_ROWS)
    return max(low, high) if high < 1.5 * low else None


def blocks_per_sm(threads, registers, shared_bytes):
    """Resident blocks of one kernel per SM, and which limit binds."""
    warps = math.ceil(threads / 32)
    per_warp = math.ceil(max(registers, 1) * 32 / REGISTER_UNIT_PER_WARP) * REGISTER_UNIT_PER_WARP
    limits = {"threads": THREADS_PER_SM // (warps * 32),
              "registers": SUB_PARTITIONS * (REGISTERS_PER_SM // SUB_PARTITIONS // per_warp)
                           // warps,
              "blocks": BLOCKS_PER_SM}
    if shared_bytes:
        limits["shared"] = SHARED_PER_SM // (shared_bytes + SHARED_RESERVED_PER_BLOCK)
    limit = min(limits, key=limits.get)
    return limits[limit], limit


def add_sass_stats(sass, stats):
    """Adds to each kernel's entry of `stats` from nvdisasm's listing `sass`:
    its instruction count ("sass") and its global loads placed after a
    global store ("loads_after_stores"). ptxas keeps a load below a store
    that may alias it, so such a load waits on everything before the store
    (a streamed output pass keeps one sweep's loads in flight that way)."""
    for name, instructions in sass_by_kernel(sass).items():
        if name not in stats:
            continue
        entry, stored = stats[name], False
        for instruction in instructions:
            entry["sass"] = entry.get("sass", 0) + 1
            if "STG" in instruction:
                stored = True
            elif "LDG" in instruction and stored:
                entry["loads_after_stores"] = entry.get("loads_after_stores", 0) + 1


def compile_stats(ptx, chip, ptxas, nvdisasm):
    """Per entry: registers, spill store/load bytes, static shared memory,
    and (with nvdisasm) what add_sass_stats counts."""
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        out = subprocess.run([ptxas, f"-arch={chip}", "-v", ptx, "-o", cubin],
                             capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(out.stderr.strip())
        stats, entry = {}, None
        for line in out.stderr.splitlines():
            if m := re.search(r"Compiling entry function '(\w+)'", line):
                entry = stats.setdefault(m.group(1), {})
            elif entry is not None and (m := re.search(
                    r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)):
                entry["spill_stores"], entry["spill_loads"] = map(int, m.groups())
            elif entry is not None and (m := re.search(r"Used (\d+) registers", line)):
                entry["registers"] = int(m.group(1))
                s = re.search(r"(\d+) bytes smem", line)
                entry["static_shared"] = int(s.group(1)) if s else 0
        if nvdisasm:
            sass = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True).stdout
            add_sass_stats(sass, stats)
        return stats


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dirs", nargs="*")
    p.add_argument("--filter", default="")
    p.add_argument("--fail-on-spills", action="store_true")
    p.add_argument("--waves", action="store_true",
                   help="list launches whose grid plateaus past one wave of resident blocks")
    p.add_argument("--fail-on-waves", action="store_true",
                   help="--waves, and exit 1 if any launch plateaus past one wave")
    p.add_argument("--allow-spills", action="append", default=[], metavar="BUNDLE/KERNEL=BYTES",
                   help="with --fail-on-spills: a kernel that may spill up to BYTES "
                        "(stores and loads each); repeatable")
    args = p.parse_args()
    args.waves = args.waves or args.fail_on_waves
    allowed = {}
    for entry in args.allow_spills:
        key, sep, limit = entry.rpartition("=")
        if not sep or "/" not in key or not limit.isdigit():
            p.error(f"--allow-spills wants BUNDLE/KERNEL=BYTES, got {entry!r}")
        allowed[key] = int(limit)
    ptxas = ptxas_path()
    if ptxas is None:
        print("kernel-stats: ptxas not found (set $PTXAS)", file=sys.stderr)
        return 77 if args.fail_on_spills or args.fail_on_waves else 1
    nvdisasm = nvdisasm_path()
    dirs = args.dirs or sorted(glob.glob(os.path.join(ROOT, ".out", "bundles", "*")))
    spilling, failed, over_one_wave = [], [], []
    evaluate = None
    if args.waves:
        sys.path.insert(0, os.path.join(ROOT, "python"))
        from norm_mlir.bundle import evaluate
    print(f"{'bundle':28} {'kernel':15} {'block':>5} {'clu':>3} {'regs':>4} {'spill':>5} "
          f"{'smem KB':>7} {'blk/SM':>6} {'warps/SM':>8} {'limit':>9}"
          + (f" {'SASS':>6} {'ld>st':>5}" if nvdisasm else ""))
    for d in dirs:
        name = os.path.basename(os.path.normpath(d))
        manifest = os.path.join(d, "manifest.json")
        if args.filter not in name or not os.path.exists(manifest):
            continue
        with open(manifest) as f:
            desc = json.load(f)
        try:
            stats = compile_stats(os.path.join(d, "kernels.ptx"), desc.get("chip", "sm_90"),
                                  ptxas, nvdisasm)
        except RuntimeError as e:
            print(f"{name:28} ptxas failed: {e}")
            failed.append(name)
            continue
        for function in desc["functions"]:
            for launch in function["launches"]:
                s = stats.get(launch["kernel"], {})
                shared = s.get("static_shared", 0) + launch.get("shared_bytes", 0)
                blocks, limit = blocks_per_sm(launch["block"], s.get("registers", 0), shared)
                key = f"{name}/{launch['kernel']}"
                spilled = max(s.get("spill_stores", 0), s.get("spill_loads", 0))
                if spilled > allowed.get(key, 0):
                    spilling.append(key)
                warps = blocks * math.ceil(launch["block"] / 32)
                if evaluate and launch.get("cluster", 1) == 1 and blocks > 0:
                    grid = plateau_grid(launch["grid"], evaluate)
                    if grid and grid > NUM_SMS * blocks:
                        over_one_wave.append(f"{key}: {grid} blocks, {blocks} an SM "
                                             f"({grid / (NUM_SMS * blocks):.2f} waves)")
                print(f"{name:28} {launch['kernel']:15} {launch['block']:5} "
                      f"{launch.get('cluster', 1):3} {s.get('registers', 0):4} "
                      f"{spilled:5} {shared / 1024:7.1f} {blocks:6} "
                      f"{warps:8} {limit:>9}"
                      + (f" {s.get('sass', 0):6} {s.get('loads_after_stores', 0):5}"
                         if nvdisasm else ""))
    if args.waves:
        print(f"over one wave: {len(over_one_wave)}")
        for line in over_one_wave:
            print(f"  {line}")
    if args.fail_on_spills and (spilling or failed):
        print(f"kernel-stats: spills in {', '.join(spilling) or 'none'}; "
              f"ptxas failed on {', '.join(failed) or 'none'}", file=sys.stderr)
        return 1
    if args.fail_on_waves and over_one_wave:
        print(f"kernel-stats: past one wave: {', '.join(over_one_wave)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
