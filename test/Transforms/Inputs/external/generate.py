#!/usr/bin/env python3
"""Writes the linalg-on-tensors IR that torch-mlir makes of PyTorch norms and
transformer blocks, the inputs of test/Transforms/norm-raise.mlir.

Each module is exported from PyTorch by IREE's turbine (aot.export, the
torch dialect) and lowered by the torch-mlir passes inside IREE's iree-opt,
as torch-mlir's linalg-on-tensors backend arranges them (decompositions to
the backend contract, then torch -> linalg, arith, tensor, scf). The
parameters are function arguments (not globals), so that the modules are
plain func.func over tensors. The *_onnx modules go through ONNX instead
(torch.onnx.export, IREE's ONNX importer, torch-mlir's onnx-to-torch pass,
then the same passes), their parameters constants as ONNX keeps them.
Nothing here is edited by hand: regenerate with

    pip install --target /tmp/iree-site iree-base-compiler iree-base-runtime \\
        iree-turbine ml_dtypes onnx
    PYTHONPATH=/tmp/iree-site:build/pydeps python3 \\
        test/Transforms/Inputs/external/generate.py

(build/pydeps holds the torch and transformers that scripts/test.sh installs).
"""

import importlib.metadata
import os
import subprocess
import sys
import tempfile

import torch
from torch.func import functional_call

import iree.compiler
import iree.turbine.aot as aot
from transformers import BertConfig, LlamaConfig
from transformers.models.bert.modeling_bert import BertLayer
from transformers.models.llama.modeling_llama import (LlamaDecoderLayer, LlamaRMSNorm,
                                                      LlamaRotaryEmbedding)

HERE = os.path.dirname(os.path.abspath(__file__))
# torch-mlir's torch-backend-to-linalg-on-tensors-backend-pipeline, as its
# passes are registered in iree-opt.
PIPELINE = ("builtin.module(torch-lower-to-backend-contract{decompose=true},"
            "func.func(convert-torch-to-tmtensor,convert-torch-to-linalg,convert-torch-to-scf,"
            "convert-torch-to-arith,convert-torch-to-tensor),torch-func-backend-type-conversion,"
            "canonicalize,func.func(torch-finalizing-backend-type-conversion),canonicalize)")


class ParamsAsArguments(torch.nn.Module):
    """`inner` called with its parameters passed after its input."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.names = [name for name, _ in inner.named_parameters()]

    def forward(self, x, *params):
        return functional_call(self.inner, dict(zip(self.names, params)), (x,))


class LlamaBlock(torch.nn.Module):
    """Hugging Face's Llama decoder layer with its rotary embedding."""

    def __init__(self, config):
        super().__init__()
        self.layer = LlamaDecoderLayer(config, 0)
        self.rope = LlamaRotaryEmbedding(config)

    def forward(self, x):
        positions = torch.arange(x.shape[1]).unsqueeze(0)
        cos, sin = self.rope(x, positions)
        out = self.layer(x, position_embeddings=(cos, sin), attention_mask=None,
                         position_ids=positions)
        return out[0] if isinstance(out, tuple) else out


class L2Norm(torch.nn.Module):
    """Gated DeltaNet's q/k normalization (fla's l2norm): x / sqrt(sum x^2 + eps)."""

    def forward(self, x):
        return x * torch.rsqrt((x * x).sum(-1, keepdim=True) + 1e-6)


class Normalize(torch.nn.Module):
    """torch.nn.functional.normalize: x / max(||x||, eps), which norm does not raise."""

    def forward(self, x):
        return torch.nn.functional.normalize(x, dim=-1)


class BertBlock(torch.nn.Module):
    """Hugging Face's BERT layer (post-norm: LayerNorm after each residual add)."""

    def __init__(self, config):
        super().__init__()
        self.layer = BertLayer(config)

    def forward(self, x):
        out = self.layer(x)
        return out[0] if isinstance(out, tuple) else out


def modules():
    torch.manual_seed(0)
    llama = LlamaConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                        num_key_value_heads=2, rms_norm_eps=1e-6, attn_implementation="eager")
    bert = BertConfig(hidden_size=64, intermediate_size=128, num_attention_heads=4,
                      attn_implementation="eager")
    x = torch.randn(2, 8, 64)
    return {
        "rms_norm_f32": (torch.nn.RMSNorm(64, eps=1e-6), x),
        # Hugging Face's RMSNorm on bf16 rows: x upcast to f32, y cast back
        # and multiplied by the bf16 weight.
        "rms_norm_bf16": (LlamaRMSNorm(64, eps=1e-6).to(torch.bfloat16),
                          x.to(torch.bfloat16)),
        "layer_norm_f32": (torch.nn.LayerNorm(64, eps=1e-5), x),
        "l2_norm_f32": (L2Norm(), x),
        "normalize_f32": (Normalize(), x),
        "llama_block": (LlamaBlock(llama), x),
        "bert_block": (BertBlock(bert), x),
    }


def onnx_modules():
    """Norms exported to ONNX (opset 17), with parameters other than 1 and 0."""
    torch.manual_seed(1)
    layer_norm = torch.nn.LayerNorm(64, eps=1e-5)
    rms_norm = LlamaRMSNorm(64, eps=1e-6)
    for module in (layer_norm, rms_norm):
        with torch.no_grad():
            for p in module.parameters():
                p.copy_(torch.randn_like(p) * 0.5 + 1)
    x = torch.randn(2, 8, 64)
    return {"layer_norm_onnx": (layer_norm, x), "rms_norm_onnx": (rms_norm, x)}


def torch_ir_through_onnx(module, x, directory):
    """The torch-dialect IR of `module` as IREE imports its ONNX export."""
    path = os.path.join(directory, "model.onnx")
    torch.onnx.export(module, (x,), path, dynamo=False, opset_version=17)
    return subprocess.run([sys.executable, "-m", "iree.compiler.tools.import_onnx", path,
                           "-o", "-"], capture_output=True, text=True, check=True).stdout


def main():
    iree_opt = os.path.join(os.path.dirname(iree.compiler.__file__), "_mlir_libs", "iree-opt")
    versions = ", ".join(f"{package} {importlib.metadata.version(package)}"
                         for package in ("torch", "transformers", "iree-base-compiler",
                                         "iree-turbine"))
    versions += f", onnx {importlib.metadata.version('onnx')}"
    for name, (module, x) in {**modules(), **onnx_modules()}.items():
        module = module.eval()
        if name.endswith("_onnx"):
            with tempfile.TemporaryDirectory() as directory:
                torch_ir = torch_ir_through_onnx(module, x, directory)
        else:
            params = [p.detach() for p in module.parameters()]
            exported = aot.export(ParamsAsArguments(module), x, *params)
            torch_ir = str(exported.mlir_module)
        # ONNX's ops first become torch's (torch-mlir's onnx-to-torch).
        pipeline = PIPELINE
        if name.endswith("_onnx"):
            pipeline = pipeline.replace("builtin.module(",
                                        "builtin.module(func.func(convert-torch-onnx-to-torch),", 1)
        done = subprocess.run([iree_opt, "-", f"--pass-pipeline={pipeline}"], input=torch_ir,
                              capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{name}: iree-opt failed:\n{done.stderr}")
        lowered = done.stdout
        path = os.path.join(HERE, f"{name}.mlir")
        with open(path, "w") as f:
            f.write(f"// {name}: generated by generate.py ({versions}); do not edit.\n")
            f.write(lowered)
        print(path, file=sys.stderr)


if __name__ == "__main__":
    main()
