#!/usr/bin/env python3
"""compute-sanitizer over the GPU check's bundles (run on the GPU machine).

  python3 bench/sanitize.py --bundles .out/matrix --bundles .out/bundles \
      --norm-run build/runtime/norm-run [--tools memcheck,racecheck,synccheck] \
      [--jobs 12] [--max-elements 4194304]

For every bundle in the directories and every tool, runs norm-run (the C++
runtime, no PyTorch) under `compute-sanitizer --tool <tool>` on the row
counts where the bundle's versions change (the bounds on M in its launch
conditions, as bench/gpu_check.py picks them) plus a few fixed ones (1, 2,
37, 300, 4097, 9362: one block, the short-rows kernels, split partials over
two waves), up to --max-elements elements of x. Only norm's kernels are
instrumented (kernel names containing norm_). Prints one line per bundle and tool
with the sanitizer's error count (racecheck's warnings counted with its
errors) and ends with the totals; exit 1 if any error was reported or a run
failed to complete.
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir.bundle import version_edges  # noqa: E402

FIXED_ROWS = [1, 2, 37, 300, 4097, 9362]


def rows_for(bundle, max_elements):
    with open(os.path.join(bundle, "manifest.json")) as f:
        manifest = json.load(f)
    x = manifest["functions"][0]["arguments"][0]["shape"]
    n = x[-1] if isinstance(x[-1], int) else 1
    rows = set(FIXED_ROWS) | set(version_edges(manifest))
    return sorted(m for m in rows if m * n <= max_elements) or [1]


def sanitize(sanitizer, norm_run, bundle, tool, rows, timeout):
    argv = [sanitizer, "--tool", tool, "--kernel-name", "kns=norm_",
            "--error-exitcode", "86", "--print-limit", "20",
            norm_run, bundle, ",".join(map(str, rows))]
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timed out after {timeout} s"
    out = r.stdout + r.stderr
    # memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck
    # with "RACECHECK SUMMARY: H hazards displayed (E errors, W warnings)":
    # its warnings count too.
    found = re.findall(r"ERROR SUMMARY: (\d+) error", out)
    found += [int(e) + int(w) for e, w in re.findall(
        r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) errors?, (\d+) warnings?\)", out)]
    if not found:
        return None, out[-3000:]
    errors = sum(int(e) for e in found)
    return errors, out[-3000:] if errors or r.returncode == 86 else ""


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bundles", action="append", required=True)
    p.add_argument("--norm-run", required=True)
    p.add_argument("--tools", default="memcheck,racecheck,synccheck")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 4)
    p.add_argument("--max-elements", type=int, default=4 << 20)
    p.add_argument("--timeout", type=float, default=300)
    p.add_argument("--filter", default="")
    args = p.parse_args()
    sanitizer = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    bundles = [os.path.join(d, b) for d in args.bundles for b in sorted(os.listdir(d))
               if args.filter in b and os.path.exists(os.path.join(d, b, "manifest.json"))]
    tools = args.tools.split(",")
    totals = {t: 0 for t in tools}
    incomplete = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        jobs = {pool.submit(sanitize, sanitizer, args.norm_run, b, t,
                            rows_for(b, args.max_elements), args.timeout): (b, t)
                for t in tools for b in bundles}
        for job in concurrent.futures.as_completed(jobs):
            bundle, tool = jobs[job]
            errors, detail = job.result()
            name = os.path.basename(bundle)
            if errors is None:
                incomplete += 1
                print(f"INCOMPLETE {tool:9s} {name}: {detail.strip()[-600:]}", flush=True)
                continue
            totals[tool] += errors
            print(f"{'ok  ' if not errors else 'FAIL'} {tool:9s} {name}: {errors} errors",
                  flush=True)
            if errors:
                print(detail, flush=True)
    summary = ", ".join(f"{t} {n} errors" for t, n in totals.items())
    print(f"{len(bundles)} bundles x {len(tools)} tools: {summary}; {incomplete} incomplete")
    return 1 if incomplete or any(totals.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
