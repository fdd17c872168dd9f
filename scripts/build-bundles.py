#!/usr/bin/env python3
"""Compiles the bundles the GPU check and the benchmark need into .out/bundles.

Usage: scripts/build-bundles.py [--out DIR] [--jobs 2]
       scripts/build-bundles.py --bench-only --flags=--shared-stages=0 --out .out/prefetch
       scripts/build-bundles.py --n 896,2304 --out .out/hidden-sizes
       scripts/build-bundles.py --n 1024,4096 --dtype f32 --out .out/f32
       scripts/build-bundles.py --dtype-matrix --chips sm_90,sm_90a --out .out/matrix
Each bundle is <kind>_<dtype>_<N>[_variant]/ with kernels.ptx + manifest.json.
--dtype-matrix builds every op with activations x in {bf16, f16, f32} and
weight/bias in {same, bf16, f16, f32, none}, at one N of each layout class
(warp rows, block rows, staged rows, a ragged N, a cluster, a streamed row),
each op's training and inference forwards, the residual add fused with each
op, the offset (Gemma) RMSNorm and the bias-free LayerNorm: the combinations
users run that the default set does not (test/chips-ptxas.sh, and bench/gpu_check.py against
float64 on the GPU). --chips assembles each bundle for every chip listed.
--bench-only builds the plain bf16 bundles of the public N only (and the
inference forwards, <kind>_bf16_<N>_infer, which the benchmark times, and
the fused residual adds, <kind>_bf16_<N>_add[_infer], bench/fused_add.py's),
--bf16-only those of every N (test/bf16-bundles-no-spills.sh), --family
the L2 norm, gated RMSNorm and head-row (QK-norm) bundles of
bench/family.py,
--only REGEX keeps the bundles whose names it matches, and
--flags passes extra norm-compile options to every bundle: an A/B directory
for bench/bench.py --bundles. Each bundle's PTX is assembled with ptxas
(sm_90) where ptxas exists, so a kernel the GPU would refuse to load (too
much shared memory, too many registers a block) counts as failed here
rather than on the GPU machine; --no-ptxas skips that.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir.programs import program_text  # noqa: E402
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_tools import ptxas_path  # noqa: E402

PUBLIC_N = [1024, 2048, 4096, 5120, 7168, 8192, 16384, 32768, 65536, 131072]
# Hidden sizes of common language models that the public set lacks (GPT-2
# and BERT 768, 1536, Phi-2 2560, Llama-3.2-3B 3072, 6144, GPT-3 12288):
# the tuning table holds none of them, so they take its nearest class or
# the rule (bench.py's "llm" shapes).
MODEL_N = [768, 1536, 2560, 3072, 6144, 12288]
# Rows shorter than any model's above that the forwards stream.
SHORT_STREAMED_N = [256, 640]
KINDS = ["rms_fwd", "rms_bwd", "ln_fwd", "ln_bwd"]
# The programs written as order-typed IR (norm_mlir.order_programs).
FAMILY_KINDS = ["l2_fwd", "l2_bwd", "gated_fwd", "gated_bwd"]
# Rows of attention heads and Gated DeltaNet's heads (QK-norm, L2 norm,
# gated norm over head_dim), and a ragged one.
HEAD_N = [64, 100, 128, 256]


def bundle_name(kind, dtype, n, variant=""):
    return f"{kind}_{dtype}_{n}{('_' + variant) if variant else ''}"


def variants():
    """(kind, dtype, n, variant, program kwargs)"""
    out = []
    for kind in KINDS:
        # 4097 and 32771: odd N (scalar accesses), in one block and over a
        # cluster with a ragged last slice; 40000: a ragged last slice of
        # rows staged in shared memory (shorter bulk copies); 256 and 640:
        # the shortest streamed rows, a warp of one vector a lane and a row
        # that leaves 16 of 96 threads without a vector.
        for n in PUBLIC_N + MODEL_N + [1000, 24, 4097, 32771, 40000] + SHORT_STREAMED_N:
            out.append((kind, "bf16", n, "", {}))
        for n in [1000, 4096, 7168, 1024, 32768]:
            out.append((kind, "f32", n, "", {}))
        # float16, which the torch ops accept: one bundle per layout class
        # (warp or block rows, staged rows, a cluster, a ragged N).
        for n in [1000, 1024, 4096, 32768]:
            out.append((kind, "f16", n, "", {}))
    # The inference forwards (no saved statistics), which the benchmark
    # times against torch.compile's inference forward.
    for kind in ("rms_fwd", "ln_fwd"):
        for n in PUBLIC_N + MODEL_N + [1000, 4097, 32771, 40000] + SHORT_STREAMED_N:
            out.append((kind, "bf16", n, "infer", {"stats": False}))
        for n in (1024, 4096):
            out.append((kind, "f32", n, "infer", {"stats": False}))
    # The pre-norm residual add fused with each norm (programs.py
    # residual=True), forward and backward, and its inference forwards.
    for kind in KINDS:
        for n in PUBLIC_N + [256, 1000, 4097]:
            out.append((kind, "bf16", n, "add", {"residual": True}))
        for dtype in ("f16", "f32"):
            for n in (1024, 4096):
                out.append((kind, dtype, n, "add", {"residual": True}))
    for kind in ("rms_fwd", "ln_fwd"):
        for n in PUBLIC_N:
            out.append((kind, "bf16", n, "add_infer", {"residual": True, "stats": False}))
    # The family's plain head-row bundles overlap the set above (N = 256):
    # each bundle once.
    names = {bundle_name(*v[:4]) for v in out}
    out += [v for v in family_variants() if bundle_name(*v[:4]) not in names]
    out.append(("rms_fwd", "bf16", 4096, "noweight", {"weight": False}))
    out.append(("rms_bwd", "bf16", 4096, "noweight", {"weight": False}))
    out.append(("rms_fwd", "bf16", 4096, "gemma", {"offset": 1.0}))
    out.append(("rms_bwd", "bf16", 4096, "gemma", {"offset": 1.0}))
    out.append(("ln_fwd", "bf16", 4096, "nobias", {"bias": False}))
    out.append(("ln_bwd", "bf16", 4096, "nobias", {"bias": False}))
    # The defaults stage rows in shared memory where they can; these keep
    # the register prefetch (--shared-stages=0) or stage deeper.
    for kind in KINDS:
        for n in (2048, 4096):
            out.append((kind, "bf16", n, "prefetch", {"flags": ["--shared-stages=0"]}))
        out.append((kind, "bf16", 5120, "staged3", {"flags": ["--shared-stages=3"]}))
    return out


# Hidden sizes of the FP8 group-scale forwards (DeepSeek-V3's 7168 among
# them) and of the grouped gated norms (8 groups), bench/family.py's.
GROUP_QUANT_N = [1024, 4096, 7168, 8192, 16384]
GROUPED_GATED_N = [2048, 4096, 8192]


def family_variants():
    """(kind, dtype, n, variant, program kwargs) of the L2 norm and gated
    RMSNorm (silu gate after the norm, the default) at head rows and two
    hidden sizes, their inference forwards, f16/f32, the other gate forms,
    the plain norms at the head rows (QK-norm) and the forwards with FP8
    output, which bench/family.py times."""
    out = []
    for n in HEAD_N + [1024, 4096]:
        for kind in FAMILY_KINDS:
            out.append((kind, "bf16", n, "", {}))
        for kind in ("l2_fwd", "gated_fwd"):
            out.append((kind, "bf16", n, "infer", {"stats": False}))
    for n in HEAD_N:
        for kind in KINDS:
            out.append((kind, "bf16", n, "", {}))
        for kind in ("rms_fwd", "ln_fwd"):
            out.append((kind, "bf16", n, "infer", {"stats": False}))
    for dtype in ("f16", "f32"):
        for kind in FAMILY_KINDS:
            out.append((kind, dtype, 128, "", {}))
    for kind in ("gated_fwd", "gated_bwd"):
        for n in (128, 4096):
            out.append((kind, "bf16", n, "sigmoid_gate_first",
                        {"activation": "sigmoid", "norm_before_gate": False}))
        out.append((kind, "bf16", 128, "noweight", {"weight": False}))
        out.append((kind, "bf16", 128, "offset", {"offset": 1.0}))
        out.append((kind, "bf16", 128, "wf32", {"weight_dtype": "f32"}))
    # The forwards with FP8 output (quant=True) and with the residual add.
    for n in [128, 1024, 4096, 8192, 16384, 32768]:
        for kind in ("rms_fwd", "ln_fwd"):
            out.append((kind, "bf16", n, "quant", {"quant": True, "stats": False}))
        out.append(("rms_fwd", "bf16", n, "add_quant",
                    {"quant": True, "stats": False, "residual": True}))
    for dtype in ("f16", "f32"):
        out.append(("rms_fwd", dtype, 4096, "quant", {"quant": True, "stats": False}))
    # FP8 with 1 x 128 group scales, and Mamba2's gated norm of 8 groups.
    for n in GROUP_QUANT_N:
        for kind in ("rms_fwd", "ln_fwd"):
            out.append((kind, "bf16", n, "quant_g128",
                        {"quant": True, "stats": False, "group_size": 128}))
        out.append(("rms_fwd", "bf16", n, "add_quant_g128",
                    {"quant": True, "stats": False, "residual": True, "group_size": 128}))
    for n in GROUPED_GATED_N:
        out.append(("gated_fwd", "bf16", n, "infer_g8", {"stats": False, "group_size": n // 8}))
        out.append(("gated_bwd", "bf16", n, "g8", {"group_size": n // 8}))
    return out


# One N of each layout class of the matrix: warp rows (256), a row a block
# (1024, 4096), staged rows (8192), a ragged N (1000), a cluster (32768) and
# a streamed long forward (65536 f32 is past what a cluster holds).
MATRIX_N = [256, 1000, 1024, 4096, 8192, 32768]
MATRIX_WEIGHTS = ["same", "bf16", "f16", "f32", "none"]


def matrix_variants():
    """(kind, dtype, n, variant, program kwargs) of the dtype matrix: every
    op at every activation type with every weight type (none: no weight,
    and for LayerNorm no bias), the forwards also as inference forwards,
    RMSNorm with a weight offset and LayerNorm with a weight and no bias."""
    out = []
    for dtype in ("bf16", "f16", "f32"):
        for weight in MATRIX_WEIGHTS:
            wt = dtype if weight == "same" else weight
            name = f"w{weight}"
            flags = {"weight": False} if weight == "none" else {"weight_dtype": wt}
            for n in MATRIX_N:
                for kind in KINDS:
                    out.append((kind, dtype, n, name, dict(flags)))
                for kind in ("rms_fwd", "ln_fwd"):
                    out.append((kind, dtype, n, name + "_infer", dict(flags, stats=False)))
            if weight in ("same", "f32"):
                for n in MATRIX_N:
                    for kind in KINDS:
                        out.append((kind, dtype, n, name + "_add", dict(flags, residual=True)))
            if weight != "none":
                for kind in ("rms_fwd", "rms_bwd"):
                    out.append((kind, dtype, 4096, name + "_offset",
                                dict(flags, offset=1.0)))
                for kind in ("ln_fwd", "ln_bwd"):
                    out.append((kind, dtype, 4096, name + "_nobias", dict(flags, bias=False)))
    return out


def compile_one(compiler, ptxas, outdir, kind, dtype, n, variant, kwargs, chips=("sm_90",)):
    name = bundle_name(kind, dtype, n, variant)
    kwargs = dict(kwargs)
    flags = kwargs.pop("flags", [])
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(program_text(kind, n, dtype, eps=1e-6, **kwargs))
        path = f.name
    try:
        for chip in chips:
            bundle = os.path.join(outdir, name if len(chips) == 1 else f"{name}_{chip}")
            r = subprocess.run([compiler, path, "-o", bundle, "--quiet", f"--chip={chip}",
                                *flags], capture_output=True, text=True)
            if r.returncode:
                return name, r.returncode, f"{chip}: {r.stderr}"
            if not ptxas:
                continue
            # The launch limits the PTX does not state (shared memory,
            # registers a block) are ptxas's to check.
            a = subprocess.run([ptxas, f"-arch={chip}", os.path.join(bundle, "kernels.ptx"),
                                "-o", os.devnull], capture_output=True, text=True)
            if a.returncode:
                return name, a.returncode, f"ptxas -arch={chip} exited with {a.returncode}: {a.stderr}"
        return name, 0, ""
    finally:
        os.unlink(path)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--compiler", default=os.path.join(ROOT, "build", "bin", "norm-compile"))
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    p.add_argument("--bench-only", action="store_true",
                   help="only the plain (and inference forward) bf16 bundles of the public N")
    p.add_argument("--bf16-only", action="store_true",
                   help="only the plain (and inference forward) bf16 bundles, of every N")
    p.add_argument("--flags", default="",
                   help="extra norm-compile options for every bundle (space separated)")
    p.add_argument("--no-ptxas", action="store_true",
                   help="do not assemble the bundles' PTX with ptxas")
    p.add_argument("--n", default="",
                   help="comma-separated row widths: instead of the usual set, the "
                        "plain bf16 bundles and inference forwards of these N (a sweep "
                        "of hidden sizes for bench/bench.py --shapes)")
    p.add_argument("--family", action="store_true",
                   help="only the L2 norm, gated RMSNorm and head-row bundles "
                        "(bench/family.py's)")
    p.add_argument("--dtype-matrix", action="store_true",
                   help="every op at every activation and weight type (MATRIX_N)")
    p.add_argument("--only", default="",
                   help="a regular expression: build only the bundles of the chosen set "
                        "whose name (<kind>_<dtype>_<N>[_variant]) it matches (an A/B "
                        "of a few ops)")
    p.add_argument("--chips", default="sm_90",
                   help="comma-separated chips to compile and assemble every bundle for; "
                        "with several, bundles are named <bundle>_<chip>")
    p.add_argument("--dtype", default="bf16", choices=("bf16", "f16", "f32"),
                   help="with --n: the element type of those bundles (bench/bench.py "
                        "--dtype)")
    args = p.parse_args()
    if args.dtype != "bf16" and not args.n:
        p.error("--dtype: only with --n (the usual set has its own dtypes)")
    ptxas = None if args.no_ptxas else ptxas_path()
    wanted = variants()
    if args.n:
        try:
            widths = [int(w) for w in args.n.split(",")]
        except ValueError:
            p.error(f"--n takes comma-separated row widths, got {args.n!r}")
        if any(w <= 0 for w in widths):
            p.error(f"--n takes positive row widths, got {args.n!r}")
        wanted = ([(kind, args.dtype, n, "", {}) for kind in KINDS for n in widths]
                  + [(kind, args.dtype, n, "infer", {"stats": False})
                     for kind in ("rms_fwd", "ln_fwd") for n in widths])
    if args.family:
        wanted = family_variants()
    if args.dtype_matrix:
        if args.n or args.bench_only or args.bf16_only:
            p.error("--dtype-matrix is a set of its own: not with --n, --bench-only or "
                    "--bf16-only")
        wanted = matrix_variants()
    chips = tuple(c for c in args.chips.split(",") if c)
    if not chips:
        p.error("--chips needs at least one chip")
    if (args.bench_only or args.bf16_only) and args.dtype != "bf16":
        p.error(f"--dtype {args.dtype}: --bench-only and --bf16-only are bf16 bundles")
    if args.bench_only or args.bf16_only:
        wanted = [v for v in wanted
                  if v[1] == "bf16" and v[3] in ("", "infer", "add", "add_infer")
                  and (args.bf16_only or v[2] in PUBLIC_N)]
    if args.only:
        try:
            only = re.compile(args.only)
        except re.error as e:
            p.error(f"--only: {args.only!r} is not a regular expression: {e}")
        wanted = [v for v in wanted if only.search(bundle_name(v[0], v[1], v[2], v[3]))]
        if not wanted:
            p.error(f"--only: no bundle of the chosen set matches {args.only!r}")
    extra = args.flags.split()
    if extra:
        wanted = [(kind, dtype, n, variant, {**kwargs, "flags": kwargs.get("flags", []) + extra})
                  for kind, dtype, n, variant, kwargs in wanted]
    os.makedirs(args.out, exist_ok=True)
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(compile_one, args.compiler, ptxas, args.out, *v, chips=chips)
                   for v in wanted]
        for fut in futures:
            name, rc, err = fut.result()
            if rc:
                failed += 1
                print(f"FAILED {name}:\n{err}", file=sys.stderr)
    checked = " (ptxas checked)" if ptxas else ""
    print(f"{len(futures) - failed} bundles built{checked}, {failed} failed in {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
