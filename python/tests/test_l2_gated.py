"""The L2 norm (norm_mlir::l2_norm) and the gated RMSNorm
(norm_mlir::rms_norm_gated), with their backwards and inference forms, on
the CPU lowering of the programs the GPU runs: numerics against float64 for
every dtype, weight, activation and gate placement, the functional and
module forms, torch.compile, opcheck and bad inputs. GPU correctness:
tests/test_torch_gpu.py."""

import pytest

torch = pytest.importorskip("torch")

from norm_mlir import compiler  # noqa: E402

if compiler._library() is None:
    pytest.skip("libNormCAPI.so is not built", allow_module_level=True)

import norm_mlir  # noqa: E402
from norm_mlir import functional as nf  # noqa: E402
from norm_mlir import reference  # noqa: E402

ops = torch.ops.norm_mlir
F = torch.nn.functional
DTYPES = [torch.bfloat16, torch.float16, torch.float32]
TOL = {torch.bfloat16: 2e-2, torch.float16: 4e-3, torch.float32: 1e-5}


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


def l2_reference(x, eps):
    return reference.l2_fwd(x, eps)[0]


def gated_reference(x, z, w, eps, activation, norm_before_gate, group=None):
    return reference.gated_fwd(x, z, w, eps, activation=activation,
                               norm_before_gate=norm_before_gate, group=group)[0]


def float64_leaves(*tensors):
    return [t.detach().double().requires_grad_() if t is not None else None for t in tensors]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [64, 100, 128, 256, 4096])
def test_l2_norm_matches_float64(dtype, n):
    torch.manual_seed(n)
    x = (torch.randn(3, 5, n) * 3).to(dtype).requires_grad_()
    y = nf.l2_norm(x, 1e-6)
    assert y.dtype == dtype and y.shape == x.shape
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    (X,) = float64_leaves(x)
    Y = l2_reference(X, 1e-6)
    (Y * gy.double()).sum().backward()
    assert rel(y, Y) < TOL[dtype]
    assert rel(x.grad, X.grad) < TOL[dtype]


def test_l2_norm_ops_and_statistics():
    torch.manual_seed(1)
    x = torch.randn(9, 128)
    y, rstd = ops.l2_norm(x, 1e-6)
    expected = 1 / (x.double().square().sum(-1) + 1e-6).sqrt()
    assert rstd.dtype == torch.float32 and rel(rstd, expected) < 1e-6
    assert torch.equal(ops.l2_norm_inference(x, 1e-6), y)
    dy = torch.randn_like(x)
    dx = ops.l2_norm_backward(dy, x, rstd)
    yd = y.double()
    expected = rstd.double()[:, None] * (dy.double() - yd * (dy.double() * yd).sum(-1, keepdim=True))
    assert rel(dx, expected) < 1e-5
    # A zero row: y = 0 (rstd = 1/sqrt(eps)), no NaN.
    zero = ops.l2_norm(torch.zeros(2, 64), 1e-6)[0]
    assert torch.equal(zero, torch.zeros(2, 64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_dtype", ["same", torch.float32, None])
@pytest.mark.parametrize("activation", ["silu", "sigmoid"])
@pytest.mark.parametrize("norm_before_gate", [True, False])
def test_gated_matches_float64(dtype, weight_dtype, activation, norm_before_gate):
    torch.manual_seed(7)
    n = 192
    x = torch.randn(4, 3, n, dtype=dtype, requires_grad=True)
    z = (torch.randn(4, 3, n) * 2).to(dtype).requires_grad_()
    wt = dtype if weight_dtype == "same" else weight_dtype
    w = (torch.rand(n, dtype=wt) + 0.5).requires_grad_() if wt is not None else None
    y = nf.rms_norm_gated(x, z, w, 1e-5, activation, norm_before_gate)
    assert y.dtype == dtype and y.shape == x.shape
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    X, Z, W = float64_leaves(x, z, w)
    Y = gated_reference(X, Z, W, 1e-5, activation, norm_before_gate)
    (Y * gy.double()).sum().backward()
    tol = TOL[dtype]
    assert rel(y, Y) < tol
    assert rel(x.grad, X.grad) < tol and rel(z.grad, Z.grad) < tol
    if w is not None:
        assert rel(w.grad, W.grad) < 2 * TOL[wt] + tol


def test_gated_weight_offset():
    """offset 1: the weight enters as 1 + w (computed in f32)."""
    torch.manual_seed(8)
    x, z, w = torch.randn(6, 128), torch.randn(6, 128), torch.randn(128) * 0.1
    y, rstd = ops.rms_norm_gated(x, z, w, 1e-6, 1.0, "silu", True)
    assert rel(y, gated_reference(x.double(), z.double(), 1 + w.double(), 1e-6, "silu", True)) < 1e-5
    dy = torch.randn_like(x)
    dx, dz, dw = ops.rms_norm_gated_backward(dy, x, z, rstd, w, 1.0, "silu", True)
    X, Z, W = float64_leaves(x, z, w)
    (gated_reference(X, Z, 1 + W, 1e-6, "silu", True) * dy.double()).sum().backward()
    assert rel(dx, X.grad) < 1e-5 and rel(dz, Z.grad) < 1e-5 and rel(dw, W.grad) < 1e-5
    assert torch.equal(ops.rms_norm_gated_inference(x, z, w, 1e-6, 1.0, "silu", True), y)


def test_offset_through_functional_and_module():
    torch.manual_seed(12)
    x, z, w = torch.randn(6, 128), torch.randn(6, 128), torch.randn(128) * 0.1
    y = nf.rms_norm_gated(x, z, w, 1e-6, offset=1.0)
    assert rel(y, gated_reference(x.double(), z.double(), 1 + w.double(), 1e-6, "silu",
                                  True)) < 1e-5
    module = norm_mlir.RMSNormGated(128, weight_offset=1.0)
    assert not module.weight.any()
    assert rel(module(x, z), gated_reference(x.double(), z.double(), None, 1e-5, "silu",
                                             True)) < 1e-5
    grouped = nf.rms_norm_gated(x, z, w, 1e-6, group_size=64, offset=1.0)
    assert rel(grouped, gated_reference(x.double(), z.double(), 1 + w.double(), 1e-6, "silu",
                                        True, 64)) < 1e-6


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight", [True, False])
@pytest.mark.parametrize("activation", ["silu", "sigmoid"])
@pytest.mark.parametrize("norm_before_gate", [True, False])
@pytest.mark.parametrize("n,group", [(256, 64), (96, 32), (640, 128), (4096, 1024), (600, 200)])
def test_grouped_gated_matches_float64(dtype, weight, activation, norm_before_gate, n, group):
    """Groups normalized by themselves (Mamba2's ngroups) in the kernels:
    values, rstd one a group, and the gradients of x, z and w."""
    torch.manual_seed(n + group)
    x = torch.randn(3, 2, n, dtype=dtype, requires_grad=True)
    z = (torch.randn(3, 2, n) * 2).to(dtype).requires_grad_()
    w = (torch.rand(n, dtype=dtype) + 0.5).requires_grad_() if weight else None
    y, rstd = ops.rms_norm_gated(x, z, w, 1e-5, 0.0, activation, norm_before_gate, group)
    assert y.dtype == dtype and y.shape == x.shape and rstd.shape == (3, 2, n // group)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    X, Z, W = float64_leaves(x, z, w)
    Y = gated_reference(X, Z, W, 1e-5, activation, norm_before_gate, group)
    (Y * gy.double()).sum().backward()
    tol = TOL[dtype]
    assert rel(y, Y) < tol
    assert rel(x.grad, X.grad) < tol and rel(z.grad, Z.grad) < tol
    if w is not None:
        assert rel(w.grad, W.grad) < 3 * tol
    # The functional form and the inference op give the same values.
    with torch.no_grad():
        assert torch.equal(nf.rms_norm_gated(x, z, w, 1e-5, activation, norm_before_gate,
                                             group_size=group), y)


@pytest.mark.parametrize("dtype", ["bf16", "f32"])
@pytest.mark.parametrize("n, groups", [(768, (2, 8, 32, 48, 96, 128, 256, 384)),
                                       (5120, (64, 128, 640, 1024, 2560))])
def test_python_group_rule_is_the_compilers(dtype, n, groups):
    # functional sends groups the GPU lowering refuses to torch before
    # compiling (_groups_lowered); the compiler's validateGroupPlan decides
    # the same for sm_90 (640 is 80 vectors of 8, 48 six), so neither can
    # drift from the other unseen.
    from types import SimpleNamespace

    from norm_mlir.programs import program_text
    cuda = SimpleNamespace(is_cuda=True)
    for group in groups:
        try:
            compiler.bundle_directory(program_text("gated_fwd", n, dtype, group_size=group))
            compiled = True
        except compiler.CompileError as e:
            assert "power of two of vectors" in str(e), str(e)
            compiled = False
        assert nf._groups_lowered(cuda, group) == compiled, (n, group)


def test_grouped_gate_whole_row_and_fallback():
    torch.manual_seed(9)
    x, z, w = torch.randn(5, 256), torch.randn(5, 256), torch.rand(256)
    # One group of the whole row is the plain gated norm (rstd one a row).
    assert torch.equal(nf.rms_norm_gated(x, z, w, 1e-5, group_size=256),
                       nf.rms_norm_gated(x, z, w, 1e-5))
    assert ops.rms_norm_gated(x, z, w, 1e-5, 0.0, "silu", True, 256)[1].shape == (5,)
    # The module's group_size reaches the kernels.
    module = norm_mlir.RMSNormGated(256, group_size=64)
    with torch.no_grad():
        module.weight.copy_(w)
    assert rel(module(x, z), gated_reference(x.double(), z.double(), w.double(), 1e-5, "silu",
                                             True, 64)) < 1e-6


def test_modules_and_torch_compile():
    torch.manual_seed(10)
    gated, l2 = norm_mlir.RMSNormGated(128, activation="sigmoid"), norm_mlir.L2Norm()
    with torch.no_grad():
        gated.weight.uniform_(0.5, 1.5)

    def block(x, z):
        return (gated(l2(x), z) * 3).sum()

    x, z = torch.randn(16, 128, requires_grad=True), torch.randn(16, 128, requires_grad=True)
    compiled = torch.compile(block, fullgraph=True)
    loss = compiled(x, z)
    loss.backward()
    X, Z, W = float64_leaves(x, z, gated.weight)
    ref = (gated_reference(l2_reference(X, 1e-6), Z, W, 1e-5, "sigmoid", True) * 3).sum()
    ref.backward()
    assert rel(loss, ref) < 1e-5
    assert rel(x.grad, X.grad) < 1e-4 and rel(z.grad, Z.grad) < 1e-4
    assert rel(gated.weight.grad, W.grad) < 1e-4
    assert "activation='sigmoid'" in repr(gated)


def test_opcheck():
    x = torch.randn(4, 32, requires_grad=True)
    z = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    torch.library.opcheck(ops.l2_norm.default, (x, 1e-6))
    torch.library.opcheck(ops.rms_norm_gated.default, (x, z, w, 1e-6, 0.0, "silu", True))
    torch.library.opcheck(ops.rms_norm_gated.default, (x, z, None, 1e-6, 0.0, "sigmoid", False))
    torch.library.opcheck(ops.rms_norm_gated.default, (x, z, w, 1e-6, 0.0, "silu", True, 8))
    x, z, w = x.detach(), z.detach(), w.detach()
    torch.library.opcheck(ops.l2_norm_inference.default, (x, 1e-6))
    torch.library.opcheck(ops.rms_norm_gated_inference.default,
                          (x, z, w, 1e-6, 0.0, "silu", True))


def test_bad_inputs_are_clear_errors():
    x, w = torch.randn(4, 64), torch.randn(64)
    with pytest.raises(ValueError, match="the gate z must have the shape, dtype and device of x"):
        ops.rms_norm_gated(x, torch.randn(4, 32), w, 1e-6, 0.0, "silu", True)
    with pytest.raises(ValueError, match="the gate z must have the shape, dtype and device"):
        ops.rms_norm_gated(x, x.half(), w, 1e-6, 0.0, "silu", True)
    with pytest.raises(ValueError, match="activation must be 'silu' or 'sigmoid', got 'relu'"):
        ops.rms_norm_gated(x, x, w, 1e-6, 0.0, "relu", True)
    with pytest.raises(ValueError, match="activation must be 'silu' or 'sigmoid'"):
        norm_mlir.RMSNormGated(64, activation="gelu")
    with pytest.raises(ValueError, match="group_size must divide the last dimension"):
        nf.rms_norm_gated(x, x, w, group_size=48)
    with pytest.raises(ValueError, match=r"group_size must be 0 \(the whole row\) or divide"):
        ops.rms_norm_gated(x, x, w, 1e-6, 0.0, "silu", True, 48)
    y, rstd = ops.rms_norm_gated(x, x, w, 1e-6, 0.0, "silu", True, 16)
    with pytest.raises(ValueError, match=r"4 values per row \(group\) of x"):
        ops.rms_norm_gated_backward(y, x, x, rstd[:, :2], w, 0.0, "silu", True, 16)
    with pytest.raises(ValueError, match=r"weight must have shape \(64,\)"):
        nf.rms_norm_gated(x, x, torch.randn(32))
    with pytest.raises(ValueError, match=r"weight/bias must have shape \(64,\)"):
        ops.rms_norm_gated(x, x, torch.randn(32), 1e-6, 0.0, "silu", True)
    y, rstd = ops.l2_norm(x, 1e-6)
    with pytest.raises(ValueError, match="mean/rstd must be float32"):
        ops.l2_norm_backward(y, x, rstd[:2])
    with pytest.raises(ValueError, match="dy must have the shape and dtype of x"):
        ops.l2_norm_backward(y.half(), x, rstd)
    with pytest.raises(TypeError, match="x must be bfloat16, float16 or float32"):
        ops.l2_norm(x.double(), 1e-6)
    with pytest.raises(ValueError, match="non-empty last dimension"):
        ops.l2_norm(torch.randn(4, 0), 1e-6)
    x.requires_grad_()
    with pytest.raises(RuntimeError, match="l2_norm_inference has no backward"):
        ops.l2_norm_inference(x, 1e-6).sum().backward()
    with pytest.raises(RuntimeError, match="rms_norm_gated_inference has no backward"):
        ops.rms_norm_gated_inference(x, x, w, 1e-6, 0.0, "silu", True).sum().backward()
    # What the kernels do not take computes the same formula with torch.
    x64 = torch.randn(3, 64, dtype=torch.float64)
    assert rel(nf.l2_norm(x64), l2_reference(x64, 1e-6)) < 1e-12
    assert rel(nf.rms_norm_gated(x64, x64), gated_reference(x64, x64, None, 1e-6, "silu",
                                                           True)) < 1e-12
    assert nf.l2_norm(torch.randn(3, 0)).shape == (3, 0)


def test_strided_and_empty_inputs():
    torch.manual_seed(11)
    base = torch.randn(8, 130)
    x = base[:, 1:129]
    z = torch.randn(128, 8).t()
    assert rel(nf.l2_norm(x), l2_reference(x.double(), 1e-6)) < 1e-6
    assert rel(nf.rms_norm_gated(x, z), gated_reference(x.double(), z.double(), None, 1e-6,
                                                        "silu", True)) < 1e-5
    empty = torch.randn(0, 64)
    assert nf.l2_norm(empty).shape == (0, 64)
    assert nf.rms_norm_gated(empty, empty).shape == (0, 64)


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.bool, torch.float8_e4m3fn,
                                   torch.complex64])
def test_functional_ops_refuse_what_they_cannot_compute(dtype):
    # The family's functional ops fall back to torch for inputs the kernels
    # do not take; integers would come back normalized and rounded to
    # integers (silently wrong), FP8 has no torch arithmetic: both are
    # TypeErrors naming the op and the argument, as torch's rms_norm refuses
    # integers.
    bad = torch.ones(4, 128).to(dtype)
    x, w = torch.randn(4, 128), torch.randn(128)
    calls = {
        "l2_norm: input": lambda: nf.l2_norm(bad),
        "rms_norm_gated: input": lambda: nf.rms_norm_gated(bad, x, w),
        "rms_norm_gated: gate": lambda: nf.rms_norm_gated(x, bad, w),
        "rms_norm_gated: weight": lambda: nf.rms_norm_gated(x, x, bad[0]),
        "rms_norm_quant: input": lambda: nf.rms_norm_quant(bad, w),
        "rms_norm_quant: residual": lambda: nf.rms_norm_quant(x, w, residual=bad),
        "layer_norm_quant: input": lambda: nf.layer_norm_quant(bad, w, w),
        "layer_norm_quant: bias": lambda: nf.layer_norm_quant(x, w, bad[0]),
    }
    for what, call in calls.items():
        with pytest.raises(TypeError, match=f"{what} must be float32, bfloat16, float16 or "
                                            f"float64, got {dtype}"):
            call()
    with pytest.raises(TypeError, match="l2_norm: input must be a tensor, got list"):
        nf.l2_norm([1.0, 2.0])
