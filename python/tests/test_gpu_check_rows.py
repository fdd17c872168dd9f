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


def test_bundles_without_a_reference_here_are_skipped_with_their_checker():
    # The fused residual add, the FP8 outputs and the order-typed family have
    # no float64 reference in gpu_check: each is named with the script that
    # checks it, not run as a plain norm (which failed on their arguments).
    parse = gpu_check.parse
    assert gpu_check.unchecked(*parse("rms_fwd_bf16_1024_add")[::3]) == "bench/fused_add.py"
    assert gpu_check.unchecked(*parse("ln_bwd_bf16_4096_add")[::3]) == "bench/fused_add.py"
    assert gpu_check.unchecked(*parse("rms_fwd_bf16_128_quant")[::3]) == "bench/family.py"
    assert gpu_check.unchecked(*parse("rms_fwd_bf16_1024_add_quant_g128")[::3]) != ""
    assert gpu_check.unchecked(*parse("l2_bwd_bf16_64")[::3]) == "bench/family.py"
    assert gpu_check.unchecked(*parse("gated_fwd_bf16_128_infer")[::3]) == "bench/family.py"
    for plain in ("rms_fwd_bf16_128_infer", "ln_bwd_bf16_64", "rms_fwd_bf16_4096_gemma",
                  "ln_fwd_bf16_4096_nobias", "rms_bwd_f32_1024"):
        assert gpu_check.unchecked(*parse(plain)[::3]) == ""
