"""Liger-Kernel's Triton kernels as anchors beside torch.compile and eager
(bench/bench.py: RMSNorm and LayerNorm forward and backward;
bench/fused_add.py: the residual add with RMSNorm), called at the level of
its kernel functions so that a backward is timed alone, as the other
anchors' are: rms_norm_forward / _backward, layer_norm_forward /
_backward, fused_add_rms_norm_forward / _backward, RMSNorm in its default
("llama") casting mode.

Liger is not in the GPU machine's image. Its wheel is pure Python (it needs
torch and triton, which are there): download it here and carry it,

    here:   pip download liger-kernel --no-deps -d .out/dev
    there:  pip install -q --no-deps --target /tmp/liger .out/dev/liger_kernel-*.whl
            PYTHONPATH=/tmp/liger:$PYTHONPATH python3 bench/bench.py ...

Without it the benchmarks print no Liger column and say why (MISSING).
"""

try:
    from liger_kernel.ops import fused_add_rms_norm as _add_rms
    from liger_kernel.ops import layer_norm as _ln
    from liger_kernel.ops import rms_norm as _rms
    MISSING = ""
except Exception as e:  # not installed, or no triton on this machine
    MISSING = f"liger_kernel does not import ({type(e).__name__}: {e})"

# RMSNorm's default casting mode: x in f32, the weight applied after the
# rounding of x * rstd (as torch's RMSNorm).
CASTING = "llama"


def available():
    """Whether the anchors run here (MISSING says why not)."""
    return not MISSING


def _called_once(factory):
    """factory()'s callable after one call: Liger refuses some shapes only
    when its kernel is launched (fused_add_rms_norm at rows over 65536
    elements), not while the callable is set up."""
    fn = factory()
    fn()
    return fn


def guarded(factory):
    """factory() (a timed callable, called once), or, where Liger refuses
    the shape while setting up or at its first call (rows over 65536
    elements), a callable that raises its error, which the benchmarks record
    as the anchor's error for that shape."""
    try:
        return _called_once(factory)
    except Exception as e:
        message = f"liger: {type(e).__name__}: {e}"

        def refused():
            raise RuntimeError(message)
        return refused


def set_up(factory):
    """factory() (a timed callable, called once) where Liger runs here and
    takes the shape, else None: for benchmarks whose rows need every
    anchor."""
    if not available():
        return None
    try:
        return _called_once(factory)
    except Exception:
        return None


def rms_fwd(x, w, eps):
    """y of RMSNorm (Liger also stores rstd, as its forward always does)."""
    return lambda: _rms.rms_norm_forward(x, w, eps, 0.0, CASTING, None)[0]


def ln_fwd(x, w, b, eps):
    return lambda: _ln.layer_norm_forward(x, w, b, eps)[0]


def rms_bwd(dy, x, rstd, w, eps):
    """dx and dw from the forward's rstd (f32 [M]); the block size and
    warps are those Liger's forward chose for this row (one forward runs
    here to get them)."""
    _, _, _, block, warps, mode = _rms.rms_norm_forward(x, w, eps, 0.0, CASTING, None)
    return lambda: _rms.rms_norm_backward(dy, x, w, rstd, 0.0, mode, block, warps,
                                          False, None)


def ln_bwd(dy, x, mean, rstd, w, b):
    return lambda: _ln.layer_norm_backward(dy, x, w, b, mean, rstd)


def add_rms_fwd(x, r, w, eps):
    """y and h = x + r."""
    return lambda: _add_rms.fused_add_rms_norm_forward(x, r, w, eps, 0.0, CASTING)[:2]


def add_rms_bwd(dy, dh, h, rstd, w, eps):
    """dx (= dr) and dw, adding the incoming residual gradient dh; the launch
    settings are those of Liger's forward for this row."""
    _, _, _, block, warps, stages, mode = _add_rms.fused_add_rms_norm_forward(
        h, h, w, eps, 0.0, CASTING)
    return lambda: _add_rms.fused_add_rms_norm_backward(dy, dh, h, w, rstd, 0.0, mode, block,
                                                        warps, stages, False)
