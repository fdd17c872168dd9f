"""norm-raise on the IR other compilers emit (test/Transforms/Inputs/external,
torch-mlir's linalg of PyTorch norms and of Llama and BERT blocks): the raised
modules, whose norms run through norm's CPU lowering, give the numbers that
the original linalg gives through upstream's (linalg to loops), on the same
inputs. Needs the compiler (norm-opt and libNormCAPI) of NORM_BUILD_DIR."""

import os
import re
import subprocess

import numpy as np
import pytest

from norm_mlir import compiler
from norm_mlir.cpu import CpuProgram

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXTERNAL = os.path.join(ROOT, "test", "Transforms", "Inputs", "external")
NORM_OPT = os.path.join(os.environ.get("NORM_BUILD_DIR", os.path.join(ROOT, "build")),
                        "bin", "norm-opt")

if compiler._library() is None or not os.path.exists(NORM_OPT):
    pytest.skip("needs the compiler (libNormCAPI.so and norm-opt)", allow_module_level=True)

_NUMPY = {"f32": np.float32, "bf16": np.uint16}


def runnable(text):
    """`text` with its function (@main, or ONNX's @main_graph) made private
    and a public @run(inputs..., outputs...) on memrefs calling it, which the
    CPU programs take."""
    signature = re.search(r"func\.func @(\w+)\((.*?)\) -> (.*?) \{\n", text)
    name = signature.group(1)
    args = re.findall(r"%\w+: (tensor<[^>]*>)", signature.group(2))
    results = re.findall(r"tensor<[^>]*>", signature.group(3))
    memref = lambda t: "memref" + t[len("tensor"):]  # noqa: E731
    params = [f"%a{i}: {memref(t)}" for i, t in enumerate(args)]
    params += [f"%r{i}: {memref(t)}" for i, t in enumerate(results)]
    body = [f"    %t{i} = bufferization.to_tensor %a{i} restrict : {memref(t)} to {t}"
            for i, t in enumerate(args)]
    call = ", ".join(f"%t{i}" for i in range(len(args)))
    body.append(f"    %out:{len(results)} = func.call @{name}({call}) : ({', '.join(args)}) -> "
                f"({', '.join(results)})")
    body += [f"    bufferization.materialize_in_destination %out#{i} in restrict writable "
             f"%r{i} : ({t}, {memref(t)}) -> ()" for i, t in enumerate(results)]
    wrapper = (f"  func.func @run({', '.join(params)}) {{\n" + "\n".join(body)
               + "\n    return\n  }\n")
    text = text.replace(f"func.func @{name}(", f"func.func private @{name}(", 1)
    resources = text.find("{-#")
    head = text if resources < 0 else text[:resources]
    close = head.rstrip().rfind("}")
    return text[:close] + wrapper + text[close:], args, results


def element(type_text):
    return re.fullmatch(r"tensor<(?:[?\d]+x)*(\w+)>", type_text).group(1)


def shape(type_text):
    return [int(d) for d in re.findall(r"(\d+)x", type_text)]


def run(text, inputs, results):
    program = CpuProgram(text)
    outputs = [np.zeros(shape(t), dtype=_NUMPY[element(t)]) for t in results]
    program.run("run", *inputs, *outputs)
    return outputs


def as_float(a):
    return (a.astype(np.uint32) << 16).view(np.float32) if a.dtype == np.uint16 else a


# Measured: 1e-7 (f32 norms, BERT), 7e-7 (Llama), 3e-3 (bf16: norm's op rounds
# y once where Hugging Face's rounds before the weight too); an epsilon of 0.1
# instead of each module's moves them by 4e-2-1e-1 (6e-6 for BERT, whose
# unscaled activations dwarf it).
@pytest.mark.parametrize("name,norms,tolerance", [
    ("rms_norm_f32", 1, 1e-6), ("rms_norm_bf16", 1, 4e-3), ("layer_norm_f32", 1, 1e-6),
    ("l2_norm_f32", 1, 1e-6), ("layer_norm_onnx", 1, 1e-6), ("rms_norm_onnx", 1, 1e-6),
    ("llama_block", 2, 5e-6), ("bert_block", 2, 1e-6)])
def test_raised_modules_compute_what_the_linalg_does(name, norms, tolerance):
    with open(os.path.join(EXTERNAL, f"{name}.mlir")) as f:
        original = f.read()
    raised = subprocess.run([NORM_OPT, "-", "--norm-raise"], input=original, text=True,
                            capture_output=True, check=True).stdout
    # The user ops, or the L2 norm's row sum of squares.
    assert len(re.findall(r"= norm\.(rms_norm|layer_norm|reduce <row>) ", raised)) == norms
    original_text, args, results = runnable(original)
    raised_text, _, _ = runnable(raised)
    rng = np.random.default_rng(0)
    inputs = []
    for t in args:
        values = rng.standard_normal(shape(t)).astype(np.float32)
        if element(t) == "bf16":
            values = (values.view(np.uint32) >> 16).astype(np.uint16)
        inputs.append(np.ascontiguousarray(values))
    expected = run(original_text, inputs, results)
    got = run(raised_text, inputs, results)
    for e, g in zip(expected, got):
        e, g = as_float(e).astype(np.float64), as_float(g).astype(np.float64)
        assert np.isfinite(g).all()
        assert np.linalg.norm(g - e) / np.linalg.norm(e) < tolerance
