#!/usr/bin/env python3
"""Where a staged split kernel's blocks spend their time: the kernel's PTX
instrumented with %globaltimer stamps (thread 0 of each block) at entry, at
each staged row's mbarrier wait (first and last data, time spent waiting),
before griddepcontrol.launch_dependents and before ret; one call after an L2
flush, then the stamps read back from a module global. Probe only: the
stamps use global atomics and change the kernel's timing a little.

Usage (on the GPU):
    python3 bench/wip/timeline_probe.py --bundle .out/x/ln_bwd_bf16_4096 --kernel norm_fused_1 --m 4224
"""

import argparse
import ctypes
import os
import re
import shutil
import statistics
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "python"))
from bench import implementations  # noqa: E402
from timing import _flush  # noqa: E402
from norm_mlir.driver import _driver, _check  # noqa: E402

SLOTS = 8
ENTRY, SMID, FIRST, LAST, WAITED, WAITS, DEPS, RET = range(SLOTS)
MAX_BLOCKS = 4096


def stamp(slot, value="t"):
    """PTX that, in thread 0, stores %globaltimer (or, with value "smid",
    the SM's id) into this block's `slot`."""
    read = ("mov.u32 dbgC, %smid; cvt.u64.u32 dbgT, dbgC;" if value == "smid"
            else "mov.u64 dbgT, %globaltimer;")
    return f"""
	{{ .reg .u64 dbgT, dbgA, dbgB; .reg .u32 dbgC; .reg .pred dbgP;
	mov.u32 dbgC, %tid.x; setp.eq.u32 dbgP, dbgC, 0;
	{read}
	mov.u32 dbgC, %ctaid.x; mul.wide.u32 dbgA, dbgC, {SLOTS * 8};
	add.u64 dbgA, dbgA, {slot * 8};
	mov.u64 dbgB, norm_dbg; add.u64 dbgA, dbgA, dbgB;
	@dbgP st.global.u64 [dbgA], dbgT;
	}}
"""


WAIT_STAMP = f"""
	{{ .reg .u64 dbgT, dbgA, dbgB, dbgD; .reg .u32 dbgC; .reg .pred dbgP;
	mov.u32 dbgC, %tid.x; setp.eq.u32 dbgP, dbgC, 0;
	mov.u64 dbgT, %globaltimer; sub.u64 dbgD, dbgT, dbgW0;
	mov.u32 dbgC, %ctaid.x; mul.wide.u32 dbgA, dbgC, {SLOTS * 8};
	mov.u64 dbgB, norm_dbg; add.u64 dbgA, dbgA, dbgB;
	@dbgP red.global.min.u64 [dbgA+{FIRST * 8}], dbgT;
	@dbgP red.global.max.u64 [dbgA+{LAST * 8}], dbgT;
	@dbgP red.global.add.u64 [dbgA+{WAITED * 8}], dbgD;
	@dbgP red.global.add.u64 [dbgA+{WAITS * 8}], 1;
	}} }}
"""


def instrument(ptx, kernel):
    start = ptx.index(f".entry {kernel}(")
    end = ptx.index("\n}\n", start) + 3
    body = ptx[start:end]
    lines = body.split("\n")
    out = []
    entered = False
    for line in lines:
        s = line.strip()
        if not entered and s.startswith("ld.param"):
            out.append(stamp(ENTRY))
            out.append(stamp(SMID, value="smid"))
            entered = True
        if s == "ret;":
            out.append(stamp(RET))
        if "griddepcontrol.launch_dependents" in s:
            out.append(stamp(DEPS))
        if "mbarrier.try_wait.parity" in s:
            # time before and after the wait: waited = after - before
            out.append("\t{ .reg .u64 dbgW0; mov.u64 dbgW0, %globaltimer;")
            out.append(line)
            out.append(WAIT_STAMP)
            continue
        out.append(line)
    assert entered, "no instruction found to stamp the entry"
    body = "\n".join(out)
    header_end = ptx.index(".address_size")
    header_end = ptx.index("\n", header_end) + 1
    glob = f"\n.global .align 8 .u64 norm_dbg[{MAX_BLOCKS * SLOTS}];\n"
    return ptx[:header_end] + glob + ptx[header_end:start] + body + ptx[end:]


def read_global(module, count):
    lib = _driver()
    ptr, size = ctypes.c_uint64(), ctypes.c_size_t()
    _check(lib.cuModuleGetGlobal_v2(ctypes.byref(ptr), ctypes.byref(size), module._module,
                                    b"norm_dbg"), "cuModuleGetGlobal")
    host = (ctypes.c_uint64 * count)()
    _check(lib.cuMemcpyDtoH_v2(host, ptr, ctypes.c_size_t(count * 8)), "cuMemcpyDtoH")
    return list(host), ptr.value


def reset_global(ptr, count):
    lib = _driver()
    host = (ctypes.c_uint64 * count)()
    for b in range(count // SLOTS):
        host[b * SLOTS + FIRST] = (1 << 64) - 1
    _check(lib.cuMemcpyHtoD_v2(ctypes.c_uint64(ptr), host, ctypes.c_size_t(count * 8)),
           "cuMemcpyHtoD")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundle", required=True)
    p.add_argument("--kernel", default="norm_fused_1")
    p.add_argument("--m", type=int, required=True)
    p.add_argument("--reps", type=int, default=5)
    args = p.parse_args()
    name = os.path.basename(args.bundle.rstrip("/"))
    op, n = "_".join(name.split("_")[:2]), int(name.split("_")[3])
    tmp = tempfile.mkdtemp()
    dst = os.path.join(tmp, name)
    shutil.copytree(args.bundle, dst)
    with open(os.path.join(dst, "kernels.ptx")) as f:
        ptx = f.read()
    with open(os.path.join(dst, "kernels.ptx"), "w") as f:
        f.write(instrument(ptx, args.kernel))
    torch.cuda.init()
    impls = implementations(op, args.m, n, tmp)
    call = impls["norm"]
    call()
    torch.cuda.synchronize()
    launcher = None
    for cell in (call.__closure__ or []):
        v = cell.cell_contents
        if hasattr(v, "module"):
            launcher = v
    assert launcher is not None and launcher.module is not None, "no launcher in the call"
    count = MAX_BLOCKS * SLOTS
    _, ptr = read_global(launcher.module, count)
    print(f"{name} {args.kernel} M = {args.m}")
    for rep in range(args.reps):
        reset_global(ptr, count)
        _flush()
        torch.cuda.synchronize()
        call()
        torch.cuda.synchronize()
        data, _ = read_global(launcher.module, count)
        blocks = [data[b * SLOTS:(b + 1) * SLOTS] for b in range(MAX_BLOCKS)
                  if data[b * SLOTS + ENTRY]]
        t0 = min(b[ENTRY] for b in blocks)
        rel = lambda k: [(b[k] - t0) / 1e3 for b in blocks]
        def q(v):
            v = sorted(v)
            return f"min {v[0]:6.2f} med {statistics.median(v):6.2f} max {v[-1]:6.2f}"
        print(f" rep {rep}: {len(blocks)} blocks on {len({b[SMID] for b in blocks})} SMs, us from the first block's entry")
        print(f"   entry        {q(rel(ENTRY))}")
        print(f"   first data   {q(rel(FIRST))}")
        print(f"   last data    {q(rel(LAST))}")
        print(f"   deps         {q(rel(DEPS))}")
        print(f"   ret          {q(rel(RET))}")
        print(f"   waited us    {q([b[WAITED] / 1e3 for b in blocks])}  waits {q([b[WAITS] for b in blocks])}")
        spans = [(b[RET] - b[ENTRY]) / 1e3 for b in blocks]
        print(f"   block span   {q(spans)}")
        print(f"   entry->first {q([(b[FIRST] - b[ENTRY]) / 1e3 for b in blocks])}")
        print(f"   last->ret    {q([(b[RET] - b[LAST]) / 1e3 for b in blocks])}")


if __name__ == "__main__":
    main()
