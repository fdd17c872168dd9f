#!/usr/bin/env python3
"""Host cost per call: what the CPU spends to issue one RMSNorm call, beside
torch eager and torch.compile, and the device time of the same call in a
CUDA graph beside the copy ceiling.

For N = 4096 (--n), bf16, M in 1, 32, 128, 4096 (--m), each implementation
of y = rms_norm(x, (N,), w, eps):
- eager: torch.nn.functional.rms_norm;
- compile: the same function under torch.compile (fullgraph);
- norm: norm_mlir.functional.rms_norm (the native extension where it is
  loaded, else the Python ops; the script says which);
- norm (python): the same in a child process with NORM_MLIR_NATIVE=0, for
  the launch path the extension replaces (--no-python leaves it out);
it prints the host microseconds per forward call and per forward +
backward (y.backward(dy), weight gradient included): the median over
--calls calls of the time the call takes to return, with the stream
synchronized every 50 calls so a full launch queue never blocks it, the
implementations measured in ten interleaved rounds so that the host's own
noise weighs on all alike. Then
the device time per call of the forward captured in a CUDA graph (replays
timed with events, L2 flushed: bench/timing.py) and the floor the copy
ceiling puts under it (minimum bytes / ceiling). The ratio column is
norm's host time over eager's, the issue's bound being 1.2.

Usage (on the GPU): python3 bench/host_cost.py [--json out.json]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def host_samples(fn, calls, sync_every=50):
    """Host seconds `fn` takes to return, one sample per call."""
    import torch
    torch.cuda.synchronize()
    times = []
    for i in range(calls):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
        if i % sync_every == sync_every - 1:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    return times


def host_us(fns, calls, rounds=10, warmup=20):
    """Median host microseconds per call of each of `fns` (name -> callable),
    measured in `rounds` interleaved rounds (the order rotating), so that
    whatever else the host does at the time weighs on all of them alike."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    samples = {name: [] for name in fns}
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[:r % len(names)]:
            samples[name] += host_samples(fns[name], max(1, calls // rounds))
    return {name: statistics.median(times) * 1e6 for name, times in samples.items()}


def implementations(python_only):
    import torch
    import torch.nn.functional as F
    import norm_mlir.functional as NF
    if python_only:
        return {"norm (python)": NF.rms_norm}
    compiled = torch.compile(lambda x, shape, w, eps: F.rms_norm(x, shape, w, eps),
                             fullgraph=True)
    return {"eager": F.rms_norm, "compile": compiled, "norm": NF.rms_norm}


def measure(ms, n, calls, python_only, graph_times):
    import torch
    from timing import time_graph
    results = {}
    for m in ms:
        gen = torch.Generator(device="cuda").manual_seed(m)
        x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, generator=gen)
        w = torch.randn(n, device="cuda", dtype=torch.bfloat16, generator=gen)
        xg = x.clone().requires_grad_()
        wg = w.clone().requires_grad_()
        dy = torch.randn_like(x)
        forwards, trainings = {}, {}
        for name, f in implementations(python_only).items():
            def forward(f=f):
                with torch.no_grad():
                    return f(x, (n,), w, 1e-6)

            def training(f=f):
                f(xg, (n,), wg, 1e-6).backward(dy)

            forwards[name], trainings[name] = forward, training
        fwd, fwd_bwd = host_us(forwards, calls), host_us(trainings, calls)
        for name in forwards:
            row = {"fwd_us": fwd[name], "fwd_bwd_us": fwd_bwd[name]}
            if graph_times:
                row["graph_us"] = time_graph(forwards[name]) * 1e6
            results.setdefault(str(m), {})[name] = row
    return results


def python_ops_results(args):
    """The Python launch path, measured in a child process (the extension
    is chosen once per process)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child-python", "--n", str(args.n),
           "--m", args.m, "--calls", str(args.calls)]
    env = dict(os.environ, NORM_MLIR_NATIVE="0")
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        print("norm (python) failed:\n" + out.stderr[-3000:], file=sys.stderr)
        return {}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=4096)
    parser.add_argument("--m", default="1,32,128,4096")
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--no-python", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--child-python", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    ms = [int(v) for v in args.m.split(",")]

    import torch
    import norm_mlir  # before bench.py, which puts the repository's python/ first on the path
    if args.child_python:
        print(json.dumps(measure(ms, args.n, args.calls, True, False)))
        return

    from bench import copy_ceiling, min_bytes
    from norm_mlir import native
    ceiling = copy_ceiling()
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}  "
          f"copy ceiling {ceiling / 1e12:.2f} TB/s  norm: native extension "
          f"{'loaded' if native.loaded else 'NOT loaded (' + native.reason + ')'}", flush=True)
    results = measure(ms, args.n, args.calls, False, True)
    if not args.no_python:
        for m, row in python_ops_results(args).items():
            results[m].update(row)

    names = ["eager", "compile", "norm", "norm (python)"]
    print(f"\nRMSNorm bf16 N = {args.n}: host us per call (median of {args.calls}); "
          "graph: device us per forward in a CUDA graph; floor: min bytes / copy ceiling")
    print(f"{'M':>6} {'impl':>14} {'fwd':>8} {'fwd+bwd':>9} {'graph':>8}")
    for m in ms:
        floor = min_bytes("rms_fwd", m, args.n) / ceiling * 1e6
        row = results[str(m)]
        for name in names:
            if name not in row:
                continue
            r = row[name]
            graph = f"{r['graph_us']:8.2f}" if "graph_us" in r else f"{'-':>8}"
            print(f"{m:>6} {name:>14} {r['fwd_us']:8.2f} {r['fwd_bwd_us']:9.2f} {graph}")
        ratio_f = row["norm"]["fwd_us"] / row["eager"]["fwd_us"]
        ratio_b = row["norm"]["fwd_bwd_us"] / row["eager"]["fwd_bwd_us"]
        print(f"{m:>6} {'norm/eager':>14} {ratio_f:8.2f} {ratio_b:9.2f}   floor {floor:.2f} us")
        results[str(m)]["floor_us"] = floor
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "native": native.loaded, "n": args.n,
                       "copy_ceiling_tbps": ceiling / 1e12, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
