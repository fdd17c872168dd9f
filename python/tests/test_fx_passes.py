"""norm_mlir.compile: the normalizations of a model found in the graphs
torch.compile captures and replaced by norm's ops (norm_mlir.fx_passes), on
the CPU lowering: which forms are rewritten, which near misses are not,
and that the compiled model's outputs and gradients are the model's."""

import pytest

torch = pytest.importorskip("torch")

from norm_mlir import compiler  # noqa: E402

if compiler._library() is None:
    pytest.skip("libNormCAPI.so is not built", allow_module_level=True)

import norm_mlir  # noqa: E402
from norm_mlir import fx_passes  # noqa: E402

nn = torch.nn


class LlamaRMSNorm(nn.Module):
    """Hugging Face's LlamaRMSNorm, as written there."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n) + 0.5)
        self.variance_epsilon = eps

    def forward(self, hidden_states):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class GemmaRMSNorm(nn.Module):
    """Gemma's: (1 + weight), in float32, cast back after the weight."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(n) * 0.1)

    def _norm(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)

    def forward(self, x):
        output = self._norm(x.float())
        output = output * (1.0 + self.weight.float())
        return output.type_as(x)


class Spellings(nn.Module):
    """Other spellings: x * x, torch.mean with dim=, 1 / sqrt, no weight."""

    def forward(self, x):
        ms = torch.mean(x * x, dim=-1, keepdim=True)
        return x * (1 / torch.sqrt(ms + 1e-5))


class Block(nn.Module):
    def __init__(self, n=64):
        super().__init__()
        self.a = LlamaRMSNorm(n)
        self.lin = nn.Linear(n, n)
        self.b = nn.RMSNorm(n, eps=1e-5)
        self.c = nn.LayerNorm(n)
        self.d = GemmaRMSNorm(n)
        self.e = Spellings()

    def forward(self, x, r):
        h = x + r
        y = self.lin(self.a(h))
        return self.e(self.d(self.c(self.b(y)))) + h


def compiled_counts(model, *inputs, **kwargs):
    """Compiles `model` with the rewrite, runs it, and returns its outputs
    and the forms rewritten."""
    # A fresh Dynamo cache: models of one class compiled by earlier tests
    # would otherwise count against its recompile limit.
    torch._dynamo.reset()
    counts = {}

    def backend(gm, example_inputs):
        for form, k in fx_passes.rewrite_norms(gm).items():
            counts[form] = counts.get(form, 0) + k
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)

    out = torch.compile(model, backend=backend, **kwargs)(*inputs)
    return out, counts


def rel(a, b):
    return ((a.double() - b.double()).norm() / b.double().norm().clamp_min(1e-30)).item()


def test_every_form_is_rewritten_and_matches_the_model():
    torch.manual_seed(0)
    model = Block()
    x = torch.randn(2, 5, 64, requires_grad=True)
    r = torch.randn(2, 5, 64)
    out, counts = compiled_counts(model, x, r, fullgraph=True)
    assert counts == {"rms_norm": 1, "layer_norm": 1, "written_rms_norm": 3, "fused_add": 1}
    out.square().sum().backward()
    grads = [x.grad] + [p.grad for p in model.parameters()]
    x.grad = None
    model.zero_grad()
    ref = model(x, r)
    ref.square().sum().backward()
    assert rel(out, ref) < 1e-5
    for got, want in zip(grads, [x.grad] + [p.grad for p in model.parameters()]):
        assert rel(got, want) < 1e-4


def test_bf16_model_through_norm_mlir_compile():
    torch.manual_seed(1)
    model = Block().to(torch.bfloat16)
    x = torch.randn(3, 64, dtype=torch.bfloat16, requires_grad=True)
    r = torch.randn(3, 64, dtype=torch.bfloat16)
    out = norm_mlir.compile(model)(x, r)
    out.float().square().sum().backward()
    gx = x.grad
    x.grad = None
    ref = model(x, r)
    ref.float().square().sum().backward()
    assert rel(out, ref) < 3e-2 and rel(gx, x.grad) < 3e-2


class NearMisses(nn.Module):
    """Normalizations norm does not implement, or whose pieces the model
    reads: each must stay as written."""

    def __init__(self, n=64):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n) + 0.5)

    def forward(self, x):
        # Mean over the wrong axis.
        a = x * torch.rsqrt(x.pow(2).mean(0, keepdim=True) + 1e-6)
        # eps outside the square root.
        b = x / (torch.sqrt(x.pow(2).mean(-1, keepdim=True)) + 1e-6)
        # The statistics are used as well.
        ms = x.pow(2).mean(-1, keepdim=True)
        c = x * torch.rsqrt(ms + 1e-6) + ms
        # A float32 weight on a bfloat16 row promotes the result to float32.
        xb = x.to(torch.bfloat16)
        xf = xb.float()
        e = self.weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6))
        return a.sum() + b.sum() + c.sum() + e.sum()


def test_near_misses_are_left_to_inductor():
    torch.manual_seed(2)
    model = NearMisses()
    x = torch.randn(4, 64)
    out, counts = compiled_counts(model, x)
    assert counts == {}
    # Inductor's own sums (their order differs from eager's by release).
    assert rel(out, model(x)) < 1e-4


def test_dynamic_rows_and_no_graph_break():
    torch.manual_seed(3)
    model = LlamaRMSNorm(32)
    f = norm_mlir.compile(model, dynamic=True, fullgraph=True)
    for m in (3, 7, 12):
        x = torch.randn(m, 32)
        assert rel(f(x), model(x)) < 1e-5
    with pytest.raises(TypeError, match="sets the backend"):
        norm_mlir.compile(model, backend="eager")
    # torch.compile's mode (or options) reach Inductor as they would
    # without norm.
    x = torch.randn(5, 32)
    for kwargs in ({"mode": "max-autotune-no-cudagraphs"}, {"options": {"trace.enabled": False}}):
        assert rel(norm_mlir.compile(model, **kwargs)(x), model(x)) < 1e-5


@pytest.mark.parametrize("family", ["llama", "qwen3", "mamba2"])
def test_hugging_face_models_unchanged(family):
    """Hugging Face Llama, Qwen3 and Mamba2 models, built from configs and
    compiled as they are: every RMSNorm (Qwen3's q/k norms and Mamba2's
    gated norms included) and every residual add before one is rewritten,
    and a training step's loss and gradients are the model's."""
    transformers = pytest.importorskip("transformers")
    import copy
    torch.manual_seed(4)
    common = dict(vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2)
    if family == "llama":
        model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**common))
        expected = {"written_rms_norm": 2 * 2 + 1, "fused_add": 2 * 2}
    elif family == "qwen3":
        model = transformers.Qwen3ForCausalLM(transformers.Qwen3Config(head_dim=16, **common))
        expected = {"written_rms_norm": 2 * 4 + 1, "fused_add": 2 * 2}
    else:
        # The naive (torch) path of the mixer: its gated norm with the gate
        # first, a plain RMSNorm before each mixer and at the end.
        model = transformers.Mamba2ForCausalLM(transformers.Mamba2Config(
            vocab_size=128, hidden_size=64, num_hidden_layers=2, num_heads=4, head_dim=32,
            expand=2, state_size=16, n_groups=1, chunk_size=8))
        expected = {"written_rms_norm": 2 * 2 + 1, "gated": 2, "fused_add": 2}
    reference = copy.deepcopy(model)
    ids = torch.randint(0, 128, (2, 9))
    loss, counts = compiled_counts(lambda i: model(i, labels=i).loss, ids)
    assert counts == expected
    loss.backward()
    want = reference(ids, labels=ids).loss
    want.backward()
    assert rel(loss, want) < 1e-5
    for p, q in zip(model.parameters(), reference.parameters()):
        assert rel(p.grad, q.grad) < 1e-4


class GatedDeltaNetNorms(nn.Module):
    """FLA's l2norm on q and k, and Qwen3-Next's gated RMSNorm on the
    output (as written there), around a stand-in for the recurrence."""

    def __init__(self, heads=4, dim=32):
        super().__init__()
        self.heads, self.dim = heads, dim
        self.weight = nn.Parameter(torch.rand(dim) + 0.5)
        self.proj = nn.Linear(heads * dim, 3 * heads * dim)

    def l2norm(self, x, eps=1e-6):
        return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)

    def gated_norm(self, hidden_states, gate):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + 1e-6)
        hidden_states = self.weight * hidden_states.to(input_dtype)
        hidden_states = hidden_states * torch.nn.functional.silu(gate.to(torch.float32))
        return hidden_states.to(input_dtype)

    def forward(self, x):
        q, k, g = self.proj(x).unflatten(-1, (3, self.heads, self.dim)).unbind(-3)
        q, k = self.l2norm(q), self.l2norm(k)
        o = q * k.sum(-2, keepdim=True)       # a stand-in for the recurrence
        return self.gated_norm(o, g)


def test_l2_and_gated_norms_are_rewritten():
    torch.manual_seed(5)
    model = GatedDeltaNetNorms()
    x = torch.randn(2, 6, 128, requires_grad=True)
    out, counts = compiled_counts(model, x, fullgraph=True)
    assert counts == {"written_l2_norm": 2, "written_rms_norm": 1, "gated": 1}
    out.square().sum().backward()
    grads = [x.grad] + [p.grad for p in model.parameters()]
    x.grad = None
    model.zero_grad()
    ref = model(x)
    ref.square().sum().backward()
    assert rel(out, ref) < 1e-5
    for got, want in zip(grads, [x.grad] + [p.grad for p in model.parameters()]):
        assert rel(got, want) < 1e-4


class MambaRMSNormGated(nn.Module):
    """Hugging Face's MambaRMSNormGated (Mamba2), as written there: the
    gate before the norm."""

    def __init__(self, n, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(n) + 0.5)
        self.variance_epsilon = eps

    def forward(self, hidden_states, gate=None):
        input_dtype = hidden_states.dtype
        hidden_states = hidden_states.to(torch.float32)
        if gate is not None:
            hidden_states = hidden_states * torch.nn.functional.silu(gate.to(torch.float32))
        variance = hidden_states.pow(2).mean(-1, keepdim=True)
        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
        return self.weight * hidden_states.to(input_dtype)


class GateAfterTheSquares(nn.Module):
    """A near miss: the statistics of x, the gate only on the value."""

    def forward(self, x, z):
        variance = x.pow(2).mean(-1, keepdim=True)
        return x * torch.nn.functional.silu(z) * torch.rsqrt(variance + 1e-6)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_gate_before_the_norm_is_rewritten(dtype):
    torch.manual_seed(6)
    model = MambaRMSNormGated(64).to(dtype)
    x = torch.randn(3, 5, 64, dtype=dtype, requires_grad=True)
    z = torch.randn(3, 5, 64, dtype=dtype, requires_grad=True)
    out, counts = compiled_counts(model, x, z, fullgraph=True)
    assert counts == {"written_rms_norm": 1, "gated": 1}
    out.float().square().sum().backward()
    grads = [x.grad, z.grad, model.weight.grad]
    x.grad = z.grad = None
    model.zero_grad()
    ref = model(x, z)
    ref.float().square().sum().backward()
    tol = 1e-5 if dtype == torch.float32 else 2e-2
    assert rel(out, ref) < tol
    for got, want in zip(grads, [x.grad, z.grad, model.weight.grad]):
        assert rel(got, want) < 2 * tol
    # The statistics of x with the gate on the value only is not that norm.
    x32, z32 = x.detach().float(), z.detach().float()
    out, counts = compiled_counts(GateAfterTheSquares(), x32, z32, fullgraph=True)
    assert not counts.get("gated") and not counts.get("written_rms_norm")
    assert rel(out, GateAfterTheSquares()(x32, z32)) < 1e-6


class NormThenFP8(nn.Module):
    """A norm's output quantized to FP8 e4m3 per row in float32, as model
    code writes it; `spelling` varies the quantization."""

    def __init__(self, n=64, kind="rms", spelling="plain"):
        super().__init__()
        self.norm = LlamaRMSNorm(n) if kind == "rms" else nn.LayerNorm(n)
        self.spelling = spelling

    def forward(self, x):
        y = self.norm(x).float()
        amax = torch.amax(torch.abs(y), dim=-1, keepdim=True)
        fmax = 240.0 if self.spelling == "e5m2-bound" else 448.0
        scale = (amax / fmax).clamp(min=1e-12)
        q = y / scale
        if self.spelling != "no-clamp":
            q = q.clamp(-fmax, fmax)
        return q.to(torch.float8_e4m3fn), scale


@pytest.mark.parametrize("kind", ["rms", "layer"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_fp8_quantization_of_a_norm_is_rewritten(kind, dtype):
    torch.manual_seed(7)
    model = NormThenFP8(kind=kind).to(dtype)
    x = torch.randn(4, 9, 64, dtype=dtype) * 3
    with torch.no_grad():
        (q, scale), counts = compiled_counts(model, x, fullgraph=True)
        want_q, want_scale = model(x)
    assert counts.get("fp8_quant") == 1
    assert q.dtype == torch.float8_e4m3fn and scale.shape == want_scale.shape == (4, 9, 1)
    assert rel(scale, want_scale) < (1e-6 if dtype == torch.float32 else 1e-2)
    # Where y's rounding decided the FP8 rounding, one step apart at most.
    got, want = q.float(), want_q.float()
    steps = (got - want).abs() / want.abs().clamp_min(2 ** -6)
    assert steps.max() <= 0.125 + 1e-6
    assert (got != want).float().mean() < (1e-6 if dtype == torch.float32 else 0.05)


class NormThenGroupFP8(nn.Module):
    """A norm's output quantized to FP8 with a scale per group of `group`
    columns (DeepSeek-V3's 1 x 128 activation scales), as model code writes
    it: y viewed in groups; `back` views q back to y's shape."""

    def __init__(self, n=512, kind="rms", group=128, back="view", grouping="view"):
        super().__init__()
        self.norm = LlamaRMSNorm(n) if kind == "rms" else nn.LayerNorm(n)
        self.group, self.back, self.grouping = group, back, grouping

    def forward(self, x):
        y = self.norm(x).float()
        if self.grouping in ("view", "across"):
            yg = y.view(*y.shape[:-1], -1, self.group)
        else:
            yg = y.unflatten(-1, (-1, self.group))
        amax = yg.abs().amax(-2 if self.grouping == "across" else -1, keepdim=True)
        scale = (amax / 448.0).clamp(min=1e-12)
        q = (yg / scale).clamp(-448.0, 448.0).to(torch.float8_e4m3fn)
        if self.back == "view":
            q = q.view(y.shape)
        elif self.back == "flatten":
            q = q.flatten(-2)
        return q, scale.squeeze(-1)


@pytest.mark.parametrize("kind", ["rms", "layer"])
@pytest.mark.parametrize("back,grouping", [("view", "view"), ("flatten", "unflatten"),
                                           ("none", "view")])
def test_fp8_group_quantization_of_a_norm_is_rewritten(kind, back, grouping):
    torch.manual_seed(9)
    model = NormThenGroupFP8(kind=kind, back=back, grouping=grouping)
    x = torch.randn(4, 9, 512) * torch.linspace(0.1, 6, 512)
    with torch.no_grad():
        (q, scale), counts = compiled_counts(model, x, fullgraph=True)
        want_q, want_scale = model(x)
    assert counts.get("fp8_quant") == 1
    assert q.shape == want_q.shape and scale.shape == want_scale.shape == (4, 9, 4)
    assert rel(scale, want_scale) < 1e-6
    got, want = q.float(), want_q.float()
    assert ((got - want).abs() / want.abs().clamp_min(2 ** -6)).max() <= 0.125 + 1e-6
    assert (got != want).float().mean() < 1e-3
    # A maximum across the groups (one scale per column of a group) is not
    # a group scale: left as written.
    across = NormThenGroupFP8(kind=kind, grouping="across")
    with torch.no_grad():
        (q, scale), counts = compiled_counts(across, x, fullgraph=True)
        want_q, want_scale = across(x)
    assert "fp8_quant" not in counts
    assert rel(scale, want_scale) < 1e-6


def test_fp8_near_misses_and_training_graphs_are_left():
    torch.manual_seed(8)
    x = torch.randn(3, 64)
    for spelling in ("no-clamp", "e5m2-bound"):
        model = NormThenFP8(spelling=spelling)
        with torch.no_grad():
            (q, scale), counts = compiled_counts(model, x, fullgraph=True)
            want_q, want_scale = model(x)
        assert "fp8_quant" not in counts, spelling
        assert torch.equal(q.float(), want_q.float()) and rel(scale, want_scale) < 1e-6
    # With gradients wanted (a training graph) the norm keeps its backward.
    model = NormThenFP8()
    (q, scale), counts = compiled_counts(model, x.requires_grad_(), fullgraph=True)
    assert "fp8_quant" not in counts and counts.get("written_rms_norm") == 1
