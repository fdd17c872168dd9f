"""The two ways bench/ times one call (a Python callable that launches the
kernels of one implementation on the current stream).

- time_graph: the call captured once in a CUDA graph, its replays timed with
  CUDA events (median, L2 flushed before each replay). A call of several
  kernels counts their sum plus the gaps between them inside the graph.
  The stricter of the two.
- time_kernels: the method ../shared/PERF.md measured its anchors with:
  "kernel time = summed device time of every kernel the call launches
  (profiler), so host dispatch gaps are excluded". The same graph is
  replayed under torch.profiler, each replay after an L2 flush of its own
  kernel, and the device time of the call's kernels (and copies) is summed
  per replay; the median is returned. Gaps between the call's kernels do
  not count, and neither does the flush. Kernels of one call that overlap
  (a programmatic dependent launch starts before its predecessor ends)
  count once: the time is the union of their intervals, which is their sum
  wherever they do not overlap.

The flush (_flush) first returns lines held with an evict_last priority to
normal, then overwrites the whole L2: an overwrite alone leaves such lines
(reset_persisting_l2), and with them a timing that depends on which
implementation ran before.
"""

import inspect
import json
import os
import statistics
import tempfile

import torch

# Larger than the H200's 60 MB L2: writing it evicts the call's inputs.
_FLUSH_BYTES = 256 << 20
_flush_buffer = None


def _capture(fn):
    fn()  # warm up (compilation, module load)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        fn()
    torch.cuda.synchronize()
    return graph


def _warm_up(graph, count):
    """`count` replays of `graph`, each after a flush, before a timing."""
    for _ in range(count):
        _flush()
        graph.replay()


def time_graph(fn, reps=200, warmup=25):
    """Seconds per call: graph replays timed with CUDA events, each replay
    after a flush (median of `reps`)."""
    graph = _capture(fn)
    _warm_up(graph, warmup)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
    for start, end in events:
        _flush()
        start.record()
        graph.replay()
        end.record()
    torch.cuda.synchronize()
    return statistics.median(start.elapsed_time(end) for start, end in events) * 1e-3


_driver = None


def reset_persisting_l2():
    """Returns every L2 line held with an evict_last priority to normal
    (cuCtxResetPersistingL2Cache). Loads with a PTX L2::evict_last policy
    (our forwards load their rows that way) mark lines an overwrite of the
    L2 does not evict: without the reset, part of an input any earlier call
    read that way stays in L2 across every later flush, for whichever
    implementation reads it next (rms_fwd 8448x1024: Inductor's kernel
    9.6 us with the overwrite alone, 10.8 us with the reset first; ours
    9.6 and 9.8). The
    reset is not stream-ordered, so the device is synchronized first."""
    global _driver
    if _driver is None:
        import ctypes
        _driver = ctypes.CDLL("libcuda.so.1")
    torch.cuda.synchronize()
    rc = _driver.cuCtxResetPersistingL2Cache()
    if rc:
        raise RuntimeError(f"cuCtxResetPersistingL2Cache failed (CUresult {rc})")


def overwrite_l2():
    """Overwrites the L2 with a kernel no implementation launches (a
    bitwise not of int32), so the profile can tell the flushes apart. Lines
    held with an evict_last priority survive it (reset_persisting_l2)."""
    global _flush_buffer
    if _flush_buffer is None:
        _flush_buffer = torch.zeros(_FLUSH_BYTES // 4, dtype=torch.int32, device="cuda")
    _flush_buffer.bitwise_not_()


def _flush():
    """Empties the L2 of every implementation's data: resets persisting
    lines (reset_persisting_l2), then overwrite_l2."""
    reset_persisting_l2()
    overwrite_l2()


def _device_events(prof):
    """(start_us, duration_us, name) of every kernel, copy and memset the
    profile recorded, in start order."""
    events = []
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        events.append((e.time_range.start, e.time_range.elapsed_us(), e.name))
    return sorted(events)


# One profiling cycle per call: acc_events only keeps torch's profiler from
# warning, on every run, that events of earlier cycles are cleared (there are
# none). Older torch versions do not know the argument.
_PROFILE_ARGS = ({"acc_events": True}
                 if "acc_events" in inspect.signature(torch.profiler.profile).parameters
                 else {})


def _profile(callables):
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA],
                                **_PROFILE_ARGS) as prof:
        for fn in callables:
            fn()
        torch.cuda.synchronize()
    return _device_events(prof)


def busy_time(intervals):
    """Length of the union of (start, end) intervals."""
    total, end = 0.0, None
    for start, stop in sorted(intervals):
        if end is None or start >= end:
            total += stop - start
            end = stop
        elif stop > end:
            total += stop - end
            end = stop
    return total


def split_calls(events, flush_names, calls):
    """The (start, end, name) of each call's device work from a profile's
    (start, duration, name) `events` in start order, where each of `calls`
    calls follows a flush (a kernel named in `flush_names`); None when the
    profile does not split into `calls` non-empty calls."""
    groups, current = [], None
    for start, duration, name in events:
        if name in flush_names:
            if current is not None:
                groups.append(current)
            current = []
        elif current is not None:
            current.append((start, start + duration, name))
    if current is not None:
        groups.append(current)
    if len(groups) != calls or not all(groups):
        return None
    return groups


def _call_intervals(call, reps, flush_names):
    """split_calls of `reps` calls of `call`, each after a flush."""
    calls = []
    for _ in range(reps):
        calls += [_flush, call]
    return split_calls(_profile(calls), flush_names, reps)


def kernel_times(fn, graph=None, reps=60, warmup=10):
    """The summed device time (us) of the call's kernels in each of `reps`
    calls, each after an L2 flush, after `warmup` flushed calls: replays
    of `graph` (captured from `fn` if None), or direct calls where the
    profiler does not see the kernels of graph replays."""
    graph = graph or _capture(fn)
    _warm_up(graph, warmup)
    torch.cuda.synchronize()
    return [busy_time((a, b) for a, b, _ in g) for g in kernel_intervals(fn, graph, reps)]


def time_kernels(fn, reps=60, warmup=10):
    """Seconds per call: the median of kernel_times."""
    return statistics.median(kernel_times(fn, reps=reps, warmup=warmup)) * 1e-6


def profile_trace(callables):
    """The profiler's chrome trace (a dict) of calling each of `callables`
    once: its kernel events carry each launch's configuration (Kineto's
    grid, block, registers per thread, shared memory), which the events
    _profile returns do not."""
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA],
                                **_PROFILE_ARGS) as prof:
        for fn in callables:
            fn()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            return json.load(f)


def launch_configs(fn):
    """[name, grid, block, registers per thread] of each kernel one call of
    `fn` launches, from the profiler's trace; what a benchmark row
    compares, when an anchor's autotuned kernel may differ from run to
    run."""
    fn()
    torch.cuda.synchronize()
    return trace_launches(profile_trace([fn]))


def trace_launches(trace):
    """launch_configs' rows from a chrome trace (a dict): its kernel events
    in start order."""
    events = sorted((e for e in trace.get("traceEvents", []) if e.get("cat") == "kernel"),
                    key=lambda e: e.get("ts", 0))
    return [[e.get("name", ""), e.get("args", {}).get("grid"), e.get("args", {}).get("block"),
             e.get("args", {}).get("registers per thread")] for e in events]


def flush_kernel_names(flush):
    """The name of the one kernel `flush` launches in its steady state: the
    marker that starts each call in a profile. A flush's first call also
    creates its buffer (a fill kernel, which would mark any fill of a timed
    call as a flush), so `flush` runs once unprofiled first."""
    flush()
    torch.cuda.synchronize()
    names = [name for _, _, name in _profile([flush])]
    if len(names) != 1:
        raise RuntimeError(f"a flush must launch one kernel, "
                           f"{getattr(flush, '__name__', flush)} launched {names}")
    return set(names)


def kernel_intervals(fn, graph=None, reps=60):
    """The (start_us, end_us, kernel name) of each call's device work, one
    list per call of `reps`, each call after an L2 flush: replays of
    `graph` (captured from `fn` if None), or direct calls of `fn` where the
    profiler does not see the kernels of graph replays."""
    graph = graph or _capture(fn)
    flush_names = flush_kernel_names(_flush)
    groups = _call_intervals(graph.replay, reps, flush_names)
    if groups is None:
        groups = _call_intervals(fn, reps, flush_names)
    if groups is None:
        raise RuntimeError(f"the profile of {reps} calls did not split into {reps} calls")
    return groups
