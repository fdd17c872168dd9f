"""The candidate bundles scripts/autotune-variants.py writes: each output
directory holds them beside an index.json that describes each one (kind, N,
dtype, knobs, bundle name). Read by bench/autotune.py (on the GPU) and by
scripts/check-tuning-table.py (here, where MLIR is)."""

import json
import os


def read_candidates(directories):
    """Every candidate of the comma-separated `directories`, in order: its
    index.json entry plus "path", its bundle's directory. ValueError names
    a directory without an index.json."""
    candidates = []
    for directory in directories.split(","):
        index = os.path.join(directory, "index.json")
        if not os.path.exists(index):
            raise ValueError(f"--candidates: {directory} has no index.json "
                             "(scripts/autotune-variants.py writes one)")
        with open(index) as f:
            candidates += [dict(c, path=os.path.join(directory, c["bundle"]))
                           for c in json.load(f)]
    return candidates
