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
