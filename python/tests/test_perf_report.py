"""bench/perf_report.py: the table of docs/performance.md from benchmark
JSON, on a synthetic run (no GPU)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "bench", "perf_report.py")


def run_json(tmp_path, name, ops, ceiling=4.0):
    run = {"device": "GPU", "torch": "2.x", "dtype": "bf16", "rounds": 2,
           "copy_ceiling_tbps": {"kernels": ceiling}, "ops": ops}
    path = tmp_path / name
    path.write_text(json.dumps(run))
    return str(path)


def row(m, n, norm, compile_):
    return {"m": m, "n": n, "kernels": {"norm": norm, "compile": compile_, "eager": 1.0,
                                        "copy_at_size": 3.9}}


def test_geomeans_ratios_and_extremes(tmp_path):
    fwd = run_json(tmp_path, "fwd.json", {"rms_fwd": {"rows": [row(1, 2, 4.0, 2.0),
                                                              row(3, 4, 1.0, 2.0)]}})
    bwd = run_json(tmp_path, "bwd.json", {"ln_bwd": {"rows": [row(5, 6, 3.0, 1.0)]}}, 5.0)
    out = subprocess.run([sys.executable, SCRIPT, fwd, bwd], capture_output=True, text=True,
                         check=True).stdout
    lines = out.splitlines()
    assert "copy ceiling 5.00 TB/s" in lines[0]  # the highest of the runs
    # geomean(4, 1) = 2 TB/s = 40% of 5; LN bwd 3 TB/s = 60%.
    assert "| norm | 2.00 (40%) | 3.00 (60%) |" in lines
    assert ("| norm / torch.compile (lowest - highest) | 1.00x (0.50x 3x4 - 2.00x 1x2) | "
            "3.00x (3.00x 5x6 - 3.00x 5x6) |") in lines
