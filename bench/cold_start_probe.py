#!/usr/bin/env python3
"""What the benchmark's kernel timing charges short calls for, beside their
work: the kernel time of one implementation (norm, compile, eager) at one
shape under four conditions, each call's kernels summed as bench/timing.py's
time_kernels sums them (median of 60), beside time_kernels itself (bench):

- dirty:  after the benchmark's flush (256 MB overwritten: L2 full of dirty
          lines of another buffer, the call's code and data evicted), what
          bench.py measures;
- primed: the same flush, then the same implementation on inputs of its own,
          then the timed call: its code (and its page translations for the
          weights' pages, but not its inputs') is warm;
- clean:  after a read-only flush (256 MB summed: L2 full of clean lines);
- warm:   right after the same call, nothing flushed.

Where ours loses to Inductor under dirty but not under primed, the gap is
the cold start of code (instruction fetch) rather than of data.

Usage (on the GPU):
    python3 bench/cold_start_probe.py --bundles DIR rms_bwd:1x4096 rms_fwd:4096x1024 ...
"""

import argparse
import collections
import itertools
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench import copy_ceiling, implementations, parse_case  # noqa: E402
from timing import (_capture, _flush, _profile, busy_time, flush_kernel_names,  # noqa: E402
                    reset_persisting_l2, split_calls, time_kernels)

_FLUSH_ELEMENTS = (256 << 20) // 4
_buffers = {}


def _buffer(key, make):
    # Not dict.setdefault: that would evaluate make() (a 256 MB fill) on
    # every call, and the fill would count as a second marker.
    if key not in _buffers:
        _buffers[key] = make()
    return _buffers[key]


# The benchmark's own flush: the L2 left full of dirty lines.
_dirty_flush = _flush


def _clean_flush():
    # Rows of 4096 summed each by one block: no memset of the output first
    # (a whole-buffer sum launches one), so the flush is one marker kernel.
    buf = _buffer("clean", lambda: torch.ones(_FLUSH_ELEMENTS // 4096, 4096,
                                              dtype=torch.float32, device="cuda"))
    out = _buffer("sum", lambda: torch.empty(_FLUSH_ELEMENTS // 4096, dtype=torch.float32,
                                             device="cuda"))
    reset_persisting_l2()
    torch.sum(buf, dim=1, out=out)


def _timed_tail(sequences, kernels, reps, marker_names):
    """Busy time of the last `kernels` events after each marker (a flush
    kernel), median over `reps` repetitions of a sequence: the first of
    `sequences` whose profile splits into `reps` calls (graph replays, then
    direct calls, as bench/timing.py falls back)."""
    for sequence in sequences:
        events = _profile(sequence * reps)
        groups = split_calls(events, marker_names, reps)
        if groups is not None and all(len(g) >= kernels for g in groups):
            return statistics.median(busy_time((a, b) for a, b, _ in g[-kernels:])
                                     for g in groups)
    counts = collections.Counter(name[:60] for _, _, name in events)
    raise RuntimeError(f"the profile did not split into {reps} calls of {kernels} "
                       f"kernels or more after the markers {sorted(marker_names)}; "
                       f"it held {dict(counts)}")


def probe(call, primer_call, reps=60):
    """Kernel count of `call` and its times (us) under each condition;
    `primer_call` is the same implementation on inputs of its own."""
    timed, primer = _capture(call), _capture(primer_call)
    kernels = len(_profile([call]))
    dirty, clean = flush_kernel_names(_dirty_flush), flush_kernel_names(_clean_flush)
    for _ in range(5):
        _dirty_flush()
        timed.replay()
    torch.cuda.synchronize()

    def tail(flush, *calls):
        replays = [flush] + [c[0].replay for c in calls]
        direct = [flush] + [c[1] for c in calls]
        return _timed_tail([replays, direct], kernels, reps,
                           dirty if flush is _dirty_flush else clean)

    me, other = (timed, call), (primer, primer_call)
    result = {
        # What bench.py measures, timed by its own code in this process.
        "bench": time_kernels(call, reps) * 1e6,
        "dirty": tail(_dirty_flush, me),
        "primed": tail(_dirty_flush, other, me),
        "clean": tail(_clean_flush, me),
        # Warm: the call after itself; a clean flush marks every other pair.
        "warm": tail(_clean_flush, me, me),
    }
    return kernels, result


def main():
    p = argparse.ArgumentParser()
    p.add_argument("cases", nargs="+", type=parse_case,
                   help="op:MxN, op one of rms_fwd ln_fwd rms_bwd ln_bwd")
    p.add_argument("--bundles", required=True)
    p.add_argument("--impls", default="norm,compile")
    p.add_argument("--separate-inputs", action="store_true",
                   help="each implementation on inputs of its own (bench.py gives "
                        "all of a shape's implementations the same inputs)")
    p.add_argument("--repeat", type=int, default=1,
                   help="probe each case this many times, on new inputs each time")
    p.add_argument("--ceiling-first", action="store_true",
                   help="measure the copy ceiling first, as bench.py does (its 4 GiB "
                        "stay in torch's cache and the inputs are carved from them)")
    p.add_argument("--pad-mb", default="0",
                   help="comma-separated MB allocated before each case's inputs: moves "
                        "the inputs' addresses, to see whether a ratio depends on them")
    args = p.parse_args()
    if args.ceiling_first:
        print(f"copy ceiling {copy_ceiling(time_kernels) / 1e12:.2f} TB/s [kernels]")
    conditions = ("bench", "dirty", "primed", "clean", "warm")
    print(f"{'case':<22}{'impl':<9}{'kernels':>8}" + "".join(f"{c:>9}" for c in conditions)
          + "   (us, kernel time, median of 60)")
    for op, m, n in args.cases:
        for pad_mb, _ in itertools.product((int(v) for v in args.pad_mb.split(",")),
                                           range(args.repeat)):
            case = f"{op}:{m}x{n}" + (f" +{pad_mb}MB" if pad_mb else "")
            pad = torch.empty(pad_mb << 20, dtype=torch.uint8, device="cuda")  # noqa: F841
            shared = implementations(op, m, n, args.bundles)
            primers = implementations(op, m, n, args.bundles)
            rows = {}
            for impl in args.impls.split(","):
                own = implementations(op, m, n, args.bundles) if args.separate_inputs else shared
                kernels, r = probe(own[impl], primers[impl])
                rows[impl] = r
                print(f"{case:<22}{impl:<9}{kernels:>8}"
                      + "".join(f"{r[c]:>9.2f}" for c in conditions), flush=True)
            if "norm" in rows and "compile" in rows:
                print(f"{case:<22}{'ratio':<9}{'':>8}"
                      + "".join(f"{rows['compile'][c] / rows['norm'][c]:>9.2f}"
                                for c in conditions)
                      + "   (compile / norm: above 1 is ours faster)", flush=True)


if __name__ == "__main__":
    main()
