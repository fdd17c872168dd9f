"""The CPU path of the Python package: norm programs compiled for this CPU
through the C API and run on numpy arrays, against float64 references."""

import numpy as np
import pytest

from norm_mlir import compiler

pytestmark = pytest.mark.skipif(compiler._library() is None,
                                reason="libNormCAPI.so is not built")

from norm_mlir import cpu  # noqa: E402


def to_bf16(a):
    bits = np.ascontiguousarray(a, dtype=np.float32).view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def from_bf16(h):
    return (h.astype(np.uint32) << 16).view(np.float32)


def store(a, t):
    return to_bf16(a) if t == "bf16" else np.ascontiguousarray(a, dtype=np.float32)


def load(a, t):
    return (from_bf16(a) if t == "bf16" else a).astype(np.float64)


def poisoned(shape, t):
    """NaN-filled output (bf16 NaN bits for uint16 storage): unwritten
    elements fail the comparisons."""
    if t == "bf16":
        return np.full(shape, 0x7FC0, dtype=np.uint16)
    return np.full(shape, np.nan, dtype=np.float32)


def rel(out, ref):
    assert np.all(np.isfinite(out))
    return np.linalg.norm(out - ref) / max(np.linalg.norm(ref), 1e-30)


@pytest.mark.parametrize("t", ["f32", "bf16"])
@pytest.mark.parametrize("m,n", [(1, 64), (37, 100), (200, 24)])
def test_forward_ops(t, m, n):
    rng = np.random.default_rng(m * n)
    x = store(rng.normal(size=(m, n)) * 2 + 0.5, t)
    w = store(1 + 0.5 * rng.normal(size=n), t)
    b = store(0.3 * rng.normal(size=n), t)
    xd, wd, bd = load(x, t), load(w, t), load(b, t)
    tol = 1e-2 if t == "bf16" else 1e-5
    # RMSNorm
    y = poisoned((m, n), t)
    rstd = np.full(m, np.nan, dtype=np.float32)
    cpu.op("rms_fwd", n, t, t, eps=1e-6, offset=0.0).run("rms_fwd", x, w, y, rstd)
    r = 1 / np.sqrt((xd ** 2).mean(-1) + 1e-6)
    assert rel(load(y, t), xd * r[:, None] * wd) < tol
    assert rel(rstd.astype(np.float64), r) < 1e-5
    # LayerNorm
    mean = np.full(m, np.nan, dtype=np.float32)
    cpu.op("ln_fwd", n, t, t, eps=1e-5, bias=True).run("ln_fwd", x, w, b, y, mean, rstd)
    mu = xd.mean(-1)
    r = 1 / np.sqrt(((xd - mu[:, None]) ** 2).mean(-1) + 1e-5)
    assert rel(load(y, t), (xd - mu[:, None]) * r[:, None] * wd + bd) < tol
    assert rel(mean.astype(np.float64), mu) < 1e-5


@pytest.mark.parametrize("t", ["f32", "bf16"])
def test_backward_ops(t):
    m, n = 300, 48
    rng = np.random.default_rng(7)
    x, dy = store(rng.normal(size=(m, n)), t), store(rng.normal(size=(m, n)), t)
    w = store(1 + 0.5 * rng.normal(size=n), t)
    xd, dyd, wd = load(x, t), load(dy, t), load(w, t)
    tol = 1e-2 if t == "bf16" else 1e-4
    dx, dw, db = poisoned((m, n), t), poisoned(n, t), poisoned(n, t)
    # RMSNorm backward
    r = (1 / np.sqrt((xd ** 2).mean(-1) + 1e-6)).astype(np.float32)
    cpu.op("rms_bwd", n, t, t, offset=0.0).run("rms_bwd", dy, x, r, w, dx, dw)
    rd = r.astype(np.float64)[:, None]
    g, xhat = dyd * wd, xd * rd
    c = (g * xhat).mean(-1, keepdims=True)
    assert rel(load(dx, t), rd * (g - xhat * c)) < tol
    assert rel(load(dw, t), (dyd * xhat).sum(0)) < tol
    # LayerNorm backward
    mu = xd.mean(-1).astype(np.float32)
    r = (1 / np.sqrt(((xd - mu[:, None]) ** 2).mean(-1) + 1e-5)).astype(np.float32)
    cpu.op("ln_bwd", n, t, t, bias=True).run("ln_bwd", dy, x, mu, r, w, dx, dw, db)
    rd, mud = r.astype(np.float64)[:, None], mu.astype(np.float64)[:, None]
    xhat = (xd - mud) * rd
    a = g.mean(-1, keepdims=True)
    c = (g * xhat).mean(-1, keepdims=True)
    assert rel(load(dx, t), rd * (g - a - xhat * c)) < tol
    assert rel(load(dw, t), (dyd * xhat).sum(0)) < tol
    assert rel(load(db, t), dyd.sum(0)) < tol


def test_errors():
    with pytest.raises(compiler.CompileError, match="error"):
        cpu.CpuProgram("func.func @f() { norm.nope }")
    p = cpu.op("rms_fwd", 16, "f32", None, eps=1e-6, offset=0.0)
    with pytest.raises(RuntimeError, match="running nope failed"):
        p.run("nope")
    with pytest.raises(ValueError, match="C-contiguous"):
        p.run("rms_fwd", np.zeros((4, 16), np.float32)[:, ::2],
              np.zeros((4, 16), np.float32), np.zeros(4, np.float32))


def test_arrays_that_do_not_fit_are_refused():
    """Compiled code reads descriptors blindly: every misfit is an error
    before the call, never an out-of-bounds access."""
    p = cpu.op("rms_fwd", 16, "f32", None, eps=1e-6, offset=0.0)
    assert p.argument_types("rms_fwd") == ["memref<?x16xf32>", "memref<?x16xf32>",
                                           "memref<?xf32>"]
    x, y, r = np.ones((4, 16), np.float32), np.empty((4, 16), np.float32), np.empty(4, np.float32)
    with pytest.raises(ValueError, match=r"rms_fwd takes 3 arrays .*, got 1"):
        p.run("rms_fwd", x)
    with pytest.raises(TypeError, match=r"argument #1 is memref<\?x16xf32>, carried by "
                                        r"float32 arrays; got float16"):
        p.run("rms_fwd", x, y.astype(np.float16), r)
    with pytest.raises(ValueError, match=r"argument #2 is memref<\?xf32>; got a 2-D array"):
        p.run("rms_fwd", x, y, r.reshape(2, 2))
    with pytest.raises(RuntimeError, match=r"argument #2 \(memref<\?xf32>\): dimension 0 is "
                                           r"3 but must equal dimension 0 of argument #0"):
        p.run("rms_fwd", x, y, r[:3])
    with pytest.raises(RuntimeError, match=r"argument #1 \(memref<\?x16xf32>\): dimension 0 "
                                           r"is 5 but must equal"):
        p.run("rms_fwd", x, np.empty((5, 16), np.float32), r)
    with pytest.raises(RuntimeError, match=r"dimension 1 is 8 but its type says 16"):
        p.run("rms_fwd", np.ones((4, 8), np.float32), y, r)
    p.run("rms_fwd", x, y, r)
    assert np.allclose(y, 1.0) and np.allclose(r, 1.0, atol=1e-5)


GROUP_CENTERED = """
func.func @run(%xm: memref<?x{n}xf32>, %vm: memref<?xf32>, %topm: memref<?xf32>) {{
  %x = bufferization.to_tensor %xm restrict : memref<?x{n}xf32> to tensor<?x{n}xf32>
  %gs = norm.reduce <group> <add> ins(%x : full tensor<?x{n}xf32>) {{group_size = {g} : i64}} -> tensor<?x{k}xf32> {{
  ^bb0(%a: f32):
    norm.yield %a : f32
  }}
  %v = norm.reduce <row> <add> ins(%x : full tensor<?x{n}xf32>, %gs : group tensor<?x{k}xf32>) {{group_size = {g} : i64}} -> tensor<?xf32> {{
  ^bb0(%a: f32, %s: f32):
    %c = arith.constant {inv:.17e} : f32
    %m = arith.mulf %s, %c : f32
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    norm.yield %q : f32
  }}
  %top = norm.reduce <row> <max> ins(%x : full tensor<?x{n}xf32>, %gs : group tensor<?x{k}xf32>) {{group_size = {g} : i64}} -> tensor<?xf32> {{
  ^bb0(%a: f32, %s: f32):
    norm.yield %s : f32
  }}
  bufferization.materialize_in_destination %v in restrict writable %vm : (tensor<?xf32>, memref<?xf32>) -> ()
  bufferization.materialize_in_destination %top in restrict writable %topm : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}}
"""


@pytest.mark.parametrize("n, g", [(256, 128), (96, 32), (600, 120)])
def test_row_reductions_of_group_reductions(n, g):
    # A row reduction of values that read a group reduction (each element's
    # distance from its group's mean, and the largest group sum) runs in one
    # kernel: the CPU lowering walks the row a group at a time for it.
    rng = np.random.default_rng(n + g)
    m = 5
    x = rng.standard_normal((m, n)).astype(np.float32) + 3
    prog = cpu.CpuProgram(GROUP_CENTERED.format(n=n, g=g, k=n // g, inv=1.0 / g))
    v, top = np.zeros(m, np.float32), np.zeros(m, np.float32)
    prog.run("run", x, v, top)
    groups = x.astype(np.float64).reshape(m, n // g, g)
    sums = groups.sum(-1, keepdims=True)
    expected = ((groups - sums / g) ** 2).sum((-1, -2))
    np.testing.assert_allclose(v, expected, rtol=1e-5)
    np.testing.assert_allclose(top, sums.max((-1, -2)), rtol=1e-5)
