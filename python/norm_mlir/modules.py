"""Drop-in replacements for torch.nn.RMSNorm and torch.nn.LayerNorm, and
their pre-norm residual-add forms (FusedAddRMSNorm, FusedAddLayerNorm:
forward(x, residual) -> (norm(x + residual), x + residual)); the L2 norm
(L2Norm) and the gated RMSNorm (RMSNormGated: forward(x, z)) of Gated
DeltaNet and Mamba2 layers.

Same constructor arguments, parameters and state_dict keys. Their forward is
norm_mlir.functional's: CUDA inputs run the norm GPU kernels and CPU inputs
the CPU lowering (both through the custom ops in ops.py), the inference
forward when nothing needs a gradient; without a compiler for the CPU path,
or on other devices, torch.nn.functional, so a model keeps working.
"""

import torch

from . import functional


def _param(shape, device, dtype):
    return torch.nn.Parameter(torch.empty(shape, device=device, dtype=dtype))


class RMSNorm(torch.nn.Module):
    """torch.nn.RMSNorm running norm kernels (CUDA) or the CPU lowering.
    weight_offset 1 takes the weight as 1 + weight in f32 (Gemma's
    convention; the weight then starts at 0)."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True,
                 device=None, dtype=None, weight_offset=0.0):
        super().__init__()
        self.normalized_shape = functional.normalized_shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight_offset = weight_offset
        if elementwise_affine:
            self.weight = _param(self.normalized_shape, device, dtype)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            # The weight enters as weight + weight_offset: 1 either way.
            torch.nn.init.constant_(self.weight, 1.0 - self.weight_offset)

    def forward(self, x):
        return functional.rms_norm(x, self.normalized_shape, self.weight, self.eps,
                                   offset=self.weight_offset)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}"
                + (f", weight_offset={self.weight_offset}" if self.weight_offset else ""))


class LayerNorm(torch.nn.Module):
    """torch.nn.LayerNorm running norm kernels (CUDA) or the CPU lowering.
    weight_offset 1 takes the weight as 1 + weight in f32 (a zero-centered
    weight: Megatron's LayerNorm1P; the weight then starts at 0)."""

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True,
                 bias=True, device=None, dtype=None, weight_offset=0.0):
        super().__init__()
        self.normalized_shape = functional.normalized_shape_tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight_offset = weight_offset
        if elementwise_affine:
            self.weight = _param(self.normalized_shape, device, dtype)
            if bias:
                self.bias = _param(self.normalized_shape, device, dtype)
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            torch.nn.init.constant_(self.weight, 1.0 - self.weight_offset)
        if self.bias is not None:
            torch.nn.init.zeros_(self.bias)

    def forward(self, x):
        return functional.layer_norm(x, self.normalized_shape, self.weight, self.bias,
                                     self.eps, offset=self.weight_offset)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}"
                + (f", weight_offset={self.weight_offset}" if self.weight_offset else ""))


class FusedAddRMSNorm(RMSNorm):
    """RMSNorm of x + residual, returning (y, x + residual) from one kernel
    (a pre-norm block's residual add and norm; Liger's LigerFusedAddRMSNorm,
    vLLM's fused_add_rms_norm). Same parameters as RMSNorm."""

    def forward(self, x, residual):
        return functional.fused_add_rms_norm(x, residual, self.normalized_shape, self.weight,
                                             self.eps, offset=self.weight_offset)


class FusedAddLayerNorm(LayerNorm):
    """LayerNorm of x + residual, returning (y, x + residual) from one kernel.
    Same parameters as LayerNorm."""

    def forward(self, x, residual):
        return functional.fused_add_layer_norm(x, residual, self.normalized_shape, self.weight,
                                               self.bias, self.eps, offset=self.weight_offset)


class L2Norm(torch.nn.Module):
    """x / sqrt(sum of its squares + eps) over the last dimension (no
    parameters): Gated DeltaNet's q/k normalization."""

    def __init__(self, eps=1e-6):
        super().__init__()
        self.eps = eps

    def forward(self, x):
        return functional.l2_norm(x, self.eps)

    def extra_repr(self):
        return f"eps={self.eps}"


class RMSNormGated(torch.nn.Module):
    """The gated RMSNorm (Mamba2's RMSNormGated, FLA's FusedRMSNormGated):
    forward(x, z) = rms_norm(x) * weight * act(z) with norm_before_gate,
    rms_norm(x * act(z)) * weight without; act is 'silu' or 'sigmoid';
    group_size normalizes groups of the last dimension separately;
    weight_offset 1 takes the weight as 1 + weight (Gemma's convention)."""

    def __init__(self, hidden_size, eps=1e-5, activation="silu", norm_before_gate=True,
                 group_size=None, elementwise_affine=True, weight_offset=0.0, device=None,
                 dtype=None):
        super().__init__()
        functional.check_activation(activation, "RMSNormGated")
        self.hidden_size = int(hidden_size)
        self.eps = eps
        self.activation = activation
        self.norm_before_gate = norm_before_gate
        self.group_size = group_size
        self.weight_offset = weight_offset
        if elementwise_affine:
            self.weight = _param((self.hidden_size,), device, dtype)
        else:
            self.register_parameter("weight", None)
        self.reset_parameters()

    def reset_parameters(self):
        if self.weight is not None:
            # The weight enters as weight + weight_offset: 1 either way.
            torch.nn.init.constant_(self.weight, 1.0 - self.weight_offset)

    def forward(self, x, z):
        return functional.rms_norm_gated(x, z, self.weight, self.eps, self.activation,
                                         self.norm_before_gate, self.group_size,
                                         self.weight_offset)

    def extra_repr(self):
        return (f"{self.hidden_size}, eps={self.eps}, activation={self.activation!r}, "
                f"norm_before_gate={self.norm_before_gate}, group_size={self.group_size}")
