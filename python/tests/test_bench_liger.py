"""bench/liger_anchors.py and the Liger column of bench/bench.py (no GPU):
where liger_kernel does not import the benchmarks say why and leave the
column out; where Liger refuses a shape its anchor raises that error for the
timing loop to record; the table and the behind list take the column."""

import math

import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

bench = load_script("bench", "bench/bench.py")
liger = load_script("liger_anchors", "bench/liger_anchors.py")


def test_without_liger_kernel_the_anchors_say_why():
    import importlib.util
    if importlib.util.find_spec("liger_kernel") is not None:
        pytest.skip("liger_kernel is installed here")
    assert not liger.available()
    assert "liger_kernel does not import" in liger.MISSING
    assert liger.set_up(lambda: (lambda: None)) is None


def test_a_refused_shape_raises_its_error_when_timed():
    def refuses():
        raise RuntimeError("n = 131072 exceeds the recommended Triton blocksize = 65536")
    anchor = liger.guarded(refuses)
    with pytest.raises(RuntimeError, match="liger: RuntimeError: n = 131072 exceeds"):
        anchor()
    timed = []
    assert liger.guarded(lambda: lambda: timed.append(1))() is None
    assert timed == [1, 1]  # once while set up, once here


def test_a_shape_refused_at_its_first_call_raises_its_error_when_timed():
    # fused_add_rms_norm takes rows over 65536 elements while set up and
    # refuses them when launched.
    def launch():
        raise RuntimeError("Cannot launch Triton kernel since n = 131072 exceeds")
    anchor = liger.guarded(lambda: launch)
    with pytest.raises(RuntimeError, match="liger: RuntimeError: Cannot launch"):
        anchor()


def test_table_and_behind_list_take_the_liger_column(capsys):
    rows = [{"m": 4096, "n": 4096, "kernels": {"norm": 2.0, "eager": 1.0, "compile": 1.6,
                                                "liger": 2.5}},
            {"m": 512, "n": 131072, "kernels": {"norm": 2.4, "eager": 1.0, "compile": 2.0,
                                                 "liger": None,
                                                 "liger_error": "liger: RuntimeError"}}]
    summary = bench.print_table("rms_bwd", rows, "kernels", 3.0e12, sized=False)
    out = capsys.readouterr().out
    assert "norm/Liger" in out and "vs liger" in out
    assert "0.80" in out  # 2.0 / 2.5 at 4096 x 4096
    assert math.isclose(summary["liger"], 2.5)
    behind = bench.behind_compile({"rms_bwd": {"rows": rows}}, "kernels", "liger")
    assert behind == [("rms_bwd", 4096, 4096, pytest.approx(0.8))]
    # Without a Liger time anywhere there is no column.
    for r in rows:
        r["kernels"].pop("liger"), r["kernels"].pop("liger_error", None)
    assert "liger" not in bench.print_table("rms_bwd", rows, "kernels", 3.0e12, sized=False)
    assert "vs liger" not in capsys.readouterr().out
