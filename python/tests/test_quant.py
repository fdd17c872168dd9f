"""The norms with FP8 e4m3 output (norm_mlir::rms_norm_quant,
layer_norm_quant, fused_add_rms_norm_quant) on the CPU lowering of the
programs the GPU runs: scales and quantized values against float64 for
every dtype and weight type, zero rows, saturation, torch.compile, opcheck
and bad inputs. GPU correctness: tests/test_torch_gpu.py."""

import pytest

torch = pytest.importorskip("torch")

from norm_mlir import compiler  # noqa: E402

if compiler._library() is None:
    pytest.skip("libNormCAPI.so is not built", allow_module_level=True)

from norm_mlir import functional as nf  # noqa: E402

ops = torch.ops.norm_mlir
F = torch.nn.functional
DTYPES = [torch.bfloat16, torch.float16, torch.float32]


def reference(kind, x, w, b, eps, offset=0.0):
    """float64 y of the norm, its per-row scale and the FP8 bytes."""
    X = x.double()
    W = (w.double() + offset) if w is not None else None
    if kind == "rms":
        y = F.rms_norm(X, (x.shape[-1],), W, eps)
    else:
        y = F.layer_norm(X, (x.shape[-1],), W, b.double() if b is not None else None, eps)
    scale = (y.abs().amax(-1) / 448).clamp_min(1e-12)
    return y, scale


def check_quantized(q, scale, y, ref_scale):
    assert q.dtype == torch.float8_e4m3fn and scale.dtype == torch.float32
    assert ((scale.double() - ref_scale) / ref_scale).abs().max() < 1e-5
    # Each value within half a step of e4m3 (3 mantissa bits: 1/16 relative,
    # 2^-10 absolute among the subnormals) of y / scale.
    target = y / scale.double().unsqueeze(-1)
    got = q.double()
    assert ((got - target).abs() <= target.abs() / 16 + 2.0 ** -10 + 1e-4).all()
    assert got.abs().max() <= 448
    # And the same byte as float64's rounding nearly everywhere (ties may
    # round the other way from f32's y).
    same = (q.view(torch.uint8) == target.to(torch.float8_e4m3fn).view(torch.uint8))
    assert same.double().mean() > 0.995


@pytest.mark.parametrize("kind", ["rms", "ln"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_dtype", ["same", torch.float32, None])
@pytest.mark.parametrize("n", [128, 1000, 4096])
def test_quantized_norm_matches_float64(kind, dtype, weight_dtype, n):
    torch.manual_seed(n)
    x = (torch.randn(3, 7, n) * 4).to(dtype)
    wt = dtype if weight_dtype == "same" else weight_dtype
    w = (torch.rand(n) + 0.5).to(wt) if wt is not None else None
    b = torch.randn(n).to(wt) if (wt is not None and kind == "ln") else None
    if kind == "rms":
        q, scale = nf.rms_norm_quant(x, w, 1e-6)
    else:
        q, scale = nf.layer_norm_quant(x, w, b, 1e-5)
    assert q.shape == x.shape and scale.shape == x.shape[:-1]
    y, ref_scale = reference(kind, x, w, b, 1e-6 if kind == "rms" else 1e-5)
    check_quantized(q, scale, y, ref_scale)


@pytest.mark.parametrize("dtype", DTYPES)
def test_fused_add_quantized(dtype):
    torch.manual_seed(3)
    x, r = torch.randn(33, 256).to(dtype), torch.randn(33, 256).to(dtype)
    w = (torch.rand(256) + 0.5).to(dtype)
    q, scale, h = nf.rms_norm_quant(x, w, 1e-6, residual=r)
    assert torch.equal(h, x + r)
    y, ref_scale = reference("rms", h, w, None, 1e-6)
    check_quantized(q, scale, y, ref_scale)
    q2, h2, scale2 = ops.fused_add_rms_norm_quant(x, r, w, 1e-6, 0.0)
    assert torch.equal(q2.view(torch.uint8), q.view(torch.uint8)) and torch.equal(scale2, scale)


def test_offset_zero_rows_and_outliers():
    torch.manual_seed(4)
    x = torch.randn(4, 512)
    x[1] = 0
    x[2, 7] = 1e4                                   # one outlier sets the row's scale
    w = torch.randn(512) * 0.1
    q, scale = ops.rms_norm_quant(x, w, 1e-6, 1.0)  # (1 + w)
    y, ref_scale = reference("rms", x, w, None, 1e-6, offset=1.0)
    assert scale[1] == 1e-12 and not q[1].float().any()
    ok = torch.tensor([0, 2, 3])
    check_quantized(q[ok], scale[ok], y[ok], ref_scale[ok])
    assert q[2, 7].float().abs() == 448


def test_functional_offset():
    torch.manual_seed(6)
    x, w = torch.randn(8, 256), torch.randn(256) * 0.1
    q, scale = nf.rms_norm_quant(x, w, offset=1.0)
    y, ref_scale = reference("rms", x, w, None, 1e-6, offset=1.0)
    check_quantized(q, scale, y, ref_scale)
    q64, scale64 = nf.rms_norm_quant(x.double(), w.double(), offset=1.0)
    check_quantized(q64, scale64, y, ref_scale)


def test_torch_compile_opcheck_and_errors():
    torch.manual_seed(5)
    x, w = torch.randn(16, 128), torch.rand(128) + 0.5
    f = torch.compile(lambda a: nf.rms_norm_quant(a, w), fullgraph=True)
    q, scale = f(x)
    q0, scale0 = ops.rms_norm_quant(x, w, 1e-6, 0.0)
    assert torch.equal(q.view(torch.uint8), q0.view(torch.uint8)) and torch.equal(scale, scale0)
    torch.library.opcheck(ops.rms_norm_quant.default, (x, w, 1e-6, 0.0))
    torch.library.opcheck(ops.layer_norm_quant.default, (x, w, w, 1e-5))
    torch.library.opcheck(ops.fused_add_rms_norm_quant.default, (x, x, None, 1e-6, 0.0))
    with pytest.raises(ValueError, match="residual must have the shape, dtype and device"):
        ops.fused_add_rms_norm_quant(x, x[:, :64], w, 1e-6, 0.0)
    with pytest.raises(ValueError, match="a bias needs a weight"):
        ops.layer_norm_quant(x, None, w, 1e-5)
    with pytest.raises(TypeError, match="x must be bfloat16, float16 or float32"):
        ops.rms_norm_quant(x.double(), None, 1e-6, 0.0)
    xg = x.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="rms_norm_quant"):
        ops.rms_norm_quant(xg, w, 1e-6, 0.0)[1].sum().backward()
    # What the kernels do not take quantizes the same way with torch.
    x64 = torch.randn(5, 64, dtype=torch.float64)
    q, scale = nf.rms_norm_quant(x64)
    y, ref_scale = reference("rms", x64, None, None, 1e-6)
    check_quantized(q, scale, y, ref_scale)


def group_reference(kind, x, w, b, eps, group, residual=None, offset=0.0):
    """float64 y and its scale per group of `group` columns."""
    h = x + residual if residual is not None else x
    y, _ = reference(kind, h, w, b, eps, offset)
    n = y.shape[-1]
    scale = (y.unflatten(-1, (n // group, group)).abs().amax(-1) / 448).clamp_min(1e-12)
    return y, scale


def check_group_quantized(q, scale, y, ref_scale, group):
    """check_quantized for scales a group: each group as a row."""
    n = y.shape[-1]
    split = lambda t: t.unflatten(-1, (n // group, group))  # noqa: E731
    check_quantized(split(q.view(torch.uint8)).view(torch.float8_e4m3fn), scale, split(y),
                    ref_scale)


@pytest.mark.parametrize("kind", ["rms", "ln", "add_rms"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weight_dtype", ["same", torch.float32, None])
@pytest.mark.parametrize("n,group", [(512, 128), (7168, 128), (96, 32), (384, 64), (4096, 1024),
                                     (600, 120)])
def test_group_scales_match_float64(kind, dtype, weight_dtype, n, group):
    """FP8 with a scale per group of columns (DeepSeek-V3's 1 x 128): one
    scale a group, each group's values quantized by its own scale."""
    torch.manual_seed(n + group)
    x = (torch.randn(2, 5, n) * torch.linspace(0.1, 8, n)).to(dtype)
    r = torch.randn(2, 5, n).to(dtype) if kind == "add_rms" else None
    wt = dtype if weight_dtype == "same" else weight_dtype
    w = (torch.rand(n) + 0.5).to(wt) if wt is not None else None
    b = torch.randn(n).to(wt) if (wt is not None and kind == "ln") else None
    if kind == "ln":
        q, scale = nf.layer_norm_quant(x, w, b, 1e-5, group_size=group)
    elif kind == "rms":
        q, scale = nf.rms_norm_quant(x, w, 1e-6, group_size=group)
    else:
        q, scale, h = nf.rms_norm_quant(x, w, 1e-6, residual=r, group_size=group)
        assert torch.equal(h, x + r)
    assert q.shape == x.shape and scale.shape == (2, 5, n // group)
    y, ref_scale = group_reference("ln" if kind == "ln" else "rms", x, w, b,
                                   1e-5 if kind == "ln" else 1e-6, group, r)
    check_group_quantized(q, scale, y, ref_scale, group)


def test_group_scales_ops_compile_and_errors():
    torch.manual_seed(11)
    x, w = torch.randn(16, 256), torch.rand(256) + 0.5
    x[3] = 0                                       # a zero row: every group's scale 1e-12
    x[5, 130] = 1e4                                # an outlier sets only its group's scale
    q, scale = ops.rms_norm_quant(x, w, 1e-6, 0.0, 128)
    assert (scale[3] == 1e-12).all() and not q[3].float().any()
    assert q[5, 130].float().abs() == 448 and scale[5, 0] < scale[5, 1] / 100
    # A group of the whole row is the per-row scale, kept as one group.
    q1, scale1 = ops.rms_norm_quant(x, w, 1e-6, 0.0, 256)
    q0, scale0 = ops.rms_norm_quant(x, w, 1e-6, 0.0)
    assert scale1.shape == (16, 1) and torch.equal(scale1[:, 0], scale0)
    assert torch.equal(q1.view(torch.uint8), q0.view(torch.uint8))
    f = torch.compile(lambda a: nf.rms_norm_quant(a, w, group_size=128), fullgraph=True)
    qc, sc = f(x)
    assert torch.equal(qc.view(torch.uint8), q.view(torch.uint8)) and torch.equal(sc, scale)
    torch.library.opcheck(ops.rms_norm_quant.default, (x, w, 1e-6, 0.0, 128))
    torch.library.opcheck(ops.layer_norm_quant.default, (x, w, w, 1e-5, 64))
    torch.library.opcheck(ops.fused_add_rms_norm_quant.default, (x, x, None, 1e-6, 0.0, 32))
    for bad in (100, 0, -128):
        with pytest.raises(ValueError, match="group_size must be a positive divisor"):
            nf.rms_norm_quant(x, w, group_size=bad)
    with pytest.raises(ValueError, match=r"group_size must be 0 \(the whole row\) or divide"):
        ops.layer_norm_quant(x, w, None, 1e-5, 96)
    # Strided and empty inputs.
    xt = torch.randn(256, 16).t()
    qs, ss = nf.rms_norm_quant(xt, w, group_size=128)
    qr, sr = nf.rms_norm_quant(xt.contiguous(), w, group_size=128)
    assert torch.equal(qs.view(torch.uint8), qr.view(torch.uint8)) and torch.equal(ss, sr)
    qe, se = nf.rms_norm_quant(torch.randn(0, 256), w, group_size=128)
    assert qe.shape == (0, 256) and se.shape == (0, 2)
    # What the kernels do not take quantizes the same way with torch.
    x64 = torch.randn(5, 256, dtype=torch.float64)
    q64, s64 = nf.rms_norm_quant(x64, group_size=64)
    y, ref_scale = group_reference("rms", x64, None, None, 1e-6, 64)
    check_group_quantized(q64, s64, y, ref_scale, 64)
