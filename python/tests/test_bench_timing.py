"""bench/timing.py: how a profile becomes a call's kernel time (no GPU)."""

import pytest

from repo_scripts import load_script

pytest.importorskip("torch")

timing = load_script("timing", "bench/timing.py")


def test_busy_time_counts_overlap_once():
    # A fused kernel and a programmatic combine that starts 2 us before it
    # ends: 10 + 3 us of device work, 11 us busy.
    assert timing.busy_time([(0.0, 10.0), (8.0, 11.0)]) == 11.0
    # Disjoint kernels: the sum, the gap between them left out.
    assert timing.busy_time([(20.0, 25.0), (0.0, 10.0)]) == 15.0
    # One kernel inside another.
    assert timing.busy_time([(0.0, 10.0), (2.0, 3.0)]) == 10.0
    assert timing.busy_time([]) == 0.0


def test_split_calls_groups_kernels_between_flushes():
    flush = {"flush"}
    events = [(0.0, 5.0, "flush"), (6.0, 10.0, "norm_fused"), (16.0, 1.0, "norm_combine"),
              (20.0, 5.0, "flush"), (26.0, 9.0, "norm_fused"), (35.0, 2.0, "norm_combine")]
    groups = timing.split_calls(events, flush, 2)
    assert groups == [[(6.0, 16.0, "norm_fused"), (16.0, 17.0, "norm_combine")],
                      [(26.0, 35.0, "norm_fused"), (35.0, 37.0, "norm_combine")]]
    # Work before the first flush (the warm-up's tail) belongs to no call.
    assert timing.split_calls([(0.0, 1.0, "late")] + events, flush, 2) == groups


def test_split_calls_rejects_a_profile_that_lost_calls():
    flush = {"flush"}
    events = [(0.0, 5.0, "flush"), (6.0, 10.0, "norm_fused"), (20.0, 5.0, "flush")]
    # The second call recorded no kernel (the profiler did not see it).
    assert timing.split_calls(events, flush, 2) is None
    # Fewer calls than asked for.
    assert timing.split_calls(events[:2], flush, 2) is None


def test_trace_launches_lists_kernels_in_start_order():
    trace = {"traceEvents": [
        {"cat": "kernel", "name": "triton_per_fused", "ts": 20,
         "args": {"grid": [8448, 1, 1], "block": [256, 1, 1], "registers per thread": 40}},
        {"cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": 1, "args": {}},
        {"cat": "kernel", "name": "norm_fused_0", "ts": 10,
         "args": {"grid": [704, 1, 1], "block": [128, 1, 1], "registers per thread": 46}},
    ]}
    assert timing.trace_launches(trace) == [
        ["norm_fused_0", [704, 1, 1], [128, 1, 1], 46],
        ["triton_per_fused", [8448, 1, 1], [256, 1, 1], 40]]
    assert timing.trace_launches({}) == []
