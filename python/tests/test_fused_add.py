"""The fused residual add and norm (norm_mlir::fused_add_rms_norm,
fused_add_layer_norm, their backwards and inference forms) on the CPU
lowering of the same programs the GPU runs: numerics against float64 for
every dtype combination, the gradients of both outputs, the functional and
module forms, torch.compile and bad inputs. GPU correctness:
tests/test_torch_gpu.py and bench/fused_add.py (against eager)."""

import pytest

torch = pytest.importorskip("torch")

from norm_mlir import compiler  # noqa: E402

if compiler._library() is None:
    pytest.skip("libNormCAPI.so is not built", allow_module_level=True)

import norm_mlir  # noqa: E402
from norm_mlir import functional as nf  # noqa: E402

ops = torch.ops.norm_mlir
DTYPES = [torch.bfloat16, torch.float16, torch.float32]
# Relative tolerance of a result in each dtype against float64.
TOL = {torch.bfloat16: 2e-2, torch.float16: 4e-3, torch.float32: 1e-5}


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


def reference(kind, x, r, w, b, eps, gy, gh):
    """float64 results and gradients of norm(x + r) and x + r for the loss
    sum(y * gy + h * gh)."""
    leaves = [t.detach().double().requires_grad_() if t is not None else None
              for t in (x, r, w, b)]
    X, R, W, B = leaves
    H = X + R
    if kind == "rms":
        Y = torch.nn.functional.rms_norm(H, (x.shape[-1],), W, eps)
    else:
        Y = torch.nn.functional.layer_norm(H, (x.shape[-1],), W, B, eps)
    (Y * gy.double() + H * gh.double()).sum().backward()
    return Y, H, [t.grad if t is not None else None for t in leaves]


@pytest.mark.parametrize("kind", ["rms", "ln"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_dtype", ["same", torch.float32, None])
def test_fused_add_matches_float64(kind, dtype, weight_dtype):
    torch.manual_seed(0)
    n = 384
    x = torch.randn(5, 3, n, dtype=dtype, requires_grad=True)
    r = torch.randn(5, 3, n, dtype=dtype, requires_grad=True)
    wt = dtype if weight_dtype == "same" else weight_dtype
    w = (torch.rand(n, dtype=wt) + 0.5).requires_grad_() if wt is not None else None
    b = torch.randn(n, dtype=wt).requires_grad_() if (wt is not None and kind == "ln") else None
    eps = 1e-6 if kind == "rms" else 1e-5
    if kind == "rms":
        y, h = nf.fused_add_rms_norm(x, r, n, w, eps)
    else:
        y, h = nf.fused_add_layer_norm(x, r, n, w, b, eps)
    assert y.dtype == dtype and h.dtype == dtype and h.shape == x.shape
    gy, gh = torch.randn_like(y), torch.randn_like(h)
    (y * gy + h * gh).sum().backward()
    Y, H, grads = reference(kind, x, r, w, b, eps, gy, gh)
    tol = TOL[dtype]
    assert rel(y, Y) < tol and rel(h, H) < tol
    assert rel(x.grad, grads[0]) < tol and rel(r.grad, grads[1]) < tol
    if w is not None:
        assert rel(w.grad, grads[2]) < 2 * TOL[wt] + tol
    if b is not None:
        assert rel(b.grad, grads[3]) < 2 * TOL[wt] + tol


@pytest.mark.parametrize("kind", ["rms", "ln"])
def test_gradient_of_one_output_only(kind):
    """A loss that reads only y (h's gradient undefined: the plain norm
    backward at h) or only h (y's undefined: dx = dh, no weight gradient)."""
    torch.manual_seed(1)
    x = torch.randn(8, 256, requires_grad=True)
    r = torch.randn(8, 256, requires_grad=True)
    w = torch.rand(256, requires_grad=True)
    fused = (lambda: nf.fused_add_rms_norm(x, r, 256, w, 1e-6)) if kind == "rms" else \
        (lambda: nf.fused_add_layer_norm(x, r, 256, w, None, 1e-5))
    y, h = fused()
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    _, _, grads = reference(kind, x, r, w, None, 1e-6 if kind == "rms" else 1e-5, gy,
                            torch.zeros_like(gy))
    assert rel(x.grad, grads[0]) < 1e-5 and rel(w.grad, grads[2]) < 1e-5
    x.grad = r.grad = w.grad = None
    y, h = fused()
    gh = torch.randn_like(h)
    (h * gh).sum().backward()
    assert torch.equal(x.grad, gh) and torch.equal(r.grad, gh)
    # None from the extension, which skips the norm's backward; zeros from
    # the Python ops, whose autograd materializes y's gradient.
    assert w.grad is None or not w.grad.any()


def test_inference_forms_match_training():
    torch.manual_seed(2)
    x, r, w = torch.randn(7, 512), torch.randn(7, 512), torch.rand(512)
    y, h, rstd = ops.fused_add_rms_norm(x, r, w, 1e-6, 1.0)
    yi, hi = ops.fused_add_rms_norm_inference(x, r, w, 1e-6, 1.0)
    assert torch.equal(y, yi) and torch.equal(h, hi) and rstd.shape == (7,)
    y, h, mean, rstd = ops.fused_add_layer_norm(x, r, w, w, 1e-5)
    yi, hi = ops.fused_add_layer_norm_inference(x, r, w, w, 1e-5)
    assert torch.equal(y, yi) and torch.equal(h, hi) and mean.shape == (7,)
    with torch.no_grad():
        assert torch.equal(nf.fused_add_rms_norm(x, r, 512, w, 1e-6)[0],
                           ops.fused_add_rms_norm(x, r, w, 1e-6, 0.0)[0])
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="fused_add_rms_norm_inference has no backward"):
        ops.fused_add_rms_norm_inference(x, r, w, 1e-6, 0.0)[0].sum().backward()


def test_modules_and_torch_compile():
    torch.manual_seed(3)
    norm, ref = norm_mlir.FusedAddRMSNorm(128), torch.nn.RMSNorm(128)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        ref.weight.copy_(norm.weight)

    def block(norm_layer, x, r):
        y, h = norm_layer(x, r)
        return (y * 2).sum() + (h * h).sum()

    x, r = torch.randn(16, 128), torch.randn(16, 128)
    compiled = torch.compile(lambda x, r: block(norm, x, r), fullgraph=True)
    loss = compiled(x, r)
    loss.backward()
    h = x + r
    ref_loss = (ref(h) * 2).sum() + (h * h).sum()
    ref_loss.backward()
    assert rel(loss, ref_loss) < 1e-5
    assert rel(norm.weight.grad, ref.weight.grad) < 1e-4
    ln = norm_mlir.FusedAddLayerNorm(128)
    y, h = ln(x, r)
    assert rel(y, torch.nn.functional.layer_norm(x + r, (128,), ln.weight, ln.bias)) < 1e-5


def test_opcheck():
    x = torch.randn(4, 32, requires_grad=True)
    r = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    torch.library.opcheck(ops.fused_add_rms_norm.default, (x, r, w, 1e-6, 0.0))
    torch.library.opcheck(ops.fused_add_layer_norm.default, (x, r, w, w, 1e-5))
    x, r, w = x.detach(), r.detach(), w.detach()
    torch.library.opcheck(ops.fused_add_rms_norm_inference.default, (x, r, w, 1e-6, 0.0))
    torch.library.opcheck(ops.fused_add_layer_norm_inference.default, (x, r, w, w, 1e-5))


def test_bad_inputs_are_clear_errors():
    x, w = torch.randn(4, 64), torch.randn(64)
    with pytest.raises(ValueError, match="residual must have the shape, dtype and device of x"):
        ops.fused_add_rms_norm(x, torch.randn(4, 32), w, 1e-6, 0.0)
    with pytest.raises(ValueError, match="residual must have the shape, dtype and device of x"):
        ops.fused_add_layer_norm(x, torch.randn(4, 64, dtype=torch.float16), w, None, 1e-5)
    y, h, rstd = ops.fused_add_rms_norm(x, x, w, 1e-6, 0.0)
    with pytest.raises(ValueError, match="residual must have the shape"):
        ops.fused_add_rms_norm_backward(y, torch.randn(3, 64), h, rstd, w, 0.0)
    with pytest.raises(ValueError, match="mean/rstd must be float32"):
        ops.fused_add_rms_norm_backward(y, y, h, rstd[:2], w, 0.0)
    with pytest.raises(ValueError, match="a bias needs a weight"):
        ops.fused_add_layer_norm(x, x, None, w, 1e-5)
    # What the kernels do not take goes to torch through the functional form.
    r64 = torch.randn(4, 64, dtype=torch.float64)
    y, h = nf.fused_add_rms_norm(x, r64, 64, w, 1e-6)
    assert h.dtype == torch.float64
    assert rel(y, torch.nn.functional.rms_norm(x + r64, (64,), w, 1e-6)) < 1e-12


def test_strided_and_offset_inputs():
    torch.manual_seed(4)
    base = torch.randn(8, 130)
    x = base[:, 1:129]            # strided rows at an odd offset
    r = torch.randn(128, 8).t()   # transposed
    w = torch.rand(128)
    y, h = nf.fused_add_rms_norm(x, r, 128, w, 1e-6)
    assert rel(h, x + r) < 1e-7
    assert rel(y, torch.nn.functional.rms_norm(x + r, (128,), w, 1e-6)) < 1e-5


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fused", [False, True])
def test_layer_norm_weight_offset(dtype, fused):
    """A zero-centered LayerNorm weight (offset 1: Megatron's LayerNorm1P,
    Transformer Engine's zero_centered_gamma): the weight enters as 1 + w in
    f32, forward and backward, plain and after the residual add."""
    torch.manual_seed(21)
    n = 320
    x = torch.randn(3, 7, n, dtype=dtype, requires_grad=True)
    r = torch.randn(3, 7, n, dtype=dtype, requires_grad=True)
    w = (torch.randn(n) * 0.1).to(dtype).requires_grad_()
    b = torch.randn(n).to(dtype).requires_grad_()
    if fused:
        y, h = nf.fused_add_layer_norm(x, r, (n,), w, b, 1e-5, offset=1.0)
    else:
        y, h = nf.layer_norm(x, (n,), w, b, 1e-5, offset=1.0), None
    gy = torch.randn_like(y)
    loss = (y.double() * gy.double()).sum() + (h.double().sum() if fused else 0)
    loss.backward()
    X, R, W, B = (t.detach().double().requires_grad_() for t in (x, r, w, b))
    H = X + R if fused else X
    Y = torch.nn.functional.layer_norm(H, (n,), 1 + W, B, 1e-5)
    ((Y * gy.double()).sum() + (H.sum() if fused else 0)).backward()
    tol = TOL[dtype]
    assert rel(y, Y) < tol and rel(x.grad, X.grad) < tol
    assert rel(w.grad, W.grad) < 2 * tol and rel(b.grad, B.grad) < 2 * tol
    if fused:
        assert rel(r.grad, R.grad) < tol
    with torch.no_grad():
        again = (nf.fused_add_layer_norm(x, r, (n,), w, b, 1e-5, offset=1.0)[0] if fused
                 else nf.layer_norm(x, (n,), w, b, 1e-5, offset=1.0))
    assert torch.equal(again, y)
    # The quantized forward takes the offset too; inputs the kernels do not
    # take (float64) compute the same with torch.
    q, scale = nf.layer_norm_quant(x.detach(), w.detach(), b.detach(), 1e-5, offset=1.0)
    Yq = torch.nn.functional.layer_norm(X.detach(), (n,), 1 + W.detach(), B.detach(), 1e-5)
    ref_scale = (Yq.abs().amax(-1) / 448).clamp_min(1e-12)
    assert ((scale.double() - ref_scale) / ref_scale).abs().max() < 2 * tol
    y64 = nf.layer_norm(X.detach(), (n,), W.detach(), B.detach(), 1e-5, offset=1.0)
    assert rel(y64, Yq) < 1e-12
    torch.library.opcheck(ops.layer_norm.default,
                          (x.detach().float().requires_grad_(), w.detach().float(),
                           b.detach().float(), 1e-5, 1.0))


@pytest.mark.parametrize("kind", ["rms", "layer"])
def test_modules_with_weight_offset(kind):
    """The modules' weight_offset: the weight starts at 0 and enters as
    1 + w, in the plain and the fused-add modules, with their gradients."""
    torch.manual_seed(22)
    n = 96
    if kind == "rms":
        plain, fused = norm_mlir.RMSNorm(n, eps=1e-6, weight_offset=1.0), \
            norm_mlir.FusedAddRMSNorm(n, eps=1e-6, weight_offset=1.0)
    else:
        plain, fused = norm_mlir.LayerNorm(n, weight_offset=1.0), \
            norm_mlir.FusedAddLayerNorm(n, weight_offset=1.0)
    assert not plain.weight.any() and "weight_offset=1.0" in repr(plain)
    with torch.no_grad():
        for m in (plain, fused):
            m.weight.normal_(0, 0.1)
        fused.weight.copy_(plain.weight)
    x = torch.randn(5, n, requires_grad=True)
    r = torch.randn(5, n, requires_grad=True)
    y = plain(x)
    yf, h = fused(x, r)
    (y.sum() + (yf * 2).sum() + h.sum()).backward()
    X, R, W = (t.detach().double().requires_grad_() for t in (x, r, plain.weight))
    F = torch.nn.functional

    def norm(v):
        if kind == "rms":
            return F.rms_norm(v, (n,), 1 + W, 1e-6)
        return F.layer_norm(v, (n,), 1 + W, torch.zeros(n, dtype=torch.float64), 1e-5)

    Y, YF = norm(X), norm(X + R)
    (Y.sum() + (YF * 2).sum() + (X + R).sum()).backward()
    assert rel(y, Y) < 1e-5 and rel(yf, YF) < 1e-5
    assert rel(x.grad, X.grad) < 1e-5 and rel(r.grad, R.grad) < 1e-5
    assert rel(plain.weight.grad + fused.weight.grad, W.grad) < 1e-5
