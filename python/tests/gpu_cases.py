"""The plain norms' programs the GPU tests run, so a machine without the
compiler can be given a prebuilt cache of them (scripts/prebuild-cache.py).
The tests of the fused add, the L2 and gated norms and the FP8 outputs
compile theirs on first use, which needs the compiler: bench/wheel_gpu.sh's
wheel carries it."""

HIDDEN = [256, 512]
DTYPES = ["f32", "bf16", "f16"]
# torch.finfo(dtype).eps: RMSNorm's default epsilon.
FINFO_EPS = {"f32": 1.1920928955078125e-07, "bf16": 0.0078125, "f16": 0.0009765625}


def programs():
    """(kind, n, dtype, weight_dtype or None, flags) of every op call: the
    forwards twice, with their statistics (training) and without them
    (inference, what the modules run when nothing needs a gradient)."""
    out = []
    for n in HIDDEN:
        for t in DTYPES:
            for eps in (FINFO_EPS[t], 1e-6):
                for w in (t, None):
                    out.append(("rms_fwd", n, t, w, dict(eps=eps, offset=0.0)))
            for w in (t, None):
                out.append(("rms_bwd", n, t, w, dict(offset=0.0)))
            for w, bias in ((t, True), (t, False), (None, False)):
                out.append(("ln_fwd", n, t, w, dict(eps=1e-5, bias=bias)))
                out.append(("ln_bwd", n, t, w, dict(bias=bias)))
    # Every pairing of activation and weight dtypes at N = 4096
    # (test_mixed_activation_and_weight_dtypes), and the bf16 programs at
    # N = 1024 that the misaligned and strided tensors run.
    for t in DTYPES:
        for w in DTYPES:
            out.append(("rms_fwd", 4096, t, w, dict(eps=1e-6, offset=0.0)))
            out.append(("rms_bwd", 4096, t, w, dict(offset=0.0)))
            out.append(("ln_fwd", 4096, t, w, dict(eps=1e-5, bias=True)))
            out.append(("ln_bwd", 4096, t, w, dict(bias=True)))
    out.append(("rms_fwd", 1024, "bf16", "bf16", dict(eps=1e-6, offset=0.0)))
    out.append(("rms_bwd", 1024, "bf16", "bf16", dict(offset=0.0)))
    out.append(("ln_fwd", 1024, "bf16", "bf16", dict(eps=1e-5, bias=True)))
    out.append(("ln_bwd", 1024, "bf16", "bf16", dict(bias=True)))
    return out + [(k, n, t, w, dict(f, stats=False)) for k, n, t, w, f in out
                  if k.endswith("_fwd")]
