"""bench/bench.py's --shapes: named sets and MxN lists, and
scripts/build-bundles.py's choice of bundles (no GPU)."""

import os
import subprocess
import sys

import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

bench = load_script("bench", "bench/bench.py")


def test_named_sets_and_lists():
    assert bench.parse_shapes("") == bench.SHAPES
    assert bench.parse_shapes("public") == bench.SHAPES
    assert len(bench.SHAPES) == 11
    short = bench.parse_shapes("short-m")
    assert (1, 4096) in short and (16, 4096) in short
    assert all(m <= 4096 or (m, n) in ((100000, 1000), (16384, 1024)) for m, n in short)
    extra = bench.parse_shapes("extra")
    assert not set(extra) & set(bench.SHAPES)
    assert bench.parse_shapes("16x4096, 1x8") == [(16, 4096), (1, 8)]


def test_model_sizes_have_bundles():
    # bench.py --shapes llm times the bundles build-bundles.py makes for
    # MODEL_N; a size in one list and not the other would fail on the GPU.
    build = load_script("build_bundles", "scripts/build-bundles.py")
    llm = bench.parse_shapes("llm")
    assert {n for _, n in llm} == set(build.MODEL_N)
    assert not set(build.MODEL_N) & set(build.PUBLIC_N)
    built = {(kind, n, variant) for kind, dtype, n, variant, _ in build.variants()
             if dtype == "bf16"}
    # --shapes short-n times the short streamed rows' bundles.
    assert {n for _, n in bench.parse_shapes("short-n")} == set(build.SHORT_STREAMED_N)
    for n in build.MODEL_N + build.SHORT_STREAMED_N:
        for kind in build.KINDS:
            assert (kind, n, "") in built
        for kind in ("rms_fwd", "ln_fwd"):
            assert (kind, n, "infer") in built


@pytest.mark.parametrize("text", ["16x", "x4096", "0x4096", "16x4096x2", "big", "16x-1"])
def test_bad_shapes_are_rejected_with_the_choices(text):
    with pytest.raises(ValueError, match="expected MxN"):
        bench.parse_shapes(text)


def test_probe_cases():
    assert bench.parse_case("rms_fwd:4096x1024") == ("rms_fwd", 4096, 1024)
    assert bench.parse_case("ln_bwd:1x4096") == ("ln_bwd", 1, 4096)
    for bad in ("rms_fwd", "rms_fwd:", "rms_fwd:4096", "norm:4096x1024", "ln_fwd:public",
                "ln_fwd:1x2,3x4"):
        with pytest.raises(Exception, match="bad"):
            bench.parse_case(bad)


@pytest.mark.parametrize("names", [["norm", "eager", "compile"],
                                   ["norm", "norm_stats", "eager", "compile"]])
def test_timing_order_balances_positions_and_predecessors(names):
    k = len(names)
    assert bench.timing_order(names, 1) == names
    assert bench.timing_order(names, 1, reverse=True) == names[::-1]
    full = k if k % 2 == 0 else 2 * k
    order = bench.timing_order(names, full)
    rounds = [order[k * r:k * r + k] for r in range(full)]
    for name in names:
        positions = [row.index(name) for row in rounds]
        assert sorted(positions) == sorted(list(range(k)) * (full // k))
    pairs = [(row[i], row[i + 1]) for row in rounds for i in range(k - 1)]
    expected = full * (k - 1) // (k * (k - 1))
    for a in names:
        for b in names:
            if a != b:
                assert pairs.count((a, b)) == expected, (a, b)
    # Rounds past a full set repeat it.
    assert bench.timing_order(names, full + 1)[-k:] == rounds[0]
    with pytest.raises(ValueError, match="at least 1"):
        bench.timing_order(names, 0)


def test_behind_compile_lists_the_slower_shapes_slowest_first():
    ops = {
        "rms_fwd": {"rows": [
            {"m": 1, "n": 8, "kernels": {"norm": 1.0, "compile": 2.0}},
            {"m": 2, "n": 8, "kernels": {"norm": 3.0, "compile": 2.0}},
            {"m": 3, "n": 8, "kernels": {"norm": 1.0, "compile": None}},
        ]},
        "ln_bwd": {"rows": [
            {"m": 4, "n": 8, "kernels": {"norm": 0.9, "compile": 1.0}},
            {"m": 5, "n": 8, "graph": {"norm": 0.1, "compile": 1.0}},
        ]},
    }
    behind = bench.behind_compile(ops, "kernels")
    assert [(op, m) for op, m, _, _ in behind] == [("rms_fwd", 1), ("ln_bwd", 4)]
    assert behind[0][3] == pytest.approx(0.5)
    assert bench.behind_compile(ops, "graph") == [("ln_bwd", 5, 8, pytest.approx(0.1))]


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _build_bundles(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "build-bundles.py"),
                           *args], capture_output=True, text=True)


def test_build_bundles_only_keeps_the_matching_bundles(tmp_path):
    build = os.environ.get("NORM_BUILD_DIR", os.path.join(ROOT, "build"))
    compiler = os.path.join(build, "bin", "norm-compile")
    if not os.path.exists(compiler):
        pytest.skip("norm-compile is not built")
    r = _build_bundles("--family", "--only", "^l2_fwd_bf16_(64|100)_infer$", "--no-ptxas",
                       "--compiler", compiler, "--out", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert sorted(os.listdir(tmp_path)) == ["l2_fwd_bf16_100_infer", "l2_fwd_bf16_64_infer"]


@pytest.mark.parametrize("pattern, message", [("^nothing$", "no bundle of the chosen set"),
                                              ("(", "not a regular expression")])
def test_build_bundles_only_refuses_patterns_that_select_nothing(tmp_path, pattern, message):
    r = _build_bundles("--family", "--only", pattern, "--out", str(tmp_path))
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_every_family_benchmark_case_has_its_bundle():
    # bench/family.py times each op at the shapes of its sets; every bundle
    # it loads must be one that scripts/build-bundles.py --family builds (the
    # QK-norm rows of 256 were not: --shapes heads stopped there).
    pytest.importorskip("torch")
    family = load_script("family", "bench/family.py")
    build = load_script("build_bundles", "scripts/build-bundles.py")
    built = {build.bundle_name(kind, dtype, n, variant)
             for kind, dtype, n, variant, _ in build.family_variants()}
    # The sets and the ops each is for (bench/family.py --shapes).
    ops_of = {"heads": ["l2_fwd", "l2_bwd", "gated_fwd", "gated_bwd", "qk_fwd", "qk_bwd"],
              "hidden": list(family.QUANT_OPS),
              "groups": list(family.GROUP_QUANT_OPS + family.GROUPED_GATED_OPS)}
    assert set(ops_of) == set(family.SHAPES)
    assert sorted(sum(ops_of.values(), [])) == sorted(family.OPS)
    missing = sorted({family.bundle_name(op, n)
                      for name, shapes in family.SHAPES.items() for _, n in shapes
                      for op in ops_of[name] if family.runs_at(op, n)} - built)
    assert missing == []


def test_the_default_set_builds_each_bundle_once():
    # Two entries of one name would compile into the same directory at once.
    build = load_script("build_bundles", "scripts/build-bundles.py")
    for chosen in (build.variants(), build.family_variants()):
        names = [build.bundle_name(*v[:4]) for v in chosen]
        assert len(names) == len(set(names))
