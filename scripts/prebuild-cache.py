#!/usr/bin/env python3
"""Compiles the plain norms' programs the GPU tests need (tests/gpu_cases.py)
into a bundle cache directory (default .out/cache), to carry to a GPU
machine without the compiler:
NORM_MLIR_CACHE=.out/cache python3 -m pytest python/tests/test_torch_gpu.py
-k "not (fused_add or l2 or gated or fp8)". The wheel (bench/wheel_gpu.sh)
carries the compiler and needs no cache."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))
os.environ.setdefault("NORM_MLIR_CACHE", os.path.join(ROOT, ".out", "cache"))

from norm_mlir.compiler import compile_program  # noqa: E402
from norm_mlir.programs import op_program  # noqa: E402
import gpu_cases  # noqa: E402

count = 0
for kind, n, t, w, flags in gpu_cases.programs():
    compile_program(op_program(kind, n, t, w, **flags), chip="sm_90")
    count += 1
print(f"{count} programs in {os.environ['NORM_MLIR_CACHE']}")
