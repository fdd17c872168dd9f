"""The autotuner's compile side (scripts/autotune-variants.py) and the check
that a tuning table plans the kernels it measured
(scripts/check-tuning-table.py); norm-compile, no GPU."""

import json
import os
import subprocess
import sys

import pytest

from repo_scripts import ROOT, load_script

variants = load_script("autotune_variants", "scripts/autotune-variants.py")
CHECK = os.path.join(ROOT, "scripts", "check-tuning-table.py")

pytestmark = pytest.mark.skipif(not os.path.exists(variants.COMPILER),
                                reason="build/bin/norm-compile is not built")


@pytest.fixture
def f32_candidates(tmp_path, monkeypatch):
    """Compiles two f32 candidates of the RMSNorm forward at N = 4096 into
    tmp_path/cands (with an index, as the script writes it): the rows
    streamed, and the rows staged 3 deep a row per block."""
    out = tmp_path / "cands"
    out.mkdir()
    monkeypatch.setattr(variants, "OUT", str(out))
    monkeypatch.setattr(variants, "DTYPE", "f32")
    knobs = [dict(register_budget=0, num_stages=0, rows_per_block=0, stream_rows=True),
             dict(register_budget=8, num_stages=0, rows_per_block=1, min_blocks_per_sm=0,
                  shared_stages=3)]
    index = []
    for k in knobs:
        name, rc, err = variants.compile_variant("rms_fwd", 4096, k)
        assert rc == 0, err
        index.append(dict(bundle=name, kind="rms_fwd", n=4096, dtype="f32", element_bytes=4,
                          **variants.KEYS["rms_fwd"], **k))
    (out / "index.json").write_text(json.dumps(index))
    return out, index


def entry(candidate):
    """The table entry bench/autotune.py writes for `candidate`."""
    keys = ("n", "element_bytes", "full_operands", "column_outputs", "row_reductions",
            "register_budget", "num_stages", "rows_per_block", "min_blocks_per_sm",
            "shared_stages", "stream_rows")
    return dict({k: candidate[k] for k in keys if k in candidate}, kind="rms_fwd",
                candidate=candidate["bundle"],
                measured_tbps_by_m={"8192": 4.0, "32768": 4.2})


def check(table_path, candidates):
    return subprocess.run([sys.executable, CHECK, "--candidates", str(candidates),
                           "--table", str(table_path)], capture_output=True, text=True)


def test_candidate_names_and_one_entry_tables(tmp_path, monkeypatch):
    monkeypatch.setattr(variants, "DTYPE", "f32")
    assert variants.variant_name("rms_fwd", 4096, dict(rule=1)) == "rms_fwd_4096_rule"
    assert variants.variant_name(
        "ln_bwd", 2048, dict(register_budget=8, rows_per_block=0, shared_stages=3)) == \
        "ln_bwd_2048_b8_r0_d3"
    path = variants.entry_table("ln_bwd", 2048, dict(register_budget=8, shared_stages=3,
                                                     table=1), str(tmp_path))
    with open(path) as f:
        (written,) = json.load(f)["entries"]
    # The class key of a four-byte LayerNorm backward, and only table knobs.
    assert written == dict(n=2048, element_bytes=4, full_operands=2, column_outputs=2,
                           row_reductions=2, register_budget=8, shared_stages=3)


def test_table_of_the_winner_reproduces_it(tmp_path, f32_candidates):
    candidates, index = f32_candidates
    # The committed table's other entries (bf16 classes) do not reach the
    # f32 class: the check compiles with all of them.
    with open(os.path.join(ROOT, "tuning", "h200.json")) as f:
        table = json.load(f)
    table["entries"] = [e for e in table["entries"] if e["element_bytes"] != 4]
    for candidate in index:
        table_path = tmp_path / f"{candidate['bundle']}.json"
        table_path.write_text(json.dumps(dict(table, entries=table["entries"] +
                                              [entry(candidate)])))
        r = check(table_path, candidates)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "1 entries checked against their candidates, 0 differ" in r.stdout


def test_table_with_other_knobs_than_its_candidate_differs(tmp_path, f32_candidates):
    candidates, (streamed, staged) = f32_candidates
    wrong = dict(entry(staged), candidate=streamed["bundle"])
    table_path = tmp_path / "wrong.json"
    table_path.write_text(json.dumps({"entries": [wrong]}))
    r = check(table_path, candidates)
    assert r.returncode == 1
    assert "DIFFERS rms_fwd N = 4096 (f32)" in r.stdout
    assert "at M = 8192, 32768" in r.stdout


def test_table_naming_no_candidate_is_an_error(tmp_path, f32_candidates):
    candidates, _ = f32_candidates
    table_path = tmp_path / "none.json"
    table_path.write_text(json.dumps({"entries": []}))
    r = check(table_path, candidates)
    assert r.returncode != 0
    assert "names a candidate" in r.stderr


def test_candidates_without_an_index_are_an_error(tmp_path):
    r = subprocess.run([sys.executable, CHECK, "--candidates", str(tmp_path / "none")],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "has no index.json" in r.stderr


def test_a_candidate_of_another_element_size_is_not_the_entrys(tmp_path, f32_candidates):
    candidates, (streamed, _) = f32_candidates
    # A bf16 entry naming the f32 candidate (names carry no dtype).
    other = dict(entry(streamed), element_bytes=2)
    table_path = tmp_path / "bf16.json"
    table_path.write_text(json.dumps({"entries": [other]}))
    r = check(table_path, candidates)
    assert r.returncode == 1
    assert "names a candidate" in r.stderr


@pytest.mark.parametrize("argv, message", [
    (["--kinds=rms_fwd,layer_norm"], "--kinds: expected some of"),
    (["--dtpye=f32"], "unrecognized arguments: --dtpye=f32"),
    (["--staged", "--streamed"], "not allowed with argument"),
    (["--sizes=1k"], "--sizes: expected comma-separated row widths"),
    (["--dtype=f64"], "invalid choice: 'f64'"),
    (["--baseline=/no/such/table.json"], "--baseline: no such table"),
])
def test_bad_options_are_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        variants.parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_sizes_outside_the_family_are_an_error(capsys):
    with pytest.raises(SystemExit) as exit_info:
        variants.main(["--staged", "--sizes=1000"])
    assert "none of 1000 is among this family's widths" in str(exit_info.value.code)


def test_options_parse(tmp_path):
    args = variants.parse_args(["--staged", "--kinds=ln_bwd", "--sizes=1024,4096",
                                "--dtype=f32"])
    assert args.staged and not args.streamed
    assert args.kinds == ["ln_bwd"] and args.sizes == {1024, 4096}
    assert args.dtype == "f32" and args.baseline == variants.TABLE
