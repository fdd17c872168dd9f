"""Session 48's audit (here, no GPU): compiles each entry of tuning/h200.json's
class three ways, with the table, with the entry's knobs as norm-compile
options (how the autotuner compiled candidates until session 48) and with the
rule alone (--tuning-table=none), and prints whether the table's bundle
launches the same kernels as each of the other two at the M the entry was
measured at (scripts/check-tuning-table.py's comparison). Run from the
repository root: python3 bench/wip/table-vs-options-audit.py"""
import importlib.util
import json
import subprocess
import sys
import tempfile

sys.path.insert(0, "python")
spec = importlib.util.spec_from_file_location("ct", "scripts/check-tuning-table.py")
ct = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ct)
from norm_mlir.programs import program_text  # noqa: E402

C = "build/bin/norm-compile"
for e in json.load(open("tuning/h200.json"))["entries"]:
    dt = "bf16" if e["element_bytes"] == 2 else "f32"
    with tempfile.TemporaryDirectory() as tmp:
        src = f"{tmp}/p.mlir"
        open(src, "w").write(program_text(e["kind"], e["n"], dt, eps=1e-6))
        subprocess.run([C, src, "-o", f"{tmp}/t", "--quiet", "--tuning-table=tuning/h200.json"],
                       check=True)
        subprocess.run([C, src, "-o", f"{tmp}/r", "--quiet", "--tuning-table=none"], check=True)
        opts = ["--tuning-table=none", f"--register-budget={e['register_budget'] or 32}",
                f"--rows-per-block={e['rows_per_block']}",
                f"--min-blocks-per-sm={e['min_blocks_per_sm']}" if "min_blocks_per_sm" in e else "",
                f"--num-stages={e['num_stages']}" if e["num_stages"] else ""]
        if e.get("shared_stages", -1) >= 0:
            opts.append(f"--shared-stages={e['shared_stages']}")
        if e.get("stream_rows"):
            opts.append("--stream-rows")
        subprocess.run([C, src, "-o", f"{tmp}/o", "--quiet"] + [o for o in opts if o], check=True)
        rows = sorted(map(int, e["measured_tbps_by_m"]))
        table = ct.launches(f"{tmp}/t", rows)
        print(f"{e['kind']:8s} {e['n']:6d} {dt:5s} M = {rows}: table "
              f"{'=' if table == ct.launches(f'{tmp}/o', rows) else '!='} options, "
              f"{'=' if table == ct.launches(f'{tmp}/r', rows) else '!='} rule")
