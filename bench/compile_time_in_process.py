#!/usr/bin/env python3
"""Compile time as norm_mlir sees it: compile_program on a cache miss, in
the process that already loaded libNormCAPI.so (the C API), so without the
~0.04 s a norm-compile or norm-opt process spends starting (loading and
relocating libMLIR and libLLVM). Median of 7 per example, each run with an
empty cache. Needs the C++ build (libNormCAPI.so); no GPU."""

import glob
import os
import statistics
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from norm_mlir import compiler  # noqa: E402


def main():
    if compiler._library() is None:
        print("compile_time_in_process: no libNormCAPI.so (build first)")
        return 1
    examples = sorted(glob.glob(os.path.join(ROOT, "examples", "*.mlir"))) + sorted(
        glob.glob(os.path.join(ROOT, "test", "Target", "Inputs", "*_long.mlir")))
    for path in examples:
        program = open(path).read()
        times = []
        for _ in range(7):
            with tempfile.TemporaryDirectory() as cache:
                os.environ["NORM_MLIR_CACHE"] = cache
                start = time.perf_counter()
                compiler.compile_program(program)
                times.append(time.perf_counter() - start)
        print(f"{os.path.basename(path):22s} in-process   {statistics.median(times):6.3f} s "
              "(median of 7, compile_program on a cache miss: C API, bundle written and loaded)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
