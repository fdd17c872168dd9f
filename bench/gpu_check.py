#!/usr/bin/env python3
"""Correctness of the compiled kernels on a GPU, against float64 PyTorch.

For every bundle in .out/bundles (scripts/build-bundles.py) and a set of row
counts (hand-picked ones, and both sides of every bound on M in the bundle's
launch conditions, so that each version runs at its first and last row),
draws fresh random inputs, poisons every output with NaN, runs the
kernels and compares each output with the float64 reference by relative
error. Also checks that dW/dB are bitwise identical over two runs. The
family's bundles (fused residual add, FP8 outputs, L2 norm, gated RMSNorm)
have references of their own (family_case).
Prints one line per case and ends with 'N passed, N failed'.
"""

import argparse
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))
from norm_mlir import load_bundle  # noqa: E402
from norm_mlir import reference as ref  # noqa: E402
from norm_mlir.bundle import version_edges  # noqa: E402
from norm_mlir.launcher import Launcher  # noqa: E402

EPS = 1e-6
TOL = {"bf16": 1e-2, "f16": 2e-3, "f32": 1e-4}
DT = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}
# Offsets added to LayerNorm inputs for the shifted-rows check: as far from
# zero as each type keeps the rows' spread (2) resolved.
SHIFT = {"bf16": 64.0, "f16": 256.0, "f32": 1000.0}

# Rows per N: the public shapes, plus M = 1, a prime-ish M and small M.
PUBLIC = {1024: [32768], 2048: [32768], 4096: [16384, 65536], 5120: [16384],
          7168: [4097], 8192: [8192], 16384: [4096], 32768: [2048],
          65536: [1024], 131072: [512], 1000: [4096], 24: [4099]}


def rows_for(n, quick, edges=()):
    rows = list(PUBLIC.get(n, [4096])) + list(edges)
    rows += [1, 4097 if n <= 8192 else 3]
    # Two waves of partial rows for the split backwards at one block per
    # SM (M > 132 x 64 rows spread over whole waves, ragged).
    if n <= 8192:
        rows.append(9362)
        # The backwards' short-rows versions (chooseShortRowsLimit: 2^19 / N
        # rows) on both sides of their limit: 37 and 300 rows are short for
        # N = 1024, 300 is not for N = 4096; 1 row runs the single-block
        # version, 2 the row and whole-column kernels.
        rows += [2, 37, 300]
    # The streamed forwards' bands of held rows (chooseHeldRows): 99 (the
    # band's first, the last block three) and 133 rows take RMSNorm's warp
    # rows at N = 1024, the last block one; 4225 and
    # 4750 rows four a block at nine blocks an SM, the last block one or
    # two; 5000 and 16895 rows (the band's last) three a block, the last
    # block two.
    if n <= 1024:
        rows += [99, 133, 4225, 4750, 5000, 16895]
    # RMSNorm N = 1024 runs a row a block between its warp-rows bands
    # (chooseHeldRows): 395 and 661 rows are warp rows, 396 and 660 not.
    if n == 1024:
        rows += [395, 396, 660, 661]
    # The wide backwards' short-rows versions (chooseShortRowsLimit: 128-288
    # rows from N = 12288 to 32768): at N = 12288 the row kernel walks up
    # to four rows a block over the SMs the column blocks leave (100 rows:
    # two a block; 200 and 255: three and four, the last block ragged), and
    # 300 rows run the cluster kernel.
    if 8192 < n <= 32768:
        rows += [2, 100, 200, 255, 300]
    if quick:
        rows = [r for r in rows if r * n <= 64 * 2**20]
    return sorted(set(rows))


def parse(name):
    """(kind, dtype, N, variant tokens) of a bundle named
    <kind>_<dtype>_<N>[_variant] (scripts/build-bundles.py); a variant's
    tokens are its parts between underscores ({"wf32", "infer"})."""
    parts = name.split("_")
    kind = parts[0] + "_" + parts[1]
    dtype, n = parts[2], int(parts[3])
    return kind, dtype, n, set(parts[4:])


def weight_dtype(manifest, n):
    """The weight's (and bias's) element type: that of the bundle's rank-1
    arguments of N elements (None without a weight or bias)."""
    params = [a for a in manifest["functions"][0]["arguments"] if a["shape"] == [n]]
    return params[0]["dtype"] if params else None


def expect_results(outs, count):
    if len(outs) != count:
        raise ValueError(f"the bundle returned {len(outs)} results, expected {count}")


def bitwise_equal(a, b):
    """Whether two results have the same bits (a column output run twice)."""
    view = torch.int32 if a.dtype == torch.float32 else torch.int16
    return torch.equal(a.view(view), b.view(view))


def run_case(launcher, kind, dtype, n, m, variant, gen, wdtype=None):
    """Errors of one call at M = m against float64; `variant` is parse()'s
    token set and `wdtype` the weight's type (weight_dtype; None: x's)."""
    t = DT[dtype]
    wt = DT[wdtype or dtype]
    dev = "cuda"
    x = (torch.randn(m, n, generator=gen, device=dev) * 2 + 0.5).to(t)
    w = (1 + 0.5 * torch.randn(n, generator=gen, device=dev)).to(wt)
    b = (0.3 * torch.randn(n, generator=gen, device=dev)).to(wt)
    has_w = not variant & {"noweight", "wnone"}
    has_b = "nobias" not in variant
    offset = 1.0 if variant & {"gemma", "offset"} else 0.0
    # The inference forwards return y alone (no saved statistics).
    stats = "infer" not in variant
    errors = {}
    tol = TOL[dtype]
    # dW and dB are rounded to the weight's type.
    param_tol = TOL[wdtype or dtype]
    if kind == "rms_fwd":
        args = [x] + ([w] if has_w else [])
        ry, rr = ref.rms_fwd(x, w if has_w else None, EPS, offset)
        errors = forward_errors(launcher(None, *args), ry, rr, stats, tol)
    elif kind == "ln_fwd":
        args = [x] + ([w] if has_w else []) + ([b] if has_w and has_b else [])
        outs = launcher(None, *args)
        ry, rm, rr = ref.ln_fwd(x, w if has_w else None, b if has_w and has_b else None, EPS)
        expect_results(outs, 1 + 2 * stats)
        errors = {"y": (ref.rel_error(outs[0], ry), tol)}
        if stats:
            errors["mean"] = (ref.rel_error(outs[1], rm), 1e-5)
            errors["rstd"] = (ref.rel_error(outs[2], rr), 1e-5)
        # Rows far from zero mean: a variance from E[x^2] - E[x]^2 would
        # lose the f32 check here (about 1e-2 off at a shift of 1000), the
        # two-pass form and the pairwise merge of moments do not.
        shifted = (x.float() + SHIFT[dtype]).to(t)
        args = [shifted] + args[1:]
        outs = launcher(None, *args)
        ry, _, rr = ref.ln_fwd(shifted, w if has_w else None, b if has_w and has_b else None, EPS)
        errors["y_shifted"] = (ref.rel_error(outs[0], ry), tol)
        if stats:
            errors["rstd_shifted"] = (ref.rel_error(outs[2], rr), 1e-4)
    else:
        dy = torch.randn(m, n, generator=gen, device=dev).to(t)
        saved, pairs = backward_references(kind == "rms_bwd", dy, x, w if has_w else None,
                                           offset, has_b)
        args = [dy, x] + saved + ([w] if has_w else [])
        outs, again = launcher(None, *args), launcher(None, *args)
        errors = compare(outs, again, pairs, tol, param_tol)
    return errors


def backward_references(rms, dy, x, w, offset, with_bias):
    """The statistics RMSNorm's (`rms`) or LayerNorm's backward at x reads
    (f32, as the forward saves them) and its float64 results as (name,
    reference) pairs: dx, then dW (with a weight) and dB (LayerNorm
    `with_bias`)."""
    if rms:
        _, rstd = ref.rms_fwd(x, None, EPS)
        saved = [rstd.float()]
        dx, dw = ref.rms_bwd(dy, x, saved[0], w, offset)
        return saved, [("dx", dx)] + ([("dw", dw)] if w is not None else [])
    _, mean, rstd = ref.ln_fwd(x, None, None, EPS)
    saved = [mean.float(), rstd.float()]
    dx, dw, db = ref.ln_bwd(dy, x, *saved, w, with_bias)
    return saved, ([("dx", dx)] + ([("dw", dw)] if w is not None else [])
                   + ([("db", db)] if with_bias else []))


def group_of(kind, n, variant):
    """Columns of a group: FP8 group scales (quant_g128: 128) or the gated
    norm's groups (g8: N / 8); None without groups."""
    for token in variant:
        if token.startswith("g") and token[1:].isdigit():
            k = int(token[1:])
            return k if "quant" in variant else n // k
    return None


def family_case(launcher, kind, dtype, n, m, variant, gen, wdtype=None):
    """run_case for the family's bundles: the fused residual add (forward
    and backward), the FP8 outputs (q within half an e4m3 step of y / scale,
    the scales against float64's), the L2 norm and the gated RMSNorm."""
    t, wt = DT[dtype], DT[wdtype or dtype]
    tol, param_tol = TOL[dtype], TOL[wdtype or dtype]
    rand = lambda *shape: torch.randn(*shape, generator=gen, device=gen.device)  # noqa: E731
    x = (rand(m, n) * 2 + 0.5).to(t)
    w = (1 + 0.5 * rand(n)).to(wt) if not variant & {"noweight", "wnone"} else None
    b = (0.3 * rand(n)).to(wt) if w is not None and "nobias" not in variant else None
    offset = 1.0 if variant & {"gemma", "offset"} else 0.0
    stats = "infer" not in variant
    group = group_of(kind, n, variant)
    rms = kind.startswith("rms")
    errors = {}
    if "quant" in variant:
        r = rand(m, n).to(t) if "add" in variant else None
        h = ref.residual_sum(x, r) if r is not None else x
        args = [x] + ([r] if r is not None else []) + ([w] if w is not None else [])
        args += [b] if not rms and b is not None else []
        outs = launcher(None, *args)
        expect_results(outs, 2 + (r is not None))
        y = (ref.rms_fwd(h, w, EPS, offset) if rms else ref.ln_fwd(h, w, b, EPS))[0]
        scale = outs[-1]
        errors["scale"] = (ref.rel_error(scale, ref.fp8_scales(y, group)), 1e-5)
        errors["q"] = (ref.fp8_excess(outs[0], scale, y, group), 1e-9)
        if r is not None:
            errors["h"] = (ref.rel_error(outs[1], h.double()), 1e-6)
    elif "add" in variant and kind.endswith("fwd"):
        r = rand(m, n).to(t)
        h = ref.residual_sum(x, r)
        args = [x, r] + ([w] if w is not None else []) + ([b] if not rms and b is not None else [])
        outs = launcher(None, *args)
        expected = (ref.rms_fwd(h, w, EPS, offset) if rms else ref.ln_fwd(h, w, b, EPS))
        expect_results(outs, 2 + stats * (len(expected) - 1))
        errors["y"] = (ref.rel_error(outs[0], expected[0]), tol)
        errors["h"] = (ref.rel_error(outs[1], h.double()), 1e-6)
        for name, out, want in zip(["mean", "rstd"][rms:], outs[2:], expected[1:]):
            errors[name] = (ref.rel_error(out, want), 1e-5)
    elif "add" in variant:
        dy, dh = rand(m, n).to(t), rand(m, n).to(t)
        h = x
        saved, pairs = backward_references(rms, dy, h, w, offset, "nobias" not in variant)
        # The residual's gradient dh joins dx.
        pairs[0] = ("dx", pairs[0][1] + dh.double())
        args = [dy, dh, h] + saved + ([w] if w is not None else [])
        outs, again = launcher(None, *args), launcher(None, *args)
        errors.update(compare(outs, again, pairs, tol, param_tol))
    elif kind.startswith("l2"):
        y, rstd = ref.l2_fwd(x, EPS)
        if kind == "l2_fwd":
            errors = forward_errors(launcher(None, x), y, rstd, stats, tol)
        else:
            dy = rand(m, n).to(t)
            outs = launcher(None, dy, x, rstd.float())
            expect_results(outs, 1)
            errors["dx"] = (ref.rel_error(outs[0], ref.l2_bwd(dy, x, rstd.float())), tol)
    else:
        z = rand(m, n).to(t)
        gate = {"activation": "sigmoid" if "sigmoid" in variant else "silu",
                "norm_before_gate": "first" not in variant, "group": group}
        y, rstd = ref.gated_fwd(x, z, w, EPS, offset, **gate)
        if kind == "gated_fwd":
            outs = launcher(None, *([x, z] + ([w] if w is not None else [])))
            errors = forward_errors(outs, y, rstd, stats, tol)
        else:
            dy = rand(m, n).to(t)
            args = [dy, x, z, rstd.float()] + ([w] if w is not None else [])
            outs, again = launcher(None, *args), launcher(None, *args)
            dx, dz, dw = ref.gated_bwd(dy, x, z, w, EPS, offset, **gate)
            pairs = [("dx", dx), ("dz", dz)] + ([("dw", dw)] if w is not None else [])
            errors.update(compare(outs, again, pairs, tol, param_tol))
    return errors


def forward_errors(outs, y, rstd, stats, tol):
    """Errors of a forward's y (and rstd, unless the inference forward)."""
    expect_results(outs, 1 + stats)
    errors = {"y": (ref.rel_error(outs[0], y), tol)}
    if stats:
        errors["rstd"] = (ref.rel_error(outs[1], rstd), 1e-5)
    return errors


def compare(outs, again, pairs, tol, param_tol):
    """Errors of a backward's results against float64 (`pairs`: name and
    reference, full outputs first, then dW/dB at the weight's tolerance),
    and whether its column outputs came out bitwise the same twice."""
    expect_results(outs, len(pairs))
    errors = {}
    for (name, want), out, out2 in zip(pairs, outs, again):
        full = name in ("dx", "dz")
        errors[name] = (ref.rel_error(out, want), tol if full else param_tol)
        if not full:
            same = bitwise_equal(out, out2)
            errors[name + "_bitwise"] = (0.0 if same else float("inf"), 0.5)
    return errors


def is_family(kind, variant):
    """Whether family_case checks this bundle (run_case checks the rest)."""
    return kind.startswith(("l2", "gated")) or bool(variant & {"add", "quant"})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default=os.path.join(ROOT, ".out", "bundles"))
    p.add_argument("--quick", action="store_true", help="skip the largest shapes")
    p.add_argument("--filter", default="")
    p.add_argument("--shard", default="0/1",
                   help="i/k: the i-th of k slices of the bundles (k processes share a GPU)")
    args = p.parse_args()
    shard, shards = (int(v) for v in args.shard.split("/"))
    torch.cuda.init()
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1234)
    passed = failed = 0
    names = [name for name in sorted(os.listdir(args.bundles))
             if not args.filter or args.filter in name]
    for name in names[shard::shards]:
        kind, dtype, n, variant = parse(name)
        check = family_case if is_family(kind, variant) else run_case
        bundle = load_bundle(os.path.join(args.bundles, name))
        wdtype = weight_dtype(bundle.manifest, n)
        launcher = Launcher(bundle, poison_outputs=True)
        for m in rows_for(n, args.quick, version_edges(bundle.manifest)):
            try:
                errors = check(launcher, kind, dtype, n, m, variant, gen, wdtype)
                torch.cuda.synchronize()
                bad = {k: e for k, (e, tol) in errors.items() if not e < tol}
                line = " ".join(f"{k}={e:.2e}" for k, (e, _) in errors.items())
            except Exception as e:  # report and continue with the next case
                bad, line = {"exception": str(e)}, f"EXCEPTION {e}"
            status = "ok  " if not bad else "FAIL"
            passed += not bad
            failed += bool(bad)
            print(f"{status} {name:28s} M={m:<6d} {line}", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
