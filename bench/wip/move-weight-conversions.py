#!/usr/bin/env python3
"""Experiment of session 19 (not a tool): moves a one-warp-per-row forward's
weight unpacking and bf16 -> f32 conversions from before its row loop to
just before their first use in the loop, in the PTX text, to measure what
the registers cost (RMS fwd N = 1024: 79 -> 63 registers, LN 128 -> 96;
bench/results/ab-2026-12-01-one-warp-late-weights-n1024.log). The bundles
came from norm-compile with chooseRowLayout's 128-thread floor and row
groups overridden (threads 32, one row a block, no staging).

Usage: move-weight-conversions.py IN.ptx OUT.ptx
"""
import re, sys
src, dst = sys.argv[1], sys.argv[2]
L = open(src).read().split('\n')
# the column (weight) loads: ld.global.v4 before the loop label $L__BB0_2 whose address is not row-indexed: take the first 4 (RMS) or 8 (LN) ld.global.v4 before the first "bra.uni"
first_loop = next(i for i, l in enumerate(L) if l.startswith('$L__BB0_2:'))
pre = range(0, first_loop)
moved_idx = []
wregs = set()
for i in pre:
    m = re.match(r'\s*ld\.global\.v4\.b32\s+\{([^}]*)\}', L[i])
    if m:
        wregs |= {r.strip() for r in m.group(1).split(',')}
rs = set()
for i in pre:
    m = re.match(r'\s*mov\.b32\s+\{(%rs\d+), (%rs\d+)\}, (%r\d+);', L[i])
    if m and m.group(3) in wregs:
        moved_idx.append(i); rs |= {m.group(1), m.group(2)}
cvt_def = set()
for i in pre:
    m = re.match(r'\s*cvt\.f32\.bf16\s+(%r\d+), (%rs\d+);', L[i])
    if m and m.group(2) in rs:
        moved_idx.append(i); cvt_def.add(m.group(1))
moved = [L[i] for i in sorted(moved_idx)]
keep = [l for i, l in enumerate(L) if i not in set(moved_idx)]
# first use of a converted weight inside the loop body
def uses(l):
    return any(re.search(re.escape(r) + r'\b', l.split(None, 1)[1] if len(l.split(None,1))>1 else '') for r in cvt_def)
start = next(i for i, l in enumerate(keep) if l.startswith('$L__BB0_2:'))
pos = next(i for i in range(start, len(keep)) if not re.match(r'\s*cvt\.f32\.bf16', keep[i]) and uses(keep[i]))
out = keep[:pos] + moved + keep[pos:]
open(dst, 'w').write('\n'.join(out))
print(len(moved), 'lines moved before line', pos, ':', keep[pos].strip())
