"""The custom ops and modules on CPU tensors (the CPU lowering), including
their fake kernels under torch.compile. Needs torch and the compiler; skipped
where either is missing (CI has no torch: its wheel pulls GBs of CUDA
libraries)."""

import os
import subprocess
import sys
import textwrap

import pytest

torch = pytest.importorskip("torch")

from norm_mlir import compiler  # noqa: E402

if compiler._library() is None:
    pytest.skip("libNormCAPI.so is not built", allow_module_level=True)

import norm_mlir  # noqa: E402
from norm_mlir import ops  # noqa: E402


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.bfloat16, 1e-2)])
def test_ops_and_gradients_on_cpu(dtype, tol):
    torch.manual_seed(0)
    n = 96
    x = torch.randn(5, 7, n, dtype=dtype, requires_grad=True)
    w = (torch.randn(n) * 0.5 + 1).to(dtype).requires_grad_()
    b = (torch.randn(n) * 0.1).to(dtype).requires_grad_()
    dy = torch.randn(5, 7, n, dtype=dtype)
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
    y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
    yd = torch.nn.functional.rms_norm(xd, (n,), wd, 1e-6)
    assert rel(y, yd) < tol
    gx, gw = torch.autograd.grad(y, (x, w), dy)
    rx, rw = torch.autograd.grad(yd, (xd, wd), dy.double())
    assert rel(gx, rx) < tol and rel(gw, rw) < tol
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    yd = torch.nn.functional.layer_norm(xd, (n,), wd, bd, 1e-5)
    assert rel(y, yd) < tol
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    rx, rw, rb = torch.autograd.grad(yd, (xd, wd, bd), dy.double())
    assert rel(gx, rx) < tol and rel(gw, rw) < tol and rel(gb, rb) < tol


def test_inference_ops_on_cpu():
    # The forwards without statistics: y equal to the training forward's.
    torch.manual_seed(3)
    x = torch.randn(6, 80)
    w, b = torch.randn(80) * 0.5 + 1, torch.randn(80) * 0.1
    assert torch.equal(ops.rms_norm_inference(x, w, 1e-6, 0.0), ops.rms_norm(x, w, 1e-6, 0.0)[0])
    assert torch.equal(ops.layer_norm_inference(x, w, b, 1e-5),
                       ops.layer_norm(x, w, b, 1e-5)[0])
    assert torch.equal(ops.layer_norm_inference(x, None, None, 1e-5),
                       ops.layer_norm(x, None, None, 1e-5)[0])
    with pytest.raises(ValueError, match="a bias needs a weight"):
        ops.layer_norm_inference(x, None, b, 1e-5)
    # They save nothing for a backward: a gradient through them is refused.
    xg = x.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="rms_norm_inference has no backward"):
        ops.rms_norm_inference(xg, w, 1e-6, 0.0).sum().backward()
    with pytest.raises(RuntimeError, match="use norm_mlir::layer_norm where"):
        ops.layer_norm_inference(xg, w, b, 1e-5).sum().backward()


@pytest.mark.parametrize("shape,normalized", [((6, 80), 80), ((2, 3, 4, 16), (4, 16)),
                                              ((5, 96), [96])])
def test_functional_matches_torch(shape, normalized):
    # norm_mlir.functional has torch.nn.functional's signatures and results,
    # with and without gradients (the training and the inference op).
    from norm_mlir import functional as NF
    torch.manual_seed(4)
    ns = (normalized,) if isinstance(normalized, int) else tuple(normalized)
    x = torch.randn(*shape)
    w = torch.randn(ns) * 0.5 + 1
    b = torch.randn(ns) * 0.1
    # (torch's rms_norm wants a sequence; ours also takes an int.)
    for eps in (None, 1e-6):
        assert rel(NF.rms_norm(x, normalized, w, eps),
                   torch.nn.functional.rms_norm(x, ns, w, eps)) < 1e-5
    assert rel(NF.rms_norm(x, normalized), torch.nn.functional.rms_norm(x, ns)) < 1e-5
    for wb in ((w, b), (w, None), (None, None)):
        assert rel(NF.layer_norm(x, normalized, *wb),
                   torch.nn.functional.layer_norm(x, ns, *wb)) < 1e-5
    xg, wg, bg = (t.clone().requires_grad_() for t in (x, w, b))
    xd, wd, bd = (t.detach().double().requires_grad_() for t in (x, w, b))
    y = NF.layer_norm(xg, normalized, wg, bg)
    yd = torch.nn.functional.layer_norm(xd, ns, wd, bd)
    dy = torch.randn(shape)
    for g, r in zip(torch.autograd.grad(y, (xg, wg, bg), dy),
                    torch.autograd.grad(yd, (xd, wd, bd), dy.double())):
        assert rel(g, r) < 1e-4
    y = NF.rms_norm(xg, normalized, wg, 1e-6)
    yd = torch.nn.functional.rms_norm(xd, ns, wd, 1e-6)
    for g, r in zip(torch.autograd.grad(y, (xg, wg), dy),
                    torch.autograd.grad(yd, (xd, wd), dy.double())):
        assert rel(g, r) < 1e-4


def test_functional_falls_back_to_torch(monkeypatch):
    # What no kernel takes goes to torch.nn.functional: float64, a bias
    # without a weight, a bias of another dtype than the weight, a shape that
    # is not x's last dimensions. The custom ops are not called.
    from norm_mlir import functional as NF

    def refuse(*args):
        raise AssertionError("a custom op was called")
    for name in ("rms_norm", "rms_norm_inference", "layer_norm", "layer_norm_inference"):
        monkeypatch.setattr(ops, name, refuse)
    x = torch.randn(4, 32, dtype=torch.float64)
    w = torch.randn(32, dtype=torch.float64)
    assert torch.equal(NF.rms_norm(x, (32,), w, 1e-6),
                       torch.nn.functional.rms_norm(x, (32,), w, 1e-6))
    x, w, b = torch.randn(4, 32), torch.randn(32), torch.randn(32)
    assert torch.equal(NF.layer_norm(x, (32,), None, b),
                       torch.nn.functional.layer_norm(x, (32,), None, b))
    # torch rejects these itself (mixed parameter dtypes on the CPU, a shape
    # that is not x's): its error, not one of ours.
    with pytest.raises(RuntimeError, match="mixed dtype"):
        NF.layer_norm(x, (32,), w.bfloat16(), b)
    with pytest.raises(RuntimeError):
        NF.rms_norm(x, (16,), None)


def test_functional_rejects_a_weight_of_the_wrong_shape():
    from norm_mlir import functional as NF
    with pytest.raises(ValueError, match=r"weight/bias must have shape \(32,\), got \(16,\)"):
        NF.layer_norm(torch.randn(4, 32), 32, torch.ones(16))


def test_bad_tensors_are_clear_errors_on_cpu():
    """Every misfit is refused before the compiled code reads a buffer."""
    x, w = torch.randn(4, 16, dtype=torch.bfloat16), torch.ones(16, dtype=torch.bfloat16)
    y, r = ops.rms_norm(x, w, 1e-6, 0.0)
    dy = torch.randn_like(x)
    with pytest.raises(ValueError, match=r"dy must have the shape and dtype of x "
                                         r"\(\(4, 16\), torch.bfloat16\), got \(\(3, 16\)"):
        ops.rms_norm_backward(dy[:3], x, r, w, 0.0)
    with pytest.raises(ValueError, match="dy must have the shape and dtype of x"):
        ops.rms_norm_backward(dy.float(), x, r, w, 0.0)
    with pytest.raises(ValueError, match=r"one value per row of x \(4\), got torch.float32 with 2"):
        ops.rms_norm_backward(dy, x, r[:2], w, 0.0)
    with pytest.raises(ValueError, match=r"mean/rstd must be float32"):
        ops.layer_norm_backward(dy, x, r.bfloat16(), r, w, True)
    with pytest.raises(ValueError, match="eps must be positive and finite, got inf"):
        ops.rms_norm(x, w, float("inf"), 0.0)
    with pytest.raises(ValueError, match="offset must be finite, got nan"):
        ops.rms_norm(x, w, 1e-6, float("nan"))
    with pytest.raises(ValueError, match=r"non-empty last dimension, got shape \(\)"):
        ops.rms_norm(torch.tensor(1.0), None, 1e-6, 0.0)
    with pytest.raises(TypeError, match="weight/bias must be bfloat16, float16 or float32, "
                                        "got torch.float64"):
        ops.layer_norm(x, w.double(), None, 1e-5)
    # No rows is not an error: empty outputs, and zero parameter gradients.
    e = torch.randn(0, 16)
    y, mean, rstd = ops.layer_norm(e, torch.ones(16), torch.zeros(16), 1e-5)
    assert y.shape == (0, 16) and mean.shape == rstd.shape == (0,)
    dx, dw, db = ops.layer_norm_backward(e, e, mean, rstd, torch.ones(16), True)
    assert dx.shape == (0, 16) and not dw.any() and not db.any()


def test_functional_takes_what_torch_takes():
    """Calls the kernels do not take (eps of 0 or less, empty rows) give
    torch's results, as the functional API promises, not an error."""
    from norm_mlir import functional as NF
    x = torch.randn(4, 16)
    x[1] = 0
    for eps in (0.0, -1e-3):
        assert torch.equal(NF.rms_norm(x, (16,), None, eps).isnan(),
                           torch.nn.functional.rms_norm(x, (16,), None, eps).isnan())
        assert torch.allclose(NF.layer_norm(x, (16,), eps=eps),
                              torch.nn.functional.layer_norm(x, (16,), eps=eps), equal_nan=True)
    assert NF.rms_norm(torch.randn(4, 0), (0,)).shape == (4, 0)
    assert NF.layer_norm(torch.randn(4, 0), 0).shape == (4, 0)
    # The custom ops themselves refuse such an eps, by name.
    with pytest.raises(ValueError, match="eps must be positive and finite, got 0.0"):
        ops.rms_norm(x, None, 0.0, 0.0)


def test_opcheck():
    # torch.library's own consistency checks: schema, fake kernel, autograd.
    x = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    torch.library.opcheck(torch.ops.norm_mlir.rms_norm.default, (x, w, 1e-6, 0.0))
    torch.library.opcheck(torch.ops.norm_mlir.layer_norm.default, (x, w, w, 1e-5))
    x, w = x.detach(), w.detach()
    torch.library.opcheck(torch.ops.norm_mlir.rms_norm_inference.default, (x, w, 1e-6, 0.0))
    torch.library.opcheck(torch.ops.norm_mlir.layer_norm_inference.default, (x, w, w, 1e-5))


def test_modules_under_torch_compile_on_cpu():
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), norm_mlir.RMSNorm(64),
                                torch.nn.Linear(64, 64), norm_mlir.LayerNorm(64))
    ref = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.RMSNorm(64),
                              torch.nn.Linear(64, 64), torch.nn.LayerNorm(64))
    ref.load_state_dict(model.state_dict())
    x = torch.randn(16, 64)
    compiled = torch.compile(model, fullgraph=True)
    assert rel(compiled(x), ref(x)) < 1e-5
    with torch.no_grad():  # the inference ops, traced through their fake kernels
        assert rel(compiled(x), ref(x)) < 1e-5
    # A loss whose gradients do not cancel (mean(square(LayerNorm(.))) is
    # nearly constant, so its gradients are rounding noise).
    probe = torch.randn(16, 64)
    (compiled(x) * probe).sum().backward()
    (ref(x) * probe).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        assert rel(p.grad, q.grad) < 1e-4


def test_compiled_first_call_picks_the_op_for_the_grad_mode():
    # A fresh process whose first call of the modules is a compiled one
    # (fullgraph): the compiler lookup must not break the graph, and the
    # graph holds the inference ops under no_grad, the training ops else.
    script = textwrap.dedent("""
        import torch, norm_mlir
        model = torch.nn.Sequential(torch.nn.Linear(64, 64), norm_mlir.LayerNorm(64),
                                    norm_mlir.RMSNorm(64))
        graphs = []
        def backend(gm, example_inputs):
            graphs.append(gm)
            return gm.forward
        x = torch.randn(4, 64)
        with torch.no_grad():
            y = torch.compile(model, backend=backend, fullgraph=True)(x)
        y2 = torch.compile(model, backend=backend, fullgraph=True)(x)
        for gm in graphs:
            print(sorted(str(n.target) for n in gm.graph.nodes
                         if str(n.target).startswith("norm_mlir")))
        print(torch.equal(y, y2.detach()))
    """)
    package_root = os.path.dirname(os.path.dirname(norm_mlir.__file__))
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=path), timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.strip().splitlines()
    assert lines == [
        "['norm_mlir.layer_norm_inference.default', 'norm_mlir.rms_norm_inference.default']",
        "['norm_mlir.layer_norm.default', 'norm_mlir.rms_norm.default']",
        "True"], out.stdout


def _f64_error(out, ref):
    return ((out.double() - ref).norm() / ref.norm()).item()


@pytest.mark.parametrize("case", ["ln_rows_far_from_zero", "rms_long_row", "ln_long_row",
                                  "ln_backward_long_column"])
def test_cpu_numerics_at_torchs_level(case):
    # The CPU path's f32 error against float64 is within 2x of torch's own
    # CPU norms on rows where sequential f32 sums lose: rows of mean 1000 and
    # unit variance (7e-4 against torch's 3.5e-5 before the sums went to
    # f64), a row of 200,000 elements (2.4e-5 against 4.8e-8), and dW over
    # 20,000 rows.
    from norm_mlir import reference as ref
    torch.manual_seed(7)
    if case == "ln_rows_far_from_zero":
        x, n = torch.randn(64, 4096) + 1000, 4096
    elif case == "ln_backward_long_column":
        x, n = torch.randn(20000, 64) + 3, 64
    else:
        x, n = torch.randn(1, 200000), 200000
    w, b = torch.randn(n) * 0.5 + 1, torch.randn(n) * 0.1
    if case == "rms_long_row":
        want, _ = ref.rms_fwd(x, w, 1e-6)
        ours = norm_mlir.functional.rms_norm(x, (n,), w, 1e-6)
        theirs = torch.nn.functional.rms_norm(x, (n,), w, 1e-6)
    elif case == "ln_backward_long_column":
        dy = torch.randn_like(x)
        _, mean, rstd = ref.ln_fwd(x, None, None, 1e-5)
        _, want, _ = ref.ln_bwd(dy, x, mean, rstd, w, True)
        xo, wo = x.clone().requires_grad_(), w.clone().requires_grad_()
        y, _, _ = ops.layer_norm(xo, wo, b, 1e-5)
        ours, = torch.autograd.grad(y, wo, dy)
        xt, wt = x.clone().requires_grad_(), w.clone().requires_grad_()
        theirs, = torch.autograd.grad(
            torch.nn.functional.layer_norm(xt, (n,), wt, b, 1e-5), wt, dy)
    else:
        want, _, _ = ref.ln_fwd(x, w, b, 1e-5)
        ours = norm_mlir.functional.layer_norm(x, (n,), w, b, 1e-5)
        theirs = torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5)
    ours_error, torch_error = _f64_error(ours, want), _f64_error(theirs, want)
    assert ours_error <= 2 * torch_error, (ours_error, torch_error)


@pytest.mark.parametrize("t", [torch.bfloat16, torch.float16, torch.float32])
@pytest.mark.parametrize("wt", [torch.bfloat16, torch.float16, torch.float32])
def test_mixed_activation_and_weight_dtypes_on_cpu(t, wt):
    # Every pairing of activation and weight dtypes: y and dx in x's dtype,
    # dW and dB in the weight's, against float64.
    torch.manual_seed(8)
    n = 96
    x = torch.randn(2, 9, n, dtype=t, requires_grad=True)
    w = (torch.randn(n) * 0.5 + 1).to(wt).requires_grad_()
    b = (torch.randn(n) * 0.1).to(wt).requires_grad_()
    dy = torch.randn_like(x)
    tol = 1e-2 if torch.bfloat16 in (t, wt) else 2e-3 if torch.float16 in (t, wt) else 1e-5
    xd, wd, bd = (v.detach().double().requires_grad_() for v in (x, w, b))
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    assert y.dtype == t
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    assert gw.dtype == wt and gb.dtype == wt
    yd = torch.nn.functional.layer_norm(xd, (n,), wd, bd, 1e-5)
    rx, rw, rb = torch.autograd.grad(yd, (xd, wd, bd), dy.double())
    assert max(rel(y, yd), rel(gx, rx), rel(gw, rw), rel(gb, rb)) < tol
    y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
    gx, gw = torch.autograd.grad(y, (x, w), dy)
    yd = torch.nn.functional.rms_norm(xd, (n,), wd, 1e-6)
    rx, rw = torch.autograd.grad(yd, (xd, wd), dy.double())
    assert max(rel(y, yd), rel(gx, rx), rel(gw, rw)) < tol


def test_bias_of_another_dtype_than_the_weight_is_refused():
    x = torch.randn(4, 32)
    with pytest.raises(TypeError, match="the bias must have the weight's dtype"):
        ops.layer_norm(x, torch.ones(32), torch.zeros(32, dtype=torch.bfloat16), 1e-5)


@pytest.mark.parametrize("layout", ["storage_offset", "transposed", "strided_rows",
                                    "flat_parameter_view"])
def test_offset_and_strided_tensors_on_cpu(layout):
    torch.manual_seed(9)
    n, m = 64, 33
    w, b = torch.randn(n) * 0.5 + 1, torch.randn(n) * 0.1
    if layout == "storage_offset":
        x = torch.randn(m * n + 8)[3:3 + m * n].view(m, n)
    elif layout == "transposed":
        x = torch.randn(n, m).t()
    elif layout == "strided_rows":
        x = torch.randn(2 * m, n)[::2]
    else:
        x = torch.randn(m, n)
        flat = torch.cat([torch.zeros(3), w, b])
        w, b = flat[3:3 + n], flat[3 + n:]
    want = torch.nn.functional.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    assert rel(norm_mlir.functional.layer_norm(x, (n,), w, b, 1e-5), want) < 1e-5
    want = torch.nn.functional.rms_norm(x.double(), (n,), w.double(), 1e-6)
    assert rel(norm_mlir.functional.rms_norm(x, (n,), w, 1e-6), want) < 1e-5


def test_autocast_on_cpu_gives_torchs_dtypes():
    # CPU autocast leaves torch's norms in the dtypes given (bf16 stays
    # bf16, f32 stays f32); the ops do the same.
    n = 64
    for dtype in (torch.bfloat16, torch.float32):
        x = torch.randn(4, n, dtype=dtype)
        w = torch.ones(n, dtype=dtype)
        b = torch.zeros(n, dtype=dtype)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            assert (norm_mlir.functional.rms_norm(x, (n,), w, 1e-6).dtype
                    == torch.nn.functional.rms_norm(x, (n,), w, 1e-6).dtype)
            assert (norm_mlir.functional.layer_norm(x, (n,), w, b, 1e-5).dtype
                    == torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5).dtype)
