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
