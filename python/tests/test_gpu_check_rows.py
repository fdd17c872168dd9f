"""bench/gpu_check.py's rows: every version's first and last row (no GPU)."""

import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

gpu_check = load_script("gpu_check", "bench/gpu_check.py")


def manifest(*conditions):
    return {"functions": [{"function": "f", "launches": [
        {"kernel": f"k{i}", "when": c} for i, c in enumerate(conditions)]}]}


def test_both_sides_of_every_bound_on_m():
    # A chain of versions as norm-short-rows writes it: bands nested in
    # "and"/"or", bounds on M given by "ge" and "lt".
    chain = manifest(
        {"ge": ["M", 10561]},
        {"and": [{"lt": ["M", 10561]}, {"ge": ["M", 5281]}]},
        {"and": [{"lt": ["M", 5281]}, {"or": [{"lt": ["M", 1]}, {"ge": ["M", 2]}]}]},
        None)
    assert gpu_check.version_edges(chain) == [1, 2, 5280, 5281, 10560, 10561]


def test_rows_include_the_edges_within_the_quick_limit():
    rows = gpu_check.rows_for(768, quick=True, edges=[5280, 5281, 10 ** 6])
    assert 5280 in rows and 5281 in rows
    assert 10 ** 6 not in rows  # 768M elements: over --quick's 64M
    assert rows == sorted(set(rows))


def test_no_conditions_no_edges():
    assert gpu_check.version_edges(manifest(None)) == []
    assert gpu_check.version_edges({}) == []


build_bundles = load_script("build_bundles", "scripts/build-bundles.py")

# One bundle of each form family_case checks: the fused add's forwards and
# backwards, FP8 outputs (row and group scales, with the add), the L2 norm,
# the gated norm with its variants and groups.
FAMILY_BUNDLES = ["rms_fwd_bf16_1024_add", "ln_fwd_bf16_1024_add_infer", "rms_bwd_bf16_1024_add",
                  "ln_bwd_bf16_1024_add", "ln_fwd_bf16_128_quant",
                  "rms_fwd_bf16_1024_add_quant_g128", "l2_fwd_bf16_100", "l2_bwd_bf16_128",
                  "gated_fwd_bf16_128_offset", "gated_bwd_bf16_128_sigmoid_gate_first",
                  "gated_bwd_bf16_128_noweight", "gated_fwd_bf16_2048_infer_g8",
                  "gated_bwd_bf16_2048_g8"]


def cpu_launcher(kind, dtype, n, kwargs):
    """The bundle's program through the CPU lowering, called as a Launcher
    is (None, *inputs) -> outputs: family_case's argument order and
    references checked against the real programs."""
    import numpy as np
    cpu = pytest.importorskip("norm_mlir.cpu")
    import torch
    from norm_mlir.ops import _numpy
    flags = dict(kwargs)
    # The CPU programs take the weight's type, None for no weight.
    weight_dtype = flags.pop("weight_dtype", dtype) if flags.pop("weight", True) else None
    if kind.startswith("l2"):
        weight_dtype = None
    program = cpu.op(kind, n, dtype, weight_dtype, **flags)
    types = {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32,
             "f8E4M3FN": torch.float8_e4m3fn}

    def launch(_stream, *inputs):
        memrefs = program.argument_types(kind)[len(inputs):]
        outputs = []
        for memref in memrefs:
            dims, element = memref[len("memref<"):-1].rsplit("x", 1)
            shape = [inputs[0].shape[0] if d == "?" else int(d) for d in dims.split("x")]
            outputs.append(torch.empty(shape, dtype=types[element]))
        program.run(kind, *[np.ascontiguousarray(_numpy(t.contiguous())) for t in inputs],
                    *[_numpy(t) for t in outputs])
        return outputs
    return launch


@pytest.mark.parametrize("name", FAMILY_BUNDLES)
def test_family_references_match_the_programs(name):
    torch = pytest.importorskip("torch")
    listed = {build_bundles.bundle_name(k, d, n, v): (k, d, n, kw)
              for k, d, n, v, kw in build_bundles.family_variants() + build_bundles.variants()}
    kind, dtype, n, kwargs = listed[name]
    parsed = gpu_check.parse(name)
    assert gpu_check.is_family(parsed[0], parsed[3])
    gen = torch.Generator().manual_seed(7)
    launcher = cpu_launcher(kind, dtype, n, kwargs)
    wdtype = kwargs.get("weight_dtype")
    for m in (1, 37):
        errors = gpu_check.family_case(launcher, kind, dtype, n, m, parsed[3], gen, wdtype)
        assert errors and all(e < tol for e, tol in errors.values()), (m, errors)


def test_plain_bundles_are_not_family_cases():
    parse = gpu_check.parse
    for plain in ("rms_fwd_bf16_128_infer", "ln_bwd_bf16_64", "rms_fwd_bf16_4096_gemma",
                  "ln_fwd_bf16_4096_nobias", "rms_bwd_f32_1024"):
        kind, _, _, variant = parse(plain)
        assert not gpu_check.is_family(kind, variant)
