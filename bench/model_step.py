#!/usr/bin/env python3
"""Training step of a Llama-style decoder stack with three RMSNorms, eager
and under torch.compile, in one run.

The stack: --layers pre-norm decoder layers (RMSNorm, GQA attention through
scaled_dot_product_attention with causal masking, RMSNorm, SwiGLU MLP,
residual adds; --qk-norm: Qwen3's RMSNorm over head_dim of q and k too;
--gdn: Gated DeltaNet's L2-normalized q and k and gated output norm, as
FLA and Qwen3-Next write them, attention standing in for the recurrence)
and a final RMSNorm, bf16, --tokens tokens (batch x seq),
hidden --hidden (4096: 32 heads of 128, 8 KV heads, MLP 14336; 2048: 16
heads, 4 KV heads, MLP 5632). The step is forward, a loss (mean square of
the output against a fixed target), backward and a fused AdamW step
(--no-optimizer leaves it out); gradients are cleared between steps. The norms:
- upcast: the RMSNorm most model code carries (to float32, mean of
  squares, rsqrt, multiply, back to the input dtype, times the weight);
- torch: torch.nn.RMSNorm;
- norm: norm_mlir.RMSNorm (the native extension where it is loaded);
- norm-add: norm_mlir.FusedAddRMSNorm, each residual add in the kernel of
  the norm that follows it (the layers pass the residual stream and the
  pending addend on: the same sums, in the same order).
Each runs eager, compiled (torch.compile of the whole stack) and, mode
norm-compile, through norm_mlir.compile (torch.compile with norm's graph
rewrite: the model unchanged, its norms and the residual adds before them
found in the graph; with --norms upcast this is the switch a user turns on
for model code as it is), the same weights and inputs; step time is the median of --steps steps after
--warmup, each timed from a synchronized start to a synchronized end (host
and device together, as a training loop sees it).

Correctness: every variant starts from the same weights and optimizer
state; the losses of the warm-up steps and the gradients of the first step
are compared with the first variant of the same norm class (of the first
mode): the largest relative loss difference and the largest relative
gradient difference (norm of the difference over norm of the reference,
per parameter).

--profile adds, per variant, the device time per step of each kernel class
(torch.profiler over 3 steps; `kernel_class` says which is which): norm
(the normalizations with the work fused into their kernels: norm's kernels
and Inductor's reductions, which are the norms' forward and backward here,
the loss excepted), gemm, attention, optimizer and the remaining
memory-bound kernels (elementwise: SwiGLU, residual adds, casts, copies);
--top K the K kernels whose time per step differs most between the modes
(or between torch.nn.RMSNorm and norm).

Usage (on the GPU): python3 bench/model_step.py --hidden 4096 [--profile]
"""

import argparse
import json
import statistics
import time

import torch
import torch.nn.functional as F

SHAPES = {4096: dict(heads=32, kv_heads=8, mlp=14336),
          2048: dict(heads=16, kv_heads=4, mlp=5632)}


class UpcastRMSNorm(torch.nn.Module):
    """The RMSNorm of Llama's reference code and Hugging Face's models."""

    def __init__(self, hidden, eps=1e-6, device=None, dtype=None):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden, device=device, dtype=dtype))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        h = x.to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * h.to(dtype)


def norm_class(name):
    if name == "upcast":
        return UpcastRMSNorm
    if name == "torch":
        return lambda hidden, eps, **kw: torch.nn.RMSNorm(hidden, eps=eps, **kw)
    import norm_mlir
    if name == "norm-add":
        return lambda hidden, eps, **kw: norm_mlir.FusedAddRMSNorm(hidden, eps=eps, **kw)
    return lambda hidden, eps, **kw: norm_mlir.RMSNorm(hidden, eps=eps, **kw)


def l2norm(x, eps=1e-6):
    """FLA's l2norm of Gated DeltaNet's q and k, as written there."""
    return x * torch.rsqrt(x.pow(2).sum(-1, keepdim=True) + eps)


def gated_rms_norm(hidden_states, gate, weight, eps=1e-6):
    """Qwen3-Next's gated RMSNorm (the norm before a silu gate), as written
    there."""
    input_dtype = hidden_states.dtype
    hidden_states = hidden_states.to(torch.float32)
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    hidden_states = hidden_states * torch.rsqrt(variance + eps)
    hidden_states = weight * hidden_states.to(input_dtype)
    hidden_states = hidden_states * F.silu(gate.to(torch.float32))
    return hidden_states.to(input_dtype)


class Layer(torch.nn.Module):
    def __init__(self, hidden, heads, kv_heads, mlp, norm, qk_norm=None, gdn=False, **kw):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, hidden // heads
        # Qwen3's QK-norm (qk_norm: its RMSNorm class): over head_dim of q
        # and of k.
        self.q_norm = qk_norm(self.head_dim, 1e-6, **kw) if qk_norm else None
        self.k_norm = qk_norm(self.head_dim, 1e-6, **kw) if qk_norm else None
        self.attn_norm = norm(hidden, 1e-6, **kw)
        self.q = torch.nn.Linear(hidden, hidden, bias=False, **kw)
        self.kv = torch.nn.Linear(hidden, 2 * kv_heads * self.head_dim, bias=False, **kw)
        self.o = torch.nn.Linear(hidden, hidden, bias=False, **kw)
        # Gated-DeltaNet-style: q and k L2-normalized per head, the output
        # through a gated RMSNorm over head_dim (attention stands in for the
        # recurrence: the same shapes).
        self.gdn = gdn
        if gdn:
            self.g = torch.nn.Linear(hidden, hidden, bias=False, **kw)
            self.o_norm_weight = torch.nn.Parameter(torch.ones(self.head_dim, **kw))
        self.mlp_norm = norm(hidden, 1e-6, **kw)
        self.gate_up = torch.nn.Linear(hidden, 2 * mlp, bias=False, **kw)
        self.down = torch.nn.Linear(mlp, hidden, bias=False, **kw)

    def attention_inputs(self, a, b, s):
        """q, k, v of the normalized stream `a` (q and k QK-normed)."""
        q = self.q(a).view(b, s, self.heads, self.head_dim)
        k, v = self.kv(a).view(b, s, 2, self.kv_heads, self.head_dim).unbind(2)
        if self.q_norm is not None:
            q, k = self.q_norm(q), self.k_norm(k)
        if self.gdn:
            q, k = l2norm(q), l2norm(k)
        return q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

    def attention_output(self, a, b, s, h):
        """The attention (or its stand-in) of `a`, projected back to h."""
        q, k, v = self.attention_inputs(a, b, s)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        o = o.transpose(1, 2)
        if self.gdn:
            o = gated_rms_norm(o, self.g(a).view(b, s, self.heads, self.head_dim),
                               self.o_norm_weight)
        return self.o(o.reshape(b, s, h))

    def forward(self, x):
        b, s, h = x.shape
        x = x + self.attention_output(self.attn_norm(x), b, s, h)
        gate, up = self.gate_up(self.mlp_norm(x)).chunk(2, dim=-1)
        return x + self.down(F.silu(gate) * up)


class FusedAddLayer(Layer):
    """Layer with each residual add in the kernel of the norm after it
    (norm_mlir.FusedAddRMSNorm): takes the residual stream x and the
    addend `delta` the previous layer left (None for the first), returns
    the stream and this layer's addend. Same parameters as Layer."""

    def forward(self, x, delta):
        b, s, h = x.shape
        if delta is None:
            import norm_mlir
            a = norm_mlir.functional.rms_norm(x, (h,), self.attn_norm.weight, 1e-6)
        else:
            a, x = self.attn_norm(delta, x)
        m, x = self.mlp_norm(self.attention_output(a, b, s, h), x)
        gate, up = self.gate_up(m).chunk(2, dim=-1)
        return x, self.down(F.silu(gate) * up)


class Stack(torch.nn.Module):
    def __init__(self, hidden, layers, norm, fused_add=False, qk_norm=False, gdn=False, **kw):
        super().__init__()
        shape = SHAPES[hidden]
        layer = FusedAddLayer if fused_add else Layer
        self.fused_add = fused_add
        # The QK-norms have no residual add: the fused-add stack's are plain.
        qk = (norm_class("norm") if fused_add else norm) if qk_norm else None
        self.layers = torch.nn.ModuleList(layer(hidden, norm=norm, qk_norm=qk, gdn=gdn, **shape,
                                                **kw)
                                          for _ in range(layers))
        self.norm = norm(hidden, 1e-6, **kw)

    def forward(self, x):
        if self.fused_add:
            delta = None
            for layer in self.layers:
                x, delta = layer(x, delta)
            return self.norm(delta, x)[0]
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


KERNEL_CLASSES = ("norm", "memory", "gemm", "attention", "optimizer")


def kernel_class(name):
    """The class of the device kernel `name`: 'norm' (norm's kernels, and
    Inductor's reductions: in this stack those are the norms, forward and
    backward, with the adds, casts and gates fused into them; the loss's
    reduction excepted), 'gemm', 'attention', 'optimizer', or 'memory' (the
    remaining elementwise kernels and copies)."""
    lowered = name.lower()
    if "norm" in lowered or "rsqrt" in lowered:
        return "norm"
    if any(k in lowered for k in ("gemm", "nvjet", "cutlass", "xmma", "cublas", "splitk")):
        return "gemm"
    if any(k in lowered for k in ("flash", "fmha", "attention", "sdpa")):
        return "attention"
    if any(k in lowered for k in ("adam", "multi_tensor", "foreach")):
        return "optimizer"
    if lowered.startswith(("triton_red_", "triton_per_")) and "mse_loss" not in lowered:
        return "norm"
    return "memory"


def profile_step(step):
    """Device microseconds per step of each kernel class and of each
    kernel."""
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(3):
            step()
        torch.cuda.synchronize()
    classes = dict.fromkeys(KERNEL_CLASSES, 0.0)
    per_kernel = {}
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CUDA:
            continue
        us = (e.device_time if hasattr(e, "device_time") else e.cuda_time) / 3
        per_kernel[e.name] = per_kernel.get(e.name, 0.0) + us
        classes[kernel_class(e.name)] += us
    return classes, per_kernel


def relative_differences(grads, reference):
    """The largest over parameters of |g - r| / |r| (norms over each
    parameter's gradient, in float32)."""
    worst = 0.0
    for name, r in reference.items():
        g = grads[name].float()
        scale = r.float().norm().item()
        if scale > 0:
            worst = max(worst, (g - r.float()).norm().item() / scale)
    return worst


def print_top(title, a, b, k):
    """The k kernels whose device us per step differ most from a to b."""
    print(title)
    for name in sorted(set(a) | set(b), key=lambda n: -abs(b.get(n, 0) - a.get(n, 0)))[:k]:
        print(f"  {a.get(name, 0):9.1f} -> {b.get(name, 0):9.1f}  [{kernel_class(name)}] "
              f"{name[:100]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hidden", type=int, default=4096, choices=sorted(SHAPES))
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--tokens", type=int, default=8192)
    parser.add_argument("--seq", type=int, default=2048)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--norms", default="upcast,torch,norm,norm-add")
    parser.add_argument("--modes", default="eager,compile",
                        help="eager, compile (torch.compile), norm-compile (norm_mlir.compile)")
    parser.add_argument("--qk-norm", action="store_true",
                        help="Qwen3-style: an RMSNorm over head_dim on q and k in every layer")
    parser.add_argument("--gdn", action="store_true",
                        help="Gated-DeltaNet-style: q, k L2-normalized per head and the "
                             "output through a gated RMSNorm (FLA's and Qwen3-Next's code, "
                             "attention standing in for the recurrence)")
    parser.add_argument("--no-optimizer", dest="optimizer", action="store_false",
                        help="leave the AdamW step out of the timed step")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=0,
                        help="with --profile: print the K kernels whose time differs most "
                             "between torch.compile and norm_mlir.compile (and between "
                             "torch.nn.RMSNorm and norm)")
    parser.add_argument("--device", default="cuda",
                        help="cuda, or cpu for a check of the stacks and the rewrite (no timing "
                             "worth reading, no profile)")
    parser.add_argument("--json")
    args = parser.parse_args()

    from norm_mlir import native
    kw = dict(device=args.device, dtype=torch.bfloat16)
    cuda = args.device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    device_name = torch.cuda.get_device_name() if cuda else "CPU"
    batch = args.tokens // args.seq
    gen = torch.Generator(device=args.device).manual_seed(0)
    x = torch.randn(batch, args.seq, args.hidden, generator=gen, **kw)
    target = torch.randn(batch, args.seq, args.hidden, generator=gen, **kw)
    torch.manual_seed(0)
    reference = Stack(args.hidden, args.layers, norm_class("torch"), qk_norm=args.qk_norm,
                      gdn=args.gdn, **kw)
    state = reference.state_dict()
    del reference
    print(f"device: {device_name}  torch {torch.__version__}  hidden "
          f"{args.hidden}, {args.layers} layers, {batch}x{args.seq} tokens, bf16  norm: native "
          f"extension {'loaded' if native.loaded else 'NOT loaded'}", flush=True)
    results = {}
    references = {}  # norm class -> (losses, first-step gradients) of its first variant
    for mode in args.modes.split(","):
        for name in args.norms.split(","):
            model = Stack(args.hidden, args.layers, norm_class(name),
                          fused_add=name == "norm-add", qk_norm=args.qk_norm, gdn=args.gdn,
                          **kw)
            model.load_state_dict(state)
            if mode == "norm-compile":
                import norm_mlir
                run = norm_mlir.compile(model)
            else:
                run = torch.compile(model) if mode == "compile" else model
            optimizer = (torch.optim.AdamW(model.parameters(), lr=1e-5, fused=True)
                         if args.optimizer else None)
            first_grads = {}
            captured = []

            def step():
                loss = F.mse_loss(run(x).float(), target.float())
                loss.backward()
                if not captured:
                    captured.append(True)
                    first_grads.update((n, p.grad.detach().clone())
                                       for n, p in model.named_parameters())
                if optimizer is not None:
                    optimizer.step()
                for p in model.parameters():
                    p.grad = None
                return loss

            losses = [step().item() for _ in range(args.warmup)]
            times = []
            for _ in range(args.steps):
                sync()
                start = time.perf_counter()
                step()
                sync()
                times.append(time.perf_counter() - start)
            row = {"step_ms": statistics.median(times) * 1e3, "losses": losses}
            # Correctness against the first variant of this norm class.
            key = "norm" if name == "norm-add" else name
            if key not in references:
                references[key] = (losses, first_grads)
                check = "reference"
            else:
                ref_losses, ref_grads = references[key]
                row["loss_rel_diff"] = max(abs(a - b) / abs(b) for a, b in zip(losses, ref_losses))
                row["grad_rel_diff"] = relative_differences(first_grads, ref_grads)
                check = (f"vs first: losses {row['loss_rel_diff']:.1e}, gradients "
                         f"{row['grad_rel_diff']:.1e}")
            if references[key][1] is not first_grads:
                first_grads.clear()
            extra = ""
            if args.profile and cuda:
                classes, per_kernel = profile_step(step)
                row["kernels_ms"] = {c: us / 1e3 for c, us in classes.items()}
                row["kernels_us"] = per_kernel
                extra = "  " + ", ".join(f"{c} {us / 1e3:.3f}" for c, us in classes.items())
            results.setdefault(mode, {})[name] = row
            print(f"{mode:>12} {name:>8}: step {row['step_ms']:8.3f} ms  loss {losses[0]:.5f}"
                  f"  {check}{extra}", flush=True)
            model = run = optimizer = None
            if cuda:
                torch.cuda.empty_cache()
    if "compile" in results and "norm-compile" in results:
        for name, row in results["norm-compile"].items():
            base = results["compile"].get(name)
            if base is None:
                continue
            line = (f"{name:>8}: norm_mlir.compile / torch.compile: step "
                    f"{row['step_ms'] / base['step_ms']:.3f}")
            if "kernels_ms" in row:
                line += (f", norm kernels {row['kernels_ms']['norm'] / base['kernels_ms']['norm']:.3f}"
                         f", norm + memory kernels "
                         f"{(row['kernels_ms']['norm'] + row['kernels_ms']['memory']) / (base['kernels_ms']['norm'] + base['kernels_ms']['memory']):.3f}")
            print(line)
            if args.top and "kernels_us" in row:
                print_top(f"{name}: kernels whose device us per step differ most "
                          "(torch.compile -> norm_mlir.compile)",
                          base["kernels_us"], row["kernels_us"], args.top)
    for mode, rows in results.items():
        if args.top and "norm" in rows and "torch" in rows and "kernels_us" in rows["norm"]:
            print_top(f"{mode}: kernels whose device us per step differ most "
                      "(torch.nn.RMSNorm -> norm)",
                      rows["torch"]["kernels_us"], rows["norm"]["kernels_us"], args.top)
        if "norm-add" in rows and "torch" in rows:
            print(f"{mode:>8}: norm-add / torch.nn.RMSNorm step = "
                  f"{rows['norm-add']['step_ms'] / rows['torch']['step_ms']:.3f}")
        if "norm" in rows and "torch" in rows:
            print(f"{mode:>8}: norm / torch.nn.RMSNorm step = "
                  f"{rows['norm']['step_ms'] / rows['torch']['step_ms']:.3f}"
                  + (f", norm / upcast = {rows['norm']['step_ms'] / rows['upcast']['step_ms']:.3f}"
                     if "upcast" in rows else ""))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device_name, "torch": torch.__version__,
                       "args": vars(args), "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
