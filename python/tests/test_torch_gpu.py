"""The PyTorch integration on a GPU: custom ops, autograd, torch.compile and
drop-in modules in a short training run. Skipped without torch and CUDA.

The wheel (bench/wheel_gpu.sh) carries the compiler and compiles every
program on first use. A machine with neither runs the plain norms' tests
from a cache built by scripts/prebuild-cache.py (NORM_MLIR_CACHE).
"""

import pytest

torch = pytest.importorskip("torch")
if not torch.cuda.is_available():
    pytest.skip("needs a CUDA GPU", allow_module_level=True)

import norm_mlir  # noqa: E402
from norm_mlir import ops  # noqa: E402
from norm_mlir import reference  # noqa: E402

F = torch.nn.functional
DT = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}
TOL = {"f32": 1e-5, "bf16": 1e-2, "f16": 2e-3}


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


@pytest.mark.parametrize("t", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("n", [256, 512])
def test_modules_match_torch_nn(t, n):
    torch.manual_seed(0)
    x = torch.randn(3, 77, n, device="cuda", dtype=DT[t])
    for ours, ref in ((norm_mlir.RMSNorm(n, device="cuda", dtype=DT[t]),
                       torch.nn.RMSNorm(n, device="cuda", dtype=DT[t])),
                      (norm_mlir.LayerNorm(n, device="cuda", dtype=DT[t]),
                       torch.nn.LayerNorm(n, device="cuda", dtype=DT[t]))):
        with torch.no_grad():
            for p in ref.parameters():
                p.copy_(torch.randn_like(p) * 0.5 + 1)
        ours.load_state_dict(ref.state_dict())  # same keys
        xd = x.double()
        expected = type(ref)(n, device="cuda", dtype=torch.float64)
        expected.load_state_dict({k: v.double() for k, v in ref.state_dict().items()})
        if isinstance(ref, torch.nn.RMSNorm):
            expected.eps = torch.finfo(DT[t]).eps
        assert rel(ours(x), expected(xd)) < TOL[t]


@pytest.mark.parametrize("t", ["f32", "bf16", "f16"])
def test_gradients_match_float64_autograd(t):
    torch.manual_seed(1)
    n = 512
    x = torch.randn(64, n, device="cuda", dtype=DT[t], requires_grad=True)
    w = (torch.randn(n, device="cuda") * 0.5 + 1).to(DT[t]).requires_grad_()
    b = (torch.randn(n, device="cuda") * 0.1).to(DT[t]).requires_grad_()
    dy = torch.randn(64, n, device="cuda", dtype=DT[t])
    # RMSNorm
    y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
    gx, gw = torch.autograd.grad(y, (x, w), dy)
    xd, wd = x.detach().double().requires_grad_(), w.detach().double().requires_grad_()
    yd = torch.nn.functional.rms_norm(xd, (n,), wd, 1e-6)
    rx, rw = torch.autograd.grad(yd, (xd, wd), dy.double())
    assert rel(gx, rx) < TOL[t] and rel(gw, rw) < TOL[t]
    # LayerNorm
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    bd = b.detach().double().requires_grad_()
    yd = torch.nn.functional.layer_norm(xd, (n,), wd, bd, 1e-5)
    rx, rw, rb = torch.autograd.grad(yd, (xd, wd, bd), dy.double())
    assert rel(gx, rx) < TOL[t] and rel(gw, rw) < TOL[t] and rel(gb, rb) < TOL[t]


def _backwards_match_float64(t, m, n, repeat_dw=False):
    """RMSNorm's and LayerNorm's gradients at m x n against float64 autograd
    (within twice TOL); with repeat_dw, RMSNorm's dW computed twice must be
    bitwise the same."""
    torch.manual_seed(m + n)
    x = torch.randn(m, n, device="cuda", dtype=DT[t], requires_grad=True)
    w = (torch.randn(n, device="cuda") * 0.5 + 1).to(DT[t]).requires_grad_()
    b = (torch.randn(n, device="cuda") * 0.1).to(DT[t]).requires_grad_()
    dy = torch.randn(m, n, device="cuda", dtype=DT[t])
    xd, wd, bd = (v.detach().double().requires_grad_() for v in (x, w, b))
    tol = 2 * TOL[t]
    y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
    gx, gw = torch.autograd.grad(y, (x, w), dy, retain_graph=repeat_dw)
    if repeat_dw:
        assert torch.equal(torch.autograd.grad(y, w, dy)[0], gw)
    rx, rw = torch.autograd.grad(F.rms_norm(xd, (n,), wd, 1e-6), (xd, wd), dy.double())
    assert rel(gx, rx) < tol and rel(gw, rw) < tol
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    rx, rw, rb = torch.autograd.grad(F.layer_norm(xd, (n,), wd, bd, 1e-5), (xd, wd, bd),
                                     dy.double())
    assert rel(gx, rx) < tol and rel(gw, rw) < tol and rel(gb, rb) < tol


@pytest.mark.parametrize("t", ["f32", "bf16"])
@pytest.mark.parametrize("n", [64, 100, 128, 200])
@pytest.mark.parametrize("m", [513, 4099, 262147])
def test_head_row_backwards_match_float64(t, n, m):
    # Rows of fewer than 32 vectors share a warp in the split backwards too:
    # the row groups of a block add their dW (and dB) sums into one partial
    # row, and a ragged M leaves groups with steps past their block's rows.
    # The partial rows are added in a fixed order: the same gradients twice.
    _backwards_match_float64(t, m, n, repeat_dw=True)


@pytest.mark.parametrize("t", ["f32", "bf16"])
@pytest.mark.parametrize("m, n", [(1, 65536), (40, 65536), (63, 65536), (95, 65536),
                                  (130, 65536), (1, 131072), (33, 131072), (97, 131072),
                                  (700, 4096), (200, 8192), (1000, 2048)])
def test_few_rows_backwards_match_float64(t, m, n):
    # Below the short-rows limit (chooseShortRowsLimit: 64 rows for RMSNorm
    # and 96 for LayerNorm at N = 65536-131072, 512 / 768 at N = 4096,
    # 1024 / 1536 at N = 2048) the backward runs as a row kernel beside a
    # whole-column kernel, and one row as one cluster at N >= 12288; above
    # it the split kernel and its combine.
    _backwards_match_float64(t, m, n)


@pytest.mark.parametrize("t", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("n", [256, 512])
def test_inference_forward_is_the_training_forward_without_stats(t, n, monkeypatch):
    # Nothing needs a gradient, so the modules run the inference ops, whose
    # kernels store no statistics; y must be the training forward's, bit for
    # bit (the same reductions in the same order).
    torch.manual_seed(2)
    x = torch.randn(5, 33, n, device="cuda", dtype=DT[t])
    calls = []
    for name in ("rms_norm_inference", "layer_norm_inference"):
        op = getattr(ops, name)
        monkeypatch.setattr(ops, name, lambda *a, _op=op, _n=name: calls.append(_n) or _op(*a))
    rms = norm_mlir.RMSNorm(n, eps=1e-6, device="cuda", dtype=DT[t])
    ln = norm_mlir.LayerNorm(n, device="cuda", dtype=DT[t])
    with torch.no_grad():
        for p in (rms.weight, ln.weight, ln.bias):
            p.copy_(torch.randn_like(p) * 0.5 + 1)
        y_rms, y_ln = rms(x), ln(x)
    assert calls == ["rms_norm_inference", "layer_norm_inference"]
    assert torch.equal(y_rms, ops.rms_norm(x, rms.weight, 1e-6, 0.0)[0])
    assert torch.equal(y_ln, ops.layer_norm(x, ln.weight, ln.bias, 1e-5)[0])
    xd = x.double()
    ref = torch.nn.functional.rms_norm(xd, (n,), rms.weight.double(), 1e-6)
    assert rel(y_rms, ref) < TOL[t]
    ref = torch.nn.functional.layer_norm(xd, (n,), ln.weight.double(), ln.bias.double(), 1e-5)
    assert rel(y_ln, ref) < TOL[t]


@pytest.mark.parametrize("t", ["f32", "bf16", "f16"])
def test_functional_matches_float64_torch(t):
    # norm_mlir.functional over a 2-D normalized shape (4 x 64: N = 256),
    # inference (no grad) and training (gradients) against float64 torch.
    from norm_mlir import functional as NF
    torch.manual_seed(5)
    ns = (4, 64)
    x = torch.randn(3, 5, *ns, device="cuda", dtype=DT[t])
    w = (torch.randn(ns, device="cuda") * 0.5 + 1).to(DT[t])
    b = (torch.randn(ns, device="cuda") * 0.1).to(DT[t])
    xd, wd, bd = x.double(), w.double(), b.double()
    with torch.no_grad():
        assert rel(NF.rms_norm(x, ns, w), torch.nn.functional.rms_norm(
            xd, ns, wd, torch.finfo(DT[t]).eps)) < TOL[t]
        assert rel(NF.layer_norm(x, ns, w, b, 1e-5),
                   torch.nn.functional.layer_norm(xd, ns, wd, bd, 1e-5)) < TOL[t]
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()
    dy = torch.randn_like(x)
    gx, gw = torch.autograd.grad(NF.rms_norm(xg, ns, wg, 1e-6), (xg, wg), dy)
    xr, wr = xd.clone().requires_grad_(), wd.clone().requires_grad_()
    rx, rw = torch.autograd.grad(torch.nn.functional.rms_norm(xr, ns, wr, 1e-6), (xr, wr),
                                 dy.double())
    assert rel(gx, rx) < TOL[t] and rel(gw, rw) < TOL[t]


def test_bad_tensors_are_clear_errors():
    x = torch.randn(4, 256, device="cuda", dtype=torch.float64)
    with pytest.raises(TypeError, match="bfloat16, float16 or float32"):
        ops.rms_norm(x, None, 1e-6, 0.0)
    x = torch.randn(4, 256, device="cuda")
    with pytest.raises(ValueError, match=r"weight/bias must have shape \(256,\)"):
        ops.rms_norm(x, torch.ones(128, device="cuda"), 1e-6, 0.0)
    y, rstd = ops.rms_norm(x, None, 1e-6, 0.0)
    with pytest.raises(ValueError, match="dy must have the shape and dtype of x"):
        ops.rms_norm_backward(torch.randn(3, 256, device="cuda"), x, rstd, None, 0.0)
    with pytest.raises(ValueError, match=r"one value per row of x \(4\)"):
        ops.rms_norm_backward(torch.randn_like(x), x, rstd[:2], None, 0.0)
    with pytest.raises(ValueError, match="must be on cuda"):
        ops.rms_norm_backward(torch.randn_like(x), x, rstd.cpu(), None, 0.0)
    # CPU tensors take the CPU lowering, which needs the compiler.
    from norm_mlir import compiler
    if compiler._library() is None:
        with pytest.raises(compiler.CompileError, match="needs the compiler"):
            ops.rms_norm(torch.randn(4, 256), None, 1e-6, 0.0)


def make_model(norm_cls, n=256, seed=0):
    torch.manual_seed(seed)
    layers = []
    for i in range(3):
        layers += [torch.nn.Linear(n, n), norm_cls[i % 2](n), torch.nn.GELU()]
    return torch.nn.Sequential(*layers, torch.nn.Linear(n, 10)).cuda()


@pytest.mark.parametrize("compiled", [False, True])
def test_training_tracks_torch(compiled):
    ours = make_model((norm_mlir.RMSNorm, norm_mlir.LayerNorm))
    ref = make_model((torch.nn.RMSNorm, torch.nn.LayerNorm))
    ours.load_state_dict(ref.state_dict())
    run = torch.compile(ours, fullgraph=True) if compiled else ours
    opt_a = torch.optim.AdamW(ours.parameters(), lr=1e-3)
    opt_b = torch.optim.AdamW(ref.parameters(), lr=1e-3)
    # A learnable task: labels from a fixed random teacher, fixed batches.
    gen = torch.Generator(device="cuda").manual_seed(3)
    teacher = torch.randn(256, 10, device="cuda", generator=gen)
    data = [torch.randn(128, 256, device="cuda", generator=gen) for _ in range(4)]
    losses = []
    for step in range(60):
        x = data[step % len(data)]
        target = (x @ teacher).argmax(-1)
        la = torch.nn.functional.cross_entropy(run(x), target)
        lb = torch.nn.functional.cross_entropy(ref(x), target)
        opt_a.zero_grad()
        opt_b.zero_grad()
        la.backward()
        lb.backward()
        opt_a.step()
        opt_b.step()
        losses.append((la.item(), lb.item()))
    print("losses (norm_mlir, torch): first", losses[0], "last", losses[-1])
    assert losses[-1][0] < 0.5 * losses[0][0], losses  # it learns
    # Same function, different f32 summation order: the curves agree closely.
    for a, b in losses:
        assert abs(a - b) <= 1e-2 * abs(b) + 1e-3, losses


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two CUDA devices")
def test_two_devices_in_one_process():
    # The ops keep a Launcher per device: kernels loaded in one device's
    # context cannot launch in another's.
    torch.manual_seed(0)
    for device in ("cuda:0", "cuda:1"):
        x = torch.randn(64, 512, device=device, dtype=torch.bfloat16)
        w = torch.randn(512, device=device, dtype=torch.bfloat16)
        y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
        assert y.device == x.device
        ref = torch.nn.functional.rms_norm(x.double(), (512,), w.double(), 1e-6)
        assert rel(y, ref) < TOL["bf16"]
    # One Launcher asked to run on a second device refuses clearly.
    from norm_mlir.compiler import compile_program
    from norm_mlir.launcher import Launcher
    from norm_mlir.programs import op_program
    launcher = Launcher(compile_program(op_program("rms_fwd", 512, "bf16", "bf16", eps=1e-6,
                                                   offset=0.0)))
    args = lambda d: (torch.randn(8, 512, device=d, dtype=torch.bfloat16),  # noqa: E731
                      torch.ones(512, device=d, dtype=torch.bfloat16))
    launcher(None, *args("cuda:0"))
    with pytest.raises(ValueError, match="loaded on cuda:0, got tensors on cuda:1"):
        launcher(None, *args("cuda:1"))


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("wt", ["bf16", "f16", "f32"])
def test_mixed_activation_and_weight_dtypes(t, wt):
    # The mixed-precision setup (bf16 rows, f32 weights) and every other
    # pairing: forward and backward against float64, y in x's dtype, dW in
    # the weight's. bf16 with f32 weights once compiled to loads sm_90 lacks.
    torch.manual_seed(5)
    n = 4096
    x = torch.randn(300, n, device="cuda", dtype=DT[t], requires_grad=True)
    w = (torch.randn(n, device="cuda") * 0.5 + 1).to(DT[wt]).requires_grad_()
    b = (torch.randn(n, device="cuda") * 0.1).to(DT[wt]).requires_grad_()
    dy = torch.randn_like(x)
    tol = max(TOL[t], TOL[wt])
    xd, wd, bd = (v.detach().double().requires_grad_() for v in (x, w, b))
    y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
    assert y.dtype == x.dtype
    gx, gw = torch.autograd.grad(y, (x, w), dy)
    assert gw.dtype == w.dtype
    yd = torch.nn.functional.rms_norm(xd, (n,), wd, 1e-6)
    rx, rw = torch.autograd.grad(yd, (xd, wd), dy.double())
    assert rel(y, yd) < tol and rel(gx, rx) < tol and rel(gw, rw) < tol
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    gx, gw, gb = torch.autograd.grad(y, (x, w, b), dy)
    yd = torch.nn.functional.layer_norm(xd, (n,), wd, bd, 1e-5)
    rx, rw, rb = torch.autograd.grad(yd, (xd, wd, bd), dy.double())
    assert rel(y, yd) < tol and rel(gx, rx) < tol
    assert rel(gw, rw) < tol and rel(gb, rb) < tol


@pytest.mark.parametrize("layout", ["storage_offset_2", "storage_offset_6", "transposed",
                                    "strided_rows", "flat_parameter_view"])
def test_misaligned_and_strided_tensors_give_torchs_results(layout):
    # Every tensor torch's norms accept: views at offsets the 16-byte
    # accesses cannot take (copied first), strided views, weights that are
    # views into a flat buffer (FSDP's flat parameters).
    torch.manual_seed(6)
    n, m = 1024, 257
    storage = torch.randn(m * n + 64, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16) * 0.5 + 1
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16) * 0.1
    if layout.startswith("storage_offset"):
        k = int(layout.rsplit("_", 1)[1])
        x = storage[k:k + m * n].view(m, n)
        assert x.data_ptr() % 16 != 0
    elif layout == "transposed":
        x = torch.randn(n, m, device="cuda", dtype=torch.bfloat16).t()
    elif layout == "strided_rows":
        x = torch.randn(2 * m, n, device="cuda", dtype=torch.bfloat16)[::2]
    else:
        x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        flat = torch.randn(3 + 2 * n, device="cuda", dtype=torch.bfloat16)
        flat[3:3 + n] = w
        flat[3 + n:] = b
        w, b = flat[3:3 + n], flat[3 + n:]
        assert w.data_ptr() % 16 != 0
    x = x.requires_grad_() if x.is_leaf else x.detach().requires_grad_()
    dy = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    wd, bd = w.double(), b.double()
    for ours, theirs in (
            (lambda v: norm_mlir.functional.rms_norm(v, (n,), w, 1e-6),
             lambda v: torch.nn.functional.rms_norm(v, (n,), wd, 1e-6)),
            (lambda v: norm_mlir.functional.layer_norm(v, (n,), w, b, 1e-5),
             lambda v: torch.nn.functional.layer_norm(v, (n,), wd, bd, 1e-5))):
        y = ours(x)
        ref = theirs(x.detach().double())
        assert rel(y, ref) < TOL["bf16"]
        gx, = torch.autograd.grad(y, x, dy)
        xd = x.detach().double().requires_grad_()
        rx, = torch.autograd.grad(theirs(xd), xd, dy.double())
        assert rel(gx, rx) < TOL["bf16"]


def test_autocast_gives_torchs_dtypes():
    # Inside torch.autocast the ops return what torch's own norms return
    # there (float32 on CUDA, whatever the inputs), so swapping them in
    # changes no dtype downstream.
    n = 512
    x = torch.randn(8, n, device="cuda", dtype=torch.bfloat16)
    w = torch.ones(n, device="cuda", dtype=torch.bfloat16)
    b = torch.zeros(n, device="cuda", dtype=torch.bfloat16)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        assert (norm_mlir.functional.rms_norm(x, (n,), w, 1e-6).dtype
                == torch.nn.functional.rms_norm(x, (n,), w, 1e-6).dtype)
        assert (norm_mlir.functional.layer_norm(x, (n,), w, b, 1e-5).dtype
                == torch.nn.functional.layer_norm(x, (n,), w, b, 1e-5).dtype)
        assert ops.rms_norm(x, w, 1e-6, 0.0)[0].dtype == \
            torch.nn.functional.rms_norm(x, (n,), w, 1e-6).dtype
        xf = x.float().requires_grad_()
        y = norm_mlir.functional.layer_norm(xf, (n,), w, b, 1e-5)
        assert y.dtype == torch.nn.functional.layer_norm(xf, (n,), w, b, 1e-5).dtype
    y.float().sum().backward()
    assert xf.grad.dtype == torch.float32


def test_native_extension_runs_the_cuda_ops():
    # Where the extension is built (a wheel, or the build tree), the CUDA
    # kernels and autograd are the C++ ones.
    import os
    from norm_mlir import native
    if native.library_path() is None or os.environ.get("NORM_MLIR_NATIVE") == "0":
        pytest.skip("the native extension is not built or turned off")
    assert native.loaded, native.reason
    x = torch.randn(64, 512, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    y, _ = ops.rms_norm(x, None, 1e-6, 0.0)
    assert type(y.grad_fn).__name__ == "CppFunction"
    # Different row counts, each with its own launch plan, and back.
    for m in (1, 3, 4096, 1, 300):
        xm = torch.randn(m, 512, device="cuda")
        ref = torch.nn.functional.rms_norm(xm.double(), (512,), eps=1e-6)
        assert rel(ops.rms_norm(xm, None, 1e-6, 0.0)[0], ref) < 1e-5


def test_ops_run_on_a_side_stream():
    # The kernels go to the current stream: work queued before them on it is
    # ordered, and the caller's later work sees their results.
    torch.manual_seed(5)
    x = torch.randn(4096, 1024, device="cuda")
    w = torch.randn(1024, device="cuda")
    ref = ops.rms_norm(x, w, 1e-6, 0.0)[0]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        xs = x * 1.0  # queued on the side stream before the norm
        ys = ops.rms_norm(xs, w, 1e-6, 0.0)[0]
    torch.cuda.current_stream().wait_stream(side)
    assert torch.equal(ys, ref)


@pytest.mark.parametrize("norm", ["rms", "layer"])
def test_cuda_graph_capture_and_replay(norm):
    # Manual torch.cuda.graph capture of a training step (forward and
    # backward, workspaces included); replays on new inputs give the
    # eager results.
    torch.manual_seed(6)
    n, m = 1024, 2048
    w = torch.randn(n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    b = torch.randn(n, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    def step(x):
        if norm == "rms":
            y, _ = ops.rms_norm(x, w, 1e-6, 0.0)
        else:
            y, _, _ = ops.layer_norm(x, w, b, 1e-5)
        return torch.autograd.grad((y.float() ** 2).sum(), (x, w))

    static_x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up: compile, load and plan outside capture
        for _ in range(2):
            step(static_x)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_dx, static_dw = step(static_x)
    for seed in (7, 8):
        torch.manual_seed(seed)
        fresh = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
        static_x.data.copy_(fresh)
        graph.replay()
        dx, dw = step(fresh.clone().requires_grad_())
        torch.cuda.synchronize()
        assert torch.equal(static_dx, dx) and torch.equal(static_dw, dw)


def test_torch_compile_reduce_overhead():
    # torch.compile's CUDA graphs (mode="reduce-overhead") capture the ops.
    torch.manual_seed(9)
    model = make_model((norm_mlir.RMSNorm, norm_mlir.LayerNorm), n=512)
    ref = make_model((torch.nn.RMSNorm, torch.nn.LayerNorm), n=512)
    ref.load_state_dict(model.state_dict())
    compiled = torch.compile(model, mode="reduce-overhead", fullgraph=True)
    for _ in range(4):
        x = torch.randn(256, 512, device="cuda")
        with torch.no_grad():
            out = compiled(x).clone()
            assert rel(out, ref(x)) < 1e-4


# ---- the fused residual add (fused_add_rms_norm, fused_add_layer_norm) ------

def _fused_add_reference(kind, x, r, w, b, eps, gy, gh):
    """float64 y, h and the gradients of x, r, w, b for sum(y * gy + h * gh)."""
    leaves = [t.detach().double().requires_grad_() if t is not None else None
              for t in (x, r, w, b)]
    X, R, W, B = leaves
    H = X + R
    n = x.shape[-1]
    Y = (torch.nn.functional.rms_norm(H, (n,), W, eps) if kind == "rms"
         else torch.nn.functional.layer_norm(H, (n,), W, B, eps))
    (Y * gy.double() + H * gh.double()).sum().backward()
    return Y, H, [t.grad if t is not None else None for t in leaves]


@pytest.mark.parametrize("kind", ["rms", "ln"])
@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("wt", ["same", "f32", None])
@pytest.mark.parametrize("m,n", [(1, 4096), (3, 1000), (257, 256), (1025, 4096),
                                 (4097, 8192), (64, 32768), (9, 65536)])
def test_fused_add_matches_float64(kind, t, wt, m, n):
    # Every layout class (warp rows, a row a block, staged rows, short-rows
    # versions at small M, clusters, long rows) and dtype combination.
    torch.manual_seed(m + n)
    dt = DT[t]
    wdt = dt if wt == "same" else (DT[wt] if wt else None)
    x = torch.randn(m, n, device="cuda", dtype=dt, requires_grad=True)
    r = torch.randn(m, n, device="cuda", dtype=dt, requires_grad=True)
    w = ((torch.rand(n, device="cuda") + 0.5).to(wdt).requires_grad_()
         if wdt is not None else None)
    b = ((torch.randn(n, device="cuda") * 0.1).to(wdt).requires_grad_()
         if (wdt is not None and kind == "ln") else None)
    eps = 1e-6 if kind == "rms" else 1e-5
    y, h = (norm_mlir.functional.fused_add_rms_norm(x, r, n, w, eps) if kind == "rms"
            else norm_mlir.functional.fused_add_layer_norm(x, r, n, w, b, eps))
    gy, gh = torch.randn_like(y), torch.randn_like(h)
    (y * gy + h * gh).sum().backward()
    Y, H, grads = _fused_add_reference(kind, x, r, w, b, eps, gy, gh)
    tol = TOL[t]
    assert rel(y, Y) < tol and rel(h, H) < tol
    assert rel(x.grad, grads[0]) < tol and rel(r.grad, grads[1]) < tol
    for p, g in ((w, grads[2]), (b, grads[3])):
        if p is not None:
            assert rel(p.grad, g) < 2 * tol + TOL["f32" if wt == "f32" else t]


def test_fused_add_one_output_and_inference():
    torch.manual_seed(11)
    n = 2048
    x = torch.randn(300, n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    r = torch.randn_like(x, requires_grad=True)
    w = torch.rand(n, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    y, h = norm_mlir.functional.fused_add_rms_norm(x, r, n, w, 1e-6)
    gh = torch.randn_like(h)
    gx, gr = torch.autograd.grad(h, (x, r), gh, retain_graph=True)
    assert torch.equal(gx, gh) and torch.equal(gr, gh)
    gy = torch.randn_like(y)
    gx, gw = torch.autograd.grad(y, (x, w), gy)
    Y, H, grads = _fused_add_reference("rms", x, r, w, None, 1e-6, gy, torch.zeros_like(gy))
    assert rel(gx, grads[0]) < TOL["bf16"] and rel(gw, grads[2]) < 2 * TOL["bf16"]
    with torch.no_grad():
        yi, hi = norm_mlir.functional.fused_add_rms_norm(x, r, n, w, 1e-6)
    assert torch.equal(yi, y) and torch.equal(hi, h)


@pytest.mark.parametrize("layout", ["storage_offset_2", "transposed", "strided_rows"])
def test_fused_add_misaligned_and_strided(layout):
    torch.manual_seed(12)
    n, m = 1024, 257
    storage = torch.randn(m * n + 64, device="cuda", dtype=torch.bfloat16)
    if layout == "storage_offset_2":
        x = storage[2:2 + m * n].view(m, n)
    elif layout == "transposed":
        x = torch.randn(n, m, device="cuda", dtype=torch.bfloat16).t()
    else:
        x = torch.randn(2 * m, n, device="cuda", dtype=torch.bfloat16)[::2]
    r = torch.randn(n, m, device="cuda", dtype=torch.bfloat16).t()
    w = torch.rand(n, device="cuda", dtype=torch.bfloat16) + 0.5
    y, h = norm_mlir.functional.fused_add_layer_norm(x, r, n, w, None, 1e-5)
    H = x.double() + r.double()
    assert rel(h, H) < TOL["bf16"]
    assert rel(y, torch.nn.functional.layer_norm(H, (n,), w.double(), None, 1e-5)) < TOL["bf16"]


def test_fused_add_under_torch_compile_and_bad_inputs():
    torch.manual_seed(13)
    norm = norm_mlir.FusedAddRMSNorm(4096, device="cuda", dtype=torch.bfloat16)
    x = torch.randn(512, 4096, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    r = torch.randn_like(x, requires_grad=True)

    def block(x, r):
        y, h = norm(x, r)
        return (y.float() * 2).sum() + (h.float() ** 2).sum()

    loss = torch.compile(block, fullgraph=True)(x, r)
    loss.backward()
    xd, rd = x.detach().double(), r.detach().double()
    H = xd + rd
    ref = (torch.nn.functional.rms_norm(H, (4096,), norm.weight.double(),
                                        torch.finfo(torch.bfloat16).eps) * 2).sum() + (H ** 2).sum()
    assert rel(loss, ref) < TOL["bf16"]
    with pytest.raises(ValueError, match="residual must have the shape, dtype and device of x"):
        ops.fused_add_rms_norm(x.detach(), r.detach()[:3], None, 1e-6, 0.0)
    with pytest.raises(ValueError, match="residual must have the shape, dtype and device of x"):
        ops.fused_add_layer_norm(x.detach(), r.detach().float(), None, None, 1e-5)


# ---- the L2 norm and the gated RMSNorm (l2_norm, rms_norm_gated) -------------

def _gated_reference(x, z, w, eps, activation, norm_before_gate):
    return reference.gated_fwd(x, z, w, eps, activation=activation,
                               norm_before_gate=norm_before_gate)[0]


def _leaves(*tensors):
    return [t.detach().double().requires_grad_() if t is not None else None for t in tensors]


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("m,n", [(1, 64), (4099, 64), (3, 100), (20000, 128), (257, 256),
                                 (65, 1024), (9, 4096)])
def test_l2_norm_matches_float64(t, m, n):
    torch.manual_seed(m + n)
    x = (torch.randn(m, n, device="cuda") * 3).to(DT[t]).requires_grad_()
    y = norm_mlir.functional.l2_norm(x, 1e-6)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    (X,) = _leaves(x)
    Y = X * torch.rsqrt(X.square().sum(-1, keepdim=True) + 1e-6)
    (Y * gy.double()).sum().backward()
    assert y.dtype == DT[t] and rel(y, Y) < TOL[t] and rel(x.grad, X.grad) < TOL[t]
    with torch.no_grad():
        assert torch.equal(norm_mlir.functional.l2_norm(x, 1e-6), y)


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("wt", ["same", "f32", None])
@pytest.mark.parametrize("activation,norm_before_gate", [("silu", True), ("silu", False),
                                                         ("sigmoid", True)])
@pytest.mark.parametrize("m,n", [(1, 64), (4099, 128), (257, 256), (65, 1024), (9, 4096)])
def test_rms_norm_gated_matches_float64(t, wt, activation, norm_before_gate, m, n):
    torch.manual_seed(m * n)
    x = torch.randn(m, n, device="cuda").to(DT[t]).requires_grad_()
    z = (torch.randn(m, n, device="cuda") * 2).to(DT[t]).requires_grad_()
    wdt = DT[t] if wt == "same" else DT.get(wt)
    w = ((torch.rand(n, device="cuda") + 0.5).to(wdt).requires_grad_()
         if wdt is not None else None)
    y = norm_mlir.functional.rms_norm_gated(x, z, w, 1e-5, activation, norm_before_gate)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    X, Z, W = _leaves(x, z, w)
    Y = _gated_reference(X, Z, W, 1e-5, activation, norm_before_gate)
    (Y * gy.double()).sum().backward()
    tol = TOL[t]
    assert rel(y, Y) < tol and rel(x.grad, X.grad) < tol and rel(z.grad, Z.grad) < tol
    if w is not None:
        assert rel(w.grad, W.grad) < tol + 2 * TOL[wt if wt != "same" else t]
    with torch.no_grad():
        assert torch.equal(norm_mlir.functional.rms_norm_gated(x, z, w, 1e-5, activation,
                                                               norm_before_gate), y)


def test_l2_gated_strided_offset_compile_and_errors():
    torch.manual_seed(5)
    base = torch.randn(64, 130, device="cuda", dtype=torch.bfloat16)
    x = base[:, 1:129]
    z = torch.randn(128, 64, device="cuda", dtype=torch.bfloat16).t()
    w = torch.rand(128, device="cuda", dtype=torch.bfloat16)
    X, Z, W = (t.double() for t in (x, z, w))
    assert rel(norm_mlir.functional.l2_norm(x),
               X * torch.rsqrt(X.square().sum(-1, keepdim=True) + 1e-6)) < 1e-2
    assert rel(norm_mlir.functional.rms_norm_gated(x, z, w),
               _gated_reference(X, Z, W, 1e-6, "silu", True)) < 1e-2
    gated = norm_mlir.RMSNormGated(128, activation="sigmoid").cuda()
    f = torch.compile(lambda a, b: gated(norm_mlir.functional.l2_norm(a), b), fullgraph=True)
    a = torch.randn(32, 128, device="cuda", requires_grad=True)
    b = torch.randn(32, 128, device="cuda", requires_grad=True)
    f(a, b).sum().backward()
    A, B, G = _leaves(a, b, gated.weight)
    _gated_reference(A * torch.rsqrt(A.square().sum(-1, keepdim=True) + 1e-6), B, G, 1e-5,
                     "sigmoid", True).sum().backward()
    assert rel(a.grad, A.grad) < 1e-4 and rel(b.grad, B.grad) < 1e-4
    assert rel(gated.weight.grad, G.grad) < 1e-4
    with pytest.raises(ValueError, match="the gate z must have the shape, dtype and device"):
        ops.rms_norm_gated(a, b[:, :64], None, 1e-6, 0.0, "silu", True)
    with pytest.raises(ValueError, match="activation must be 'silu' or 'sigmoid'"):
        ops.rms_norm_gated(a, b, None, 1e-6, 0.0, "tanh", True)
    with pytest.raises(ValueError, match="mean/rstd must be float32"):
        ops.l2_norm_backward(a, a, torch.ones(3, device="cuda"))


# ---- FP8 output (rms_norm_quant, layer_norm_quant, fused_add_rms_norm_quant) --

@pytest.mark.parametrize("kind", ["rms", "ln", "add"])
@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("m,n", [(1, 128), (4099, 128), (257, 1000), (65, 4096), (9, 16384),
                                 (3, 65536)])
def test_fp8_output_matches_float64(kind, t, m, n):
    torch.manual_seed(m + n)
    x = (torch.randn(m, n, device="cuda") * 3).to(DT[t])
    r = torch.randn_like(x)
    w = (torch.rand(n, device="cuda") + 0.5).to(DT[t])
    b = torch.randn_like(w)
    f = norm_mlir.functional
    if kind == "rms":
        q, scale = f.rms_norm_quant(x, w, 1e-6)
        y = F.rms_norm(x.double(), (n,), w.double(), 1e-6)
    elif kind == "ln":
        q, scale = f.layer_norm_quant(x, w, b, 1e-5)
        y = F.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    else:
        q, scale, h = f.rms_norm_quant(x, w, 1e-6, residual=r)
        assert torch.equal(h, x + r)
        y = F.rms_norm(h.double(), (n,), w.double(), 1e-6)
    ref_scale = (y.abs().amax(-1) / 448).clamp_min(1e-12)
    assert q.dtype == torch.float8_e4m3fn and scale.dtype == torch.float32
    assert ((scale.double() - ref_scale) / ref_scale).abs().max() < 1e-5
    target = y / scale.double().unsqueeze(-1)
    assert ((q.double() - target).abs() <= target.abs() / 16 + 2.0 ** -10 + 1e-4).all()
    same = q.view(torch.uint8) == target.to(torch.float8_e4m3fn).view(torch.uint8)
    assert same.double().mean() > 0.995


def test_fp8_output_zero_rows_compile_and_cpu_agreement():
    x = torch.randn(64, 256, device="cuda", dtype=torch.bfloat16)
    x[3] = 0
    w = torch.rand(256, device="cuda", dtype=torch.bfloat16) + 0.5
    q, scale = ops.rms_norm_quant(x, w, 1e-6, 0.0)
    assert scale[3] == 1e-12 and not q[3].float().any()
    qc, sc = torch.compile(lambda a: norm_mlir.functional.rms_norm_quant(a, w),
                           fullgraph=True)(x)
    assert torch.equal(qc.view(torch.uint8), q.view(torch.uint8)) and torch.equal(sc, scale)
    # The CPU lowering rounds to the same bytes as the GPU's cvt.
    qh, sh = ops.rms_norm_quant(x.cpu(), w.cpu(), 1e-6, 0.0)
    assert torch.allclose(sh, scale.cpu(), rtol=1e-6)
    agree = qh.view(torch.uint8) == q.cpu().view(torch.uint8)
    assert agree.double().mean() > 0.999


@pytest.mark.parametrize("kind", ["rms", "ln", "add"])
@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("m,n,group", [(1, 128, 128), (4099, 512, 128), (257, 7168, 128),
                                       (65, 4096, 1024), (33, 96, 32), (9, 16384, 128),
                                       (5, 8192, 64), (3, 1024, 16)])
def test_fp8_group_scales_match_float64(kind, t, m, n, group):
    """FP8 with a scale per group of columns (1 x 128) in one kernel: the
    group reductions' shuffles (and for groups wider than a warp, their
    exchange through shared memory) against float64."""
    torch.manual_seed(m + n + group)
    x = (torch.randn(m, n, device="cuda") * torch.linspace(0.1, 6, n, device="cuda")).to(DT[t])
    r = torch.randn_like(x)
    w = (torch.rand(n, device="cuda") + 0.5).to(DT[t])
    b = torch.randn_like(w)
    f = norm_mlir.functional
    if kind == "rms":
        q, scale = f.rms_norm_quant(x, w, 1e-6, group_size=group)
        y = F.rms_norm(x.double(), (n,), w.double(), 1e-6)
    elif kind == "ln":
        q, scale = f.layer_norm_quant(x, w, b, 1e-5, group_size=group)
        y = F.layer_norm(x.double(), (n,), w.double(), b.double(), 1e-5)
    else:
        q, scale, h = f.rms_norm_quant(x, w, 1e-6, residual=r, group_size=group)
        assert torch.equal(h, x + r)
        y = F.rms_norm(h.double(), (n,), w.double(), 1e-6)
    yg = y.unflatten(-1, (n // group, group))
    ref_scale = (yg.abs().amax(-1) / 448).clamp_min(1e-12)
    assert q.dtype == torch.float8_e4m3fn and scale.shape == (m, n // group)
    assert ((scale.double() - ref_scale) / ref_scale).abs().max() < 1e-5
    target = (yg / scale.double().unsqueeze(-1)).flatten(-2)
    assert ((q.double() - target).abs() <= target.abs() / 16 + 2.0 ** -10 + 1e-4).all()
    same = q.view(torch.uint8) == target.to(torch.float8_e4m3fn).view(torch.uint8)
    assert same.double().mean() > 0.995


def test_fp8_group_scales_outliers_compile_and_cpu_agreement():
    x = torch.randn(64, 512, device="cuda", dtype=torch.bfloat16)
    x[3] = 0
    x[5, 300] = 1e4
    w = torch.rand(512, device="cuda", dtype=torch.bfloat16) + 0.5
    q, scale = ops.rms_norm_quant(x, w, 1e-6, 0.0, 128)
    assert (scale[3] == 1e-12).all() and not q[3].float().any()
    assert q[5, 300].float().abs() == 448 and (scale[5, [0, 1, 3]] < scale[5, 2] / 100).all()
    qc, sc = torch.compile(lambda a: norm_mlir.functional.rms_norm_quant(a, w, group_size=128),
                           fullgraph=True)(x)
    assert torch.equal(qc.view(torch.uint8), q.view(torch.uint8)) and torch.equal(sc, scale)
    qh, sh = ops.rms_norm_quant(x.cpu(), w.cpu(), 1e-6, 0.0, 128)
    assert torch.allclose(sh, scale.cpu(), rtol=1e-6)
    assert (qh.view(torch.uint8) == q.cpu().view(torch.uint8)).double().mean() > 0.999
    # Groups that are not a power of two of elements compute with torch on
    # the GPU; the op itself says why it has no kernel.
    x6 = torch.randn(8, 600, device="cuda")
    q6, s6 = norm_mlir.functional.rms_norm_quant(x6, group_size=120)
    assert s6.shape == (8, 5)
    with pytest.raises(Exception, match="power of two of vectors"):
        ops.rms_norm_quant(x6, None, 1e-6, 0.0, 120)


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("weight", [True, False])
@pytest.mark.parametrize("norm_before_gate", [True, False])
@pytest.mark.parametrize("m,n,group", [(4099, 256, 64), (257, 8192, 1024), (65, 4096, 512),
                                       (33, 96, 32), (3, 2048, 256)])
def test_grouped_gated_matches_float64(t, weight, norm_before_gate, m, n, group):
    """Mamba2's grouped gated RMSNorm in the kernels, forward and backward."""
    torch.manual_seed(m + n + group)
    x = torch.randn(m, n, device="cuda").to(DT[t]).requires_grad_()
    z = (torch.randn(m, n, device="cuda") * 2).to(DT[t]).requires_grad_()
    w = (torch.rand(n, device="cuda") + 0.5).to(DT[t]).requires_grad_() if weight else None
    y, rstd = ops.rms_norm_gated(x, z, w, 1e-5, 0.0, "silu", norm_before_gate, group)
    assert rstd.shape == (m, n // group)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    X, Z, W = _leaves(x, z, w)
    act = F.silu(Z)
    H = X if norm_before_gate else X * act
    G = H.unflatten(-1, (n // group, group))
    Y = (G * torch.rsqrt(G.square().mean(-1, keepdim=True) + 1e-5)).flatten(-2)
    Y = Y * W if W is not None else Y
    Y = Y * act if norm_before_gate else Y
    (Y * gy.double()).sum().backward()
    tol = TOL[t]
    assert rel(y, Y) < tol and rel(x.grad, X.grad) < tol and rel(z.grad, Z.grad) < tol
    if w is not None:
        assert rel(w.grad, W.grad) < 3 * tol
    with torch.no_grad():
        assert torch.equal(norm_mlir.functional.rms_norm_gated(
            x, z, w, 1e-5, "silu", norm_before_gate, group_size=group), y)


@pytest.mark.parametrize("t", ["bf16", "f16", "f32"])
@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("m,n", [(4099, 1024), (65, 8192), (3, 65536)])
def test_layer_norm_weight_offset_matches_float64(t, fused, m, n):
    """LayerNorm with a zero-centered weight (offset 1), plain and after the
    residual add, forward and backward."""
    torch.manual_seed(m + n)
    x = torch.randn(m, n, device="cuda").to(DT[t]).requires_grad_()
    r = torch.randn(m, n, device="cuda").to(DT[t]).requires_grad_()
    w = (torch.randn(n, device="cuda") * 0.1).to(DT[t]).requires_grad_()
    b = torch.randn(n, device="cuda").to(DT[t]).requires_grad_()
    f = norm_mlir.functional
    if fused:
        y, h = f.fused_add_layer_norm(x, r, (n,), w, b, 1e-5, offset=1.0)
    else:
        y = f.layer_norm(x, (n,), w, b, 1e-5, offset=1.0)
    gy = torch.randn_like(y)
    (y * gy).sum().backward()
    X, R, W, B = _leaves(x, r, w, b)
    H = X + R if fused else X
    (F.layer_norm(H, (n,), 1 + W, B, 1e-5) * gy.double()).sum().backward()
    tol = TOL[t]
    Y = F.layer_norm((X + R if fused else X).detach(), (n,), 1 + W.detach(), B.detach(), 1e-5)
    assert rel(y, Y) < tol and rel(x.grad, X.grad) < tol
    assert rel(w.grad, W.grad) < 3 * tol and rel(b.grad, B.grad) < 3 * tol


# ---- norm_mlir.compile: the rewrite of model code on the GPU ---------------

class _WrittenNorms(torch.nn.Module):
    """Model code as people write it: a pre-norm block with Llama's
    RMSNorm (upcast, mean of squares, rsqrt) after a residual add whose sum
    is reused, torch.nn.LayerNorm, FLA's l2norm over heads and Qwen3-Next's
    gated RMSNorm."""

    def __init__(self, heads=4, dim=128):
        super().__init__()
        n = heads * dim
        self.heads, self.dim = heads, dim
        self.w = torch.nn.Parameter(torch.rand(n) + 0.5)
        self.gw = torch.nn.Parameter(torch.rand(dim) + 0.5)
        self.proj = torch.nn.Linear(n, 3 * n, bias=False)
        self.ln = torch.nn.LayerNorm(n)
        self.out = torch.nn.Linear(n, n, bias=False)

    def rms(self, h):
        dtype = h.dtype
        h = h.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-6)
        return self.w * h.to(dtype)

    def forward(self, x, r):
        h = x + r
        q, k, g = self.proj(self.rms(h)).unflatten(-1, (3, self.heads, self.dim)).unbind(-3)
        q = q * torch.rsqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6)
        k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
        o = q * k.sum(-2, keepdim=True)
        dtype = o.dtype
        o = o.to(torch.float32)
        o = o * torch.rsqrt(o.pow(2).mean(-1, keepdim=True) + 1e-6)
        o = (self.gw * o.to(dtype)) * F.silu(g.to(torch.float32))
        return self.out(self.ln(o.to(dtype).flatten(-2))) + h


def test_norm_mlir_compile_rewrites_model_code_on_the_gpu():
    from norm_mlir import fx_passes
    from torch._inductor.compile_fx import compile_fx
    torch.manual_seed(11)
    model = _WrittenNorms().to("cuda", torch.bfloat16)
    x = torch.randn(4, 256, 512, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    r = torch.randn(4, 256, 512, device="cuda", dtype=torch.bfloat16)
    counts = {}

    def backend(gm, example_inputs):
        for form, k in fx_passes.rewrite_norms(gm).items():
            counts[form] = counts.get(form, 0) + k
        return compile_fx(gm, example_inputs)

    def run(compiled):
        x.grad = None
        model.zero_grad()
        out = compiled(x, r)
        out.float().square().mean().backward()
        return [out, x.grad] + [p.grad for p in model.parameters()]

    got = run(torch.compile(model, backend=backend, fullgraph=True))
    assert counts == {"fused_add": 1, "written_l2_norm": 2, "written_rms_norm": 2,
                      "gated": 1, "layer_norm": 1}
    want = run(torch.compile(model, fullgraph=True))
    for a, b in zip(got, want):
        assert rel(a, b) < 2e-2
    again = run(norm_mlir.compile(model))
    for a, b in zip(again, want):
        assert rel(a, b) < 2e-2


def test_norm_mlir_compile_fp8_quantization_on_the_gpu():
    # A norm's y quantized to FP8 per row in float32, written out: under
    # no_grad norm_mlir.compile runs it as the quantizing kernel; the scale
    # within bf16 rounding of the model's, q within one FP8 step.
    from norm_mlir import fx_passes
    from torch._inductor.compile_fx import compile_fx
    torch._dynamo.reset()

    class Quantized(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.norm = torch.nn.RMSNorm(n, eps=1e-6)

        def forward(self, x):
            y = self.norm(x).float()
            scale = (torch.amax(torch.abs(y), dim=-1, keepdim=True) / 448.0).clamp(min=1e-12)
            return (y / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn), scale

    counts = {}

    def backend(gm, example_inputs):
        for form, k in fx_passes.rewrite_norms(gm).items():
            counts[form] = counts.get(form, 0) + k
        return compile_fx(gm, example_inputs)

    torch.manual_seed(12)
    model = Quantized(4096).to("cuda", torch.bfloat16)
    with torch.no_grad():
        model.norm.weight.uniform_(0.5, 1.5)
        x = torch.randn(4, 1000, 4096, device="cuda", dtype=torch.bfloat16) * 3
        q, scale = torch.compile(model, backend=backend, fullgraph=True)(x)
        want_q, want_scale = model(x)
    assert counts == {"rms_norm": 1, "fp8_quant": 1}
    assert q.dtype == torch.float8_e4m3fn and scale.shape == want_scale.shape
    assert rel(scale, want_scale) < 1e-2
    got, want = q.float(), want_q.float()
    assert ((got - want).abs() / want.abs().clamp_min(2 ** -6)).max() <= 0.125 + 1e-6
    assert (got != want).float().mean() < 0.05


@pytest.mark.parametrize("n", [128, 4096, 8192, 16384, 65536])
def test_portable_kernels_run_on_this_gpu(n):
    # sm_80's kernels, which every GPU without tuned ones runs (no clusters,
    # bulk copies, mbarriers or dependent launches; RMSNorm's backward rows
    # a block cannot hold shared by block groups through a zeroed workspace,
    # LayerNorm's split into a statistics and an apply kernel; FP8 rounded
    # in integer arithmetic), run here through the driver's PTX JIT and match float64,
    # forward and backward, and their FP8 bytes are the sm_90 kernels' (or,
    # where the two plans sum a row in another order, the adjacent code).
    from norm_mlir.bundle import BundleError
    from norm_mlir.checks import device_chip, target_options
    from norm_mlir.compiler import compile_program
    from norm_mlir.launcher import Launcher
    from norm_mlir.programs import op_program
    options = target_options(torch.cuda.get_device_properties(0), "sm_80")

    def launcher(kind, chip="sm_80", **flags):
        bundle = compile_program(op_program(kind, n, "bf16", "bf16", **flags), chip=chip,
                                 options=options if chip == "sm_80" else "")
        assert bundle.target == chip
        return Launcher(bundle)

    torch.manual_seed(n)
    m = 1031
    x = torch.randn(m, n, device="cuda", dtype=torch.bfloat16)
    w = (torch.randn(n, device="cuda") * 0.5 + 1).to(torch.bfloat16)
    b = (torch.randn(n, device="cuda") * 0.1).to(torch.bfloat16)
    dy = torch.randn_like(x)
    xd, wd, bd = (v.double().requires_grad_() for v in (x, w, b))
    tol = 2 * TOL["bf16"]
    y, rstd = launcher("rms_fwd", eps=1e-6, offset=0.0)(None, x, w)
    ref = F.rms_norm(xd, (n,), wd, 1e-6)
    assert rel(y, ref) < tol
    dx, dw = launcher("rms_bwd", offset=0.0)(None, dy, x, rstd.view(-1), w)
    rx, rw = torch.autograd.grad(ref, (xd, wd), dy.double())
    assert rel(dx, rx) < tol and rel(dw, rw) < tol
    y, mean, rstd = launcher("ln_fwd", eps=1e-5, bias=True)(None, x, w, b)
    ref = F.layer_norm(xd, (n,), wd, bd, 1e-5)
    assert rel(y, ref) < tol
    dx, dw, db = launcher("ln_bwd", bias=True)(None, dy, x, mean.view(-1), rstd.view(-1), w)
    rx, rw, rb = torch.autograd.grad(ref, (xd, wd, bd), dy.double())
    assert rel(dx, rx) < tol and rel(dw, rw) < tol and rel(db, rb) < tol
    quant = dict(eps=1e-6, offset=0.0, quant=True)
    portable = launcher("rms_fwd", **quant)(None, x, w)
    tuned = launcher("rms_fwd", chip=device_chip(x.device), **quant)(None, x, w)
    # q, its per-row scales and rstd.
    assert len(portable) == len(tuned) == 3
    q, q_tuned = portable[0], tuned[0]
    for a, c in zip(portable[1:], tuned[1:]):
        assert rel(a, c) < 1e-6
    codes = (q.view(torch.uint8).int() - q_tuned.view(torch.uint8).int()).abs()
    assert codes.max().item() <= 1 and (codes == 0).float().mean().item() > 0.999
    # A bundle for a chip this GPU cannot run is refused before loading.
    with pytest.raises(BundleError, match="compiled for sm_120a, which a GPU of compute "
                                          "capability .* cannot run"):
        launcher("rms_fwd", chip="sm_120a", eps=1e-6, offset=0.0)(None, x, w)
