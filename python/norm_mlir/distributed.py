"""The norm_mlir ops under torch.distributed: their DTensor sharding
strategies, so the ops take DTensors the way torch's own norms do.

A norm reduces along the last dimension only, so rows may be sharded along
any other dimension and each rank normalizes its own rows: x, y, dy, dx and
the statistics shard alike, the weight and bias are replicated, and a
backward's dW and dB, sums over rows, are partial sums (DTensor reduces them
where a full value is needed). Everything replicated is the other accepted
layout; DTensor redistributes anything else (a sharded last dimension) to
one of these. FSDP2 needs nothing here: it unshards the parameters around
each module's forward and backward, so the ops see plain tensors.
"""

import torch

try:
    from torch.distributed.tensor import Partial, Replicate, Shard
    from torch.distributed.tensor.experimental import register_sharding
except ImportError:  # a torch without torch.distributed
    register_sharding = None


def _rows(x):
    """The dimensions a call may shard: all but the normalized one."""
    return range(x.ndim - 1)


def _strategies(x, tensors, scalars, outputs):
    """(outputs, inputs) placement pairs for an op whose tensor arguments
    are `tensors` (pairs of (spec or None, kind): 'row' shards with x,
    'param' is replicated), followed by `scalars` non-tensor arguments, and
    whose `outputs` results are placed by kind: 'row' shards with x,
    'sum' is a partial sum over rows, 'empty' an empty placeholder."""
    def inputs(row):
        return [None if spec is None else (row if kind == "row" else Replicate())
                for spec, kind in tensors] + [None] * scalars
    replicated = ([Replicate()] * len(outputs), inputs(Replicate()))
    result = [replicated]
    for d in _rows(x):
        result.append(([Shard(d) if kind == "row" else Partial() if kind == "sum"
                        else Replicate() for kind in outputs], inputs(Shard(d))))
    return result


if register_sharding is not None:
    ops = torch.ops.norm_mlir

    @register_sharding(ops.rms_norm.default)
    def _(x, weight, eps, offset):
        return _strategies(x, [(x, "row"), (weight, "param")], 2, ["row", "row"])

    @register_sharding(ops.rms_norm_inference.default)
    def _(x, weight, eps, offset):
        return _strategies(x, [(x, "row"), (weight, "param")], 2, ["row"])

    @register_sharding(ops.layer_norm.default)
    def _(x, weight, bias, eps, offset=0.0):
        return _strategies(x, [(x, "row"), (weight, "param"), (bias, "param")], 2,
                           ["row", "row", "row"])

    @register_sharding(ops.layer_norm_inference.default)
    def _(x, weight, bias, eps, offset=0.0):
        return _strategies(x, [(x, "row"), (weight, "param"), (bias, "param")], 2, ["row"])

    @register_sharding(ops.rms_norm_backward.default)
    def _(dy, x, rstd, weight, offset):
        return _strategies(x, [(dy, "row"), (x, "row"), (rstd, "row"), (weight, "param")], 1,
                           ["row", "sum" if weight is not None else "empty"])

    @register_sharding(ops.layer_norm_backward.default)
    def _(dy, x, mean, rstd, weight, has_bias, offset=0.0):
        return _strategies(x, [(dy, "row"), (x, "row"), (mean, "row"), (rstd, "row"),
                               (weight, "param")], 2,
                           ["row", "sum" if weight is not None else "empty",
                            "sum" if has_bias else "empty"])

    @register_sharding(ops.fused_add_rms_norm.default)
    def _(x, residual, weight, eps, offset):
        return _strategies(x, [(x, "row"), (residual, "row"), (weight, "param")], 2,
                           ["row", "row", "row"])

    @register_sharding(ops.fused_add_rms_norm_inference.default)
    def _(x, residual, weight, eps, offset):
        return _strategies(x, [(x, "row"), (residual, "row"), (weight, "param")], 2,
                           ["row", "row"])

    @register_sharding(ops.fused_add_layer_norm.default)
    def _(x, residual, weight, bias, eps, offset=0.0):
        return _strategies(x, [(x, "row"), (residual, "row"), (weight, "param"),
                               (bias, "param")], 2, ["row", "row", "row", "row"])

    @register_sharding(ops.fused_add_layer_norm_inference.default)
    def _(x, residual, weight, bias, eps, offset=0.0):
        return _strategies(x, [(x, "row"), (residual, "row"), (weight, "param"),
                               (bias, "param")], 2, ["row", "row"])

    @register_sharding(ops.fused_add_rms_norm_backward.default)
    def _(dy, dh, h, rstd, weight, offset):
        return _strategies(h, [(dy, "row"), (dh, "row"), (h, "row"), (rstd, "row"),
                               (weight, "param")], 1,
                           ["row", "sum" if weight is not None else "empty"])

    @register_sharding(ops.fused_add_layer_norm_backward.default)
    def _(dy, dh, h, mean, rstd, weight, has_bias, offset=0.0):
        return _strategies(h, [(dy, "row"), (dh, "row"), (h, "row"), (mean, "row"),
                               (rstd, "row"), (weight, "param")], 2,
                           ["row", "sum" if weight is not None else "empty",
                            "sum" if has_bias else "empty"])

    @register_sharding(ops.l2_norm.default)
    def _(x, eps):
        return _strategies(x, [(x, "row")], 1, ["row", "row"])

    @register_sharding(ops.l2_norm_inference.default)
    def _(x, eps):
        return _strategies(x, [(x, "row")], 1, ["row"])

    @register_sharding(ops.l2_norm_backward.default)
    def _(dy, x, rstd):
        return _strategies(x, [(dy, "row"), (x, "row"), (rstd, "row")], 0, ["row"])

    # Statistics and scales per group (group_size) are x's rows by their
    # groups: they shard with x's row dimensions as per-row ones do.
    @register_sharding(ops.rms_norm_gated.default)
    def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
        return _strategies(x, [(x, "row"), (z, "row"), (weight, "param")], 5, ["row", "row"])

    @register_sharding(ops.rms_norm_gated_inference.default)
    def _(x, z, weight, eps, offset, activation, norm_before_gate, group_size=0):
        return _strategies(x, [(x, "row"), (z, "row"), (weight, "param")], 5, ["row"])

    @register_sharding(ops.rms_norm_gated_backward.default)
    def _(dy, x, z, rstd, weight, offset, activation, norm_before_gate, group_size=0):
        return _strategies(x, [(dy, "row"), (x, "row"), (z, "row"), (rstd, "row"),
                               (weight, "param")], 4,
                           ["row", "row", "sum" if weight is not None else "empty"])

    @register_sharding(ops.rms_norm_quant.default)
    def _(x, weight, eps, offset, group_size=0):
        return _strategies(x, [(x, "row"), (weight, "param")], 3, ["row", "row"])

    @register_sharding(ops.layer_norm_quant.default)
    def _(x, weight, bias, eps, group_size=0, offset=0.0):
        return _strategies(x, [(x, "row"), (weight, "param"), (bias, "param")], 3,
                           ["row", "row"])

    @register_sharding(ops.fused_add_rms_norm_quant.default)
    def _(x, residual, weight, eps, offset, group_size=0):
        return _strategies(x, [(x, "row"), (residual, "row"), (weight, "param")], 3,
                           ["row", "row", "row"])
