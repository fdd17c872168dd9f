#!/usr/bin/env python3
"""Inductor's generated code for one op and shape, to read beside ours.

Runs torch.compile's version of `op` at M x N once with Inductor's output
code logged (its Triton source, to stderr) and copies the cubins Triton
built for it (TRITON_CACHE_DIR, a fresh directory) under --out, so that
their SASS can be read with nvdisasm where there is no GPU.

Usage (on the GPU):
    python3 bench/wip/inductor_source.py --op rms_bwd --shape 1x4096 --out $OUT/inductor
"""

import argparse
import glob
import os
import shutil
import sys
import tempfile

CACHE = tempfile.mkdtemp(prefix="triton-cache-")
os.environ["TRITON_CACHE_DIR"] = CACHE

import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from bench import implementations, parse_shapes  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--op", required=True)
    p.add_argument("--shape", required=True, help="MxN")
    p.add_argument("--bundles", default=".out/bundles")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    [(m, n)] = parse_shapes(args.shape)
    torch._logging.set_logs(output_code=True)
    impls = implementations(args.op, m, n, args.bundles)
    impls["compile"]()
    torch.cuda.synchronize()
    os.makedirs(args.out, exist_ok=True)
    for path in glob.glob(os.path.join(CACHE, "**", "*"), recursive=True):
        if path.endswith((".cubin", ".ptx", ".ttgir", ".json")):
            rel = os.path.relpath(path, CACHE).replace(os.sep, "_")
            shutil.copy(path, os.path.join(args.out, rel))
    print(f"copied Triton's artifacts from {CACHE} to {args.out}")


if __name__ == "__main__":
    main()
