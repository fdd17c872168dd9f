"""The native extension (norm_mlir._ops: schemas, CUDA and autograd kernels
in C++) on CPU tensors, and the Python definitions that stand in for it
where it is not loaded. Needs torch and the compiler."""

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
from norm_mlir import native, ops  # noqa: E402

TESTS = os.path.dirname(os.path.abspath(__file__))


def _env(**extra):
    package_root = os.path.dirname(os.path.dirname(norm_mlir.__file__))
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


def test_the_built_extension_is_the_one_in_use():
    # scripts/test.sh builds it into the build tree; once built, it must
    # load (a build against another torch, or a missing symbol, fails here
    # rather than silently falling back to Python).
    if native.library_path() is None or os.environ.get("NORM_MLIR_NATIVE") == "0":
        pytest.skip("the native extension is not built (scripts/test.sh builds it) "
                    "or turned off")
    assert native.loaded, native.reason
    assert ops.rms_norm is torch.ops.norm_mlir.rms_norm.default
    x = torch.randn(3, 64, requires_grad=True)
    y, rstd = ops.rms_norm(x, None, 1e-6, 0.0)
    # The autograd formula is the C++ one (Autograd.cpp), and the
    # statistics are not differentiable.
    assert type(y.grad_fn).__name__ == "CppFunction"
    assert not rstd.requires_grad
    y, mean, rstd = ops.layer_norm(x, None, None, 1e-5)
    assert type(y.grad_fn).__name__ == "CppFunction"
    assert not mean.requires_grad and not rstd.requires_grad


def test_backward_ops_have_no_derivative():
    x = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    y, rstd = ops.rms_norm(x, w, 1e-6, 0.0)
    dy = torch.randn(4, 32, requires_grad=True)
    dx, dw = ops.rms_norm_backward(dy, x, rstd, w, 0.0)
    with pytest.raises(RuntimeError, match="rms_norm_backward"):
        dx.sum().backward()


def test_unused_output_gradients():
    # A loss that uses only some outputs, or none of y: the formulas take
    # the missing gradients as zeros.
    x = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    y, rstd = ops.rms_norm(x, w, 1e-6, 0.0)
    (y[0].sum() + rstd.sum()).backward()
    assert x.grad is not None and w.grad is not None
    assert torch.count_nonzero(x.grad[1:]) == 0


def test_layer_norm_gradient_of_a_bias_without_grad():
    # Only the inputs that require grad get one.
    x = torch.randn(4, 32, requires_grad=True)
    w = torch.randn(32, requires_grad=True)
    b = torch.randn(32)
    y, _, _ = ops.layer_norm(x, w, b, 1e-5)
    y.sum().backward()
    assert x.grad is not None and w.grad is not None and b.grad is None


def test_python_ops_stand_in_without_the_extension():
    # NORM_MLIR_NATIVE=0: the ops are the Python custom ops, with the same
    # results and errors; the CPU suite runs unchanged on them.
    script = textwrap.dedent("""
        import torch, norm_mlir
        from norm_mlir import native, ops
        print(native.loaded, native.reason)
        print(type(ops.rms_norm).__name__)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=_env(NORM_MLIR_NATIVE="0"), timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["False turned off by NORM_MLIR_NATIVE=0", "CustomOpDef"]
    suite = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x",
                            os.path.join(TESTS, "test_torch_cpu.py")],
                           capture_output=True, text=True, env=_env(NORM_MLIR_NATIVE="0"),
                           timeout=1200)
    assert suite.returncode == 0, suite.stdout[-3000:] + suite.stderr[-2000:]


def test_an_extension_that_does_not_load_says_why(tmp_path):
    # A library that is not one (an extension built for another torch fails
    # the same way): the package still imports, on the Python ops, and the
    # reason names the file.
    package = tmp_path / "norm_mlir"
    package.mkdir()
    source = os.path.dirname(norm_mlir.__file__)
    for name in os.listdir(source):
        if name.endswith(".py"):
            (package / name).write_text(open(os.path.join(source, name)).read())
    (package / "_ops.abi3.so").write_bytes(b"not a shared library")
    script = textwrap.dedent("""
        import norm_mlir
        from norm_mlir import native
        print(native.loaded)
        print(native.reason)
    """)
    env = _env()
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [
        p for p in env["PYTHONPATH"].split(os.pathsep) if p])
    env.setdefault("NORM_BUILD_DIR", os.path.join(os.path.dirname(os.path.dirname(source)),
                                                   "build"))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "False"
    assert "_ops.abi3.so does not load into PyTorch" in lines[1]
    assert "rebuild it against this PyTorch" in lines[1]
