"""norm's kernels inside torch.compile graphs, without changing the model.

`norm_mlir.compile(model)` is torch.compile with the backend below: before
Inductor compiles a graph Dynamo captured, `rewrite_norms` replaces the
normalizations it recognizes with calls to norm_mlir.functional, whose
custom ops carry norm's forward and backward kernels through AOTAutograd;
everything else is left to Inductor. Recognized:

  * torch.nn.functional.rms_norm / torch.rms_norm and
    torch.nn.functional.layer_norm / torch.layer_norm (torch.nn.RMSNorm and
    torch.nn.LayerNorm modules, which Dynamo inlines into these calls);
  * the RMSNorm written out in Python (Hugging Face's LlamaRMSNorm and
    its kin): an optional upcast to float32, the mean of squares over the
    last dimension (pow(2), square() or x * x; mean(-1, keepdim=True)),
    plus a constant eps, rsqrt (or 1 / sqrt), times the upcast input, an
    optional cast back, and an optional weight multiplied in (or 1 +
    weight, Gemma's);
  * the same with a sum of squares instead of their mean and no weight:
    the L2 norm of Gated DeltaNet's q and k (FLA's l2norm);
  * an RMSNorm multiplied by silu(z) or sigmoid(z) (z possibly upcast, the
    product possibly cast back): the gated RMSNorm of Qwen3-Next and Gated
    DeltaNet, norm before the gate; and the written-out RMSNorm of x *
    silu(z) (both possibly upcast): Mamba2's, the gate before the norm;
  * the residual add before an RMSNorm or LayerNorm whose sum is read again
    (the pre-norm block's next residual): fused_add_rms_norm /
    fused_add_layer_norm, one kernel each way;
  * an RMSNorm's or LayerNorm's y quantized to FP8 e4m3 per row in float32
    (amax of |y| over the last dimension, or over groups of it viewed as
    (..., N / G, G): 1 x G scales; scale amax / 448 clamped at
    1e-12, y / scale clamped to +-448 and cast), where nothing else reads
    y and no gradient is needed: rms_norm_quant / layer_norm_quant.

A written-out RMSNorm is replaced only where its result has the dtype norm
gives (the input's) and nothing else reads its intermediate values (the
statistics or the float32 normalized value): otherwise the graph stays as
it is. The graph's tensors' metadata (Dynamo's example values) decide.
"""

import operator

import torch

from . import functional

_RMS_NORMS = (torch.nn.functional.rms_norm, torch.rms_norm)
_LAYER_NORMS = (torch.nn.functional.layer_norm, torch.layer_norm)


def _value(node):
    """Dynamo's example value of `node` (a FakeTensor), or None."""
    if not isinstance(node, torch.fx.Node):
        return None
    v = node.meta.get("example_value")
    return v if isinstance(v, torch.Tensor) else None


def _is_call(node, functions=(), methods=()):
    if not isinstance(node, torch.fx.Node):
        return False
    return ((node.op == "call_function" and node.target in functions)
            or (node.op == "call_method" and node.target in methods))


def _single_user(node):
    return isinstance(node, torch.fx.Node) and len(node.users) == 1


def _only_user(node, functions=(), methods=()):
    """The one user of `node` if it is such a call, else None."""
    if not _single_user(node):
        return None
    user = next(iter(node.users))
    return user if _is_call(user, functions, methods) else None


def _is_mul(node):
    return _is_call(node, functions=(operator.mul, torch.mul), methods=("mul",))


def _argument(node, index, name, default=None):
    """Argument `name` of call `node`, given by keyword or at `index`."""
    if name in node.kwargs:
        return node.kwargs[name]
    return node.args[index] if len(node.args) > index else default


def _widens(source, target):
    """Whether every `source` value is exactly a `target` value."""
    return (source == target or target == torch.float64
            or (target == torch.float32 and source in (torch.bfloat16, torch.float16)))


def _strip_casts(node):
    """The value below the widening casts (.to(torch.float32), .float(),
    .type_as(...) of a wider tensor) of `node`, and the casts passed; a
    narrowing cast (float32 to bfloat16) changes the values and stays."""
    passed = []
    while _is_call(node, methods=("to", "float", "type_as", "type")):
        inner, out = _value(node.args[0]), _value(node)
        if inner is None or out is None or not _widens(inner.dtype, out.dtype):
            break
        passed.append(node)
        node = node.args[0]
    return node, passed


def _last_dim_reduction(node, source):
    """'mean' or 'sum' where `node` is that over the last dimension of
    `source` with keepdim=True, else None."""
    if _is_call(node, functions=(torch.mean,), methods=("mean",)):
        kind = "mean"
    elif _is_call(node, functions=(torch.sum,), methods=("sum",)):
        kind = "sum"
    else:
        return None
    return kind if _keeps_last_dim(node, source) else None


def _keeps_last_dim(node, source):
    """`node` reduces `source` over its last dimension with keepdim=True."""
    if node.args[0] is not source:
        return False
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    keepdim = node.args[2] if len(node.args) > 2 else node.kwargs.get("keepdim", False)
    value = _value(source)
    if value is None or not keepdim:
        return False
    if isinstance(dims, (list, tuple)):
        if len(dims) != 1:
            return False
        dims = dims[0]
    return isinstance(dims, int) and dims in (-1, value.dim() - 1)


def _is_square_of(node, x):
    """`node` is x ** 2 (pow, square, x * x)."""
    if _is_call(node, functions=(torch.pow, operator.pow), methods=("pow",)):
        return node.args[0] is x and node.args[1] == 2
    if _is_call(node, functions=(torch.square,), methods=("square",)):
        return node.args[0] is x
    if _is_mul(node):
        return node.args[0] is x and node.args[1] is x
    return False


def _constant_plus(node):
    """(other operand, the float constant) of `node` = a + c or c + a."""
    if not _is_call(node, functions=(operator.add, torch.add), methods=("add",)):
        return None
    a, b = node.args[0], node.args[1]
    if isinstance(b, (int, float)) and isinstance(a, torch.fx.Node):
        return a, float(b)
    if isinstance(a, (int, float)) and isinstance(b, torch.fx.Node):
        return b, float(a)
    return None


def _rsqrt_operand(node):
    """The x of rsqrt(x) or 1 / sqrt(x) at `node`."""
    if _is_call(node, functions=(torch.rsqrt,), methods=("rsqrt",)):
        return node.args[0]
    if (_is_call(node, functions=(operator.truediv, torch.div), methods=("div",))
            and node.args[0] == 1 and _is_call(node.args[1], functions=(torch.sqrt,),
                                                methods=("sqrt",))):
        return node.args[1].args[0]
    return None


def _other(node, one):
    """The operand of binary `node` that is not `one`."""
    a, b = node.args[0], node.args[1]
    return b if a is one else a if b is one else None


def _activation_of(node):
    """'silu' or 'sigmoid' if `node` applies that activation (not in
    place), else None."""
    if not isinstance(node, torch.fx.Node) or node.kwargs.get("inplace"):
        return None
    if node.op == "call_function" and node.target in _ACTIVATIONS:
        return _ACTIVATIONS[node.target]
    return "sigmoid" if _is_call(node, methods=("sigmoid",)) else None


def _gate_first(product):
    """(x, z, activation, nodes passed) if `product` is x * act(z), each
    possibly upcast (Mamba2's gated RMSNorm, the gate before the norm),
    else None."""
    if not _is_mul(product):
        return None
    if product.kwargs or len(product.args) != 2:
        return None
    for act, x in (product.args, product.args[::-1]):
        activation = _activation_of(act)
        if activation is None or not _single_user(act) or not isinstance(x, torch.fx.Node):
            continue
        gate, gate_casts = _strip_casts(act.args[0])
        source, casts = _strip_casts(x)
        passed = [product, act] + [c for c in casts + gate_casts if _single_user(c)]
        return source, gate, activation, passed
    return None


def _match_written_rms_norm(rsqrt):
    """The written-out RMSNorm (or, over a sum of squares, L2 norm) through
    `rsqrt`: ('mean' or 'sum', input, weight or None, offset, eps, result
    node, nodes it replaces, gate), or None. `gate` is (z, activation) where
    the normalized value is input * act(z) (the gate before the norm), else
    None."""
    operand = _rsqrt_operand(rsqrt)
    if operand is None or not _single_user(rsqrt):
        return None
    plus = _constant_plus(operand)
    if plus is None or not _single_user(operand):
        return None
    mean, eps = plus
    if not _single_user(mean) or not isinstance(mean, torch.fx.Node):
        return None
    square = mean.args[0] if mean.args else None
    if not isinstance(square, torch.fx.Node) or not _single_user(square):
        return None
    upcast = square.args[0] if square.args else None
    reduction = _last_dim_reduction(mean, square) if _is_square_of(square, upcast) else None
    if reduction is None:
        return None
    # x * rsqrt(...): the normalized value, in the upcast dtype.
    scaled = next(iter(rsqrt.users))
    if not _is_mul(scaled):
        return None
    if _other(scaled, rsqrt) is not upcast:
        return None
    source, upcasts = _strip_casts(upcast)
    # The upcast value may feed only the square and the product (or itself,
    # twice, for x * x).
    if any(user not in (square, scaled) for user in upcast.users):
        return None
    result = scaled
    replaced = [rsqrt, operand, mean, square, scaled] + upcasts
    # Then, in either order (Llama casts back before the weight, Gemma
    # after it): casts, and one multiplication by the weight (or 1 + it);
    # the L2 norm (a sum of squares) takes no weight.
    weight, offset = None, 0.0
    # Each point of the chain where the norm could end: the last one with
    # the input's dtype wins (a cast after it, to float32 for the next op,
    # stays in the graph).
    ends = [(result, len(replaced), weight, offset)]
    while _single_user(result):
        user = next(iter(result.users))
        if _is_call(user, methods=("to", "type_as", "type", "float")):
            result = user
            replaced.append(user)
            ends.append((result, len(replaced), weight, offset))
            continue
        if reduction == "sum" or weight is not None or not _is_mul(user):
            break
        w = _other(user, result)
        if not isinstance(w, torch.fx.Node):
            break
        plus_one = _constant_plus(w)
        weight_nodes = []
        if plus_one is not None and plus_one[1] == 1.0 and _single_user(w):
            weight_nodes.append(w)
            w, offset = plus_one[0], 1.0
        w, weight_casts = _strip_casts(w)
        wv = _value(w)
        if wv is None or wv.dim() != 1:
            break
        weight = w
        replaced += weight_nodes + [c for c in weight_casts if _single_user(c)] + [user]
        result = user
        ends.append((result, len(replaced), weight, offset))
    # Mamba2's gated RMSNorm: the normalized value is x * act(z), upcast.
    gate, gate_nodes = None, []
    gated = _gate_first(source) if reduction == "mean" else None
    if gated is not None and _value(gated[0]) is not None and _value(gated[1]) is not None:
        x, z = _value(gated[0]), _value(gated[1])
        if z.shape == x.shape and z.dtype == x.dtype:
            source, gate, gate_nodes = gated[0], (gated[1], gated[2]), gated[3]
    x = _value(source)
    if x is None:
        return None
    ends = [e for e in ends if _value(e[0]) is not None and _value(e[0]).dtype == x.dtype
            and _value(e[0]).shape == x.shape]
    if not ends:
        return None
    result, kept, weight, offset = ends[-1]
    replaced = replaced[:kept] + gate_nodes
    # The kernels are compiled for a static normalized size.
    if x.dim() == 0 or not isinstance(x.shape[-1], int):
        return None
    if weight is not None and _value(weight).shape[0] != x.shape[-1]:
        return None
    return reduction, source, weight, offset, eps, result, replaced, gate


def _erase_unused(graph, nodes):
    """Erases those of `nodes` that nothing reads any more, users first."""
    order = {n: i for i, n in enumerate(graph.nodes)}
    for dead in sorted(set(nodes), key=lambda d: -order[d]):
        if not dead.users:
            graph.erase_node(dead)


def rewrite_norms(gm):
    """Replaces the normalizations of `gm` (a Dynamo graph) that norm
    implements with norm_mlir.functional calls; returns {form: count}."""
    graph = gm.graph
    counts = {}

    def count(form):
        counts[form] = counts.get(form, 0) + 1

    for node in list(graph.nodes):
        if node.op != "call_function":
            continue
        if node.target in _RMS_NORMS:
            node.target = functional.rms_norm
            count("rms_norm")
        elif node.target in _LAYER_NORMS:
            # torch.layer_norm's sixth argument (cudnn_enable) has no
            # meaning for norm's kernels.
            node.args = node.args[:5]
            node.kwargs = {k: v for k, v in node.kwargs.items() if k != "cudnn_enable"}
            node.target = functional.layer_norm
            count("layer_norm")
    for node in list(graph.nodes):
        if node.graph is not graph or _rsqrt_operand(node) is None:
            continue
        match = _match_written_rms_norm(node)
        if match is None:
            continue
        reduction, source, weight, offset, eps, result, replaced, gate = match
        n = (_value(source).shape[-1],)
        with graph.inserting_before(result):
            if reduction == "sum":
                new = graph.call_function(functional.l2_norm, (source, eps))
            elif gate is not None:
                new = graph.call_function(
                    functional.rms_norm_gated, (source, gate[0], weight, eps, gate[1], False),
                    {"offset": offset} if offset else {})
                count("gated")
            else:
                new = graph.call_function(functional.rms_norm, (source, n, weight, eps),
                                          {"offset": offset} if offset else {})
        new.meta.update(result.meta)
        result.replace_all_uses_with(new)
        _erase_unused(graph, replaced)
        count("written_l2_norm" if reduction == "sum" else "written_rms_norm")
    for node in list(graph.nodes):
        if node.graph is graph and _fuse_gate(graph, node):
            count("gated")
    for node in list(graph.nodes):
        if node.graph is graph and _fuse_fp8_quant(graph, node):
            count("fp8_quant")
    for node in list(graph.nodes):
        if node.graph is graph and _fuse_residual_add(graph, node):
            count("fused_add")
    graph.lint()
    gm.recompile()
    return counts


_ACTIVATIONS = {torch.nn.functional.silu: "silu", torch.sigmoid: "sigmoid"}


def _fuse_gate(graph, norm):
    """Replaces rms_norm(x) * act(z) (act silu or sigmoid, z possibly
    upcast, the product possibly cast back to x's dtype: Qwen3-Next's and
    Gated DeltaNet's gated RMSNorm with the norm before the gate) with the
    gated RMSNorm. Returns whether it did."""
    if (norm.op != "call_function" or norm.target is not functional.rms_norm
            or norm.kwargs.get("offset") or not _single_user(norm)):
        return False
    x = _value(norm.args[0])
    if x is None:
        return False
    head, casts = norm, []
    while (user := _only_user(head, methods=("to", "float"))) is not None:
        if _value(user) is None or not _widens(_value(head).dtype, _value(user).dtype):
            return False
        head = user
        casts.append(user)
    mul = _only_user(head, functions=(operator.mul, torch.mul), methods=("mul",))
    if mul is None:
        return False
    act = _other(mul, head)
    activation = _activation_of(act)
    if activation is None or not _single_user(act):
        return False
    gate, gate_casts = _strip_casts(act.args[0])
    result, replaced = mul, casts + [mul, act] + [c for c in gate_casts if _single_user(c)]
    while (user := _only_user(result, methods=("to", "type_as", "type"))) is not None:
        result = user
        replaced.append(result)
    z, y = _value(gate), _value(result)
    if z is None or y is None or z.shape != x.shape or z.dtype != x.dtype or y.dtype != x.dtype:
        return False
    weight, eps = _argument(norm, 2, "weight"), _argument(norm, 3, "eps")
    if eps is None or not isinstance(eps, (int, float)):
        return False
    with graph.inserting_before(result):
        new = graph.call_function(functional.rms_norm_gated,
                                  (norm.args[0], gate, weight, float(eps), activation, True))
    new.meta.update(result.meta)
    result.replace_all_uses_with(new)
    _erase_unused(graph, replaced + [norm])
    return True


_QUANTIZED = {functional.rms_norm: functional.rms_norm_quant,
              functional.layer_norm: functional.layer_norm_quant}
_E4M3_MAX = 448.0


def _clamp_bounds(node):
    """(min, max) of a clamp / clamp_min at `node` (None where absent), or
    None if `node` is no clamp."""
    if _is_call(node, functions=(torch.clamp, torch.clip), methods=("clamp", "clip")):
        args = list(node.args[1:]) + [None] * 2
        return (node.kwargs.get("min", args[0]), node.kwargs.get("max", args[1]))
    if _is_call(node, functions=(torch.clamp_min,), methods=("clamp_min",)):
        return (node.args[1] if len(node.args) > 1 else node.kwargs.get("min"), None)
    return None


def _fuse_fp8_quant(graph, norm):
    """Replaces a norm's y quantized to FP8 e4m3 per row, as model code
    writes it in float32 (amax = y.abs().amax(-1, keepdim=True); scale =
    (amax / 448).clamp(min=1e-12); q = (y / scale).clamp(-448,
    448).to(torch.float8_e4m3fn)), with the norm's quantizing kernel, where
    nothing else reads y and no gradient is needed (the quantizing ops are
    inference forwards). q may differ from the model's by one FP8 step
    where y's rounding to its dtype decided the FP8 rounding. Returns
    whether it did."""
    if norm.op != "call_function" or norm.target not in _QUANTIZED:
        return False
    y = _value(norm)
    if y is None or y.requires_grad:
        return False
    # y, possibly upcast, read by abs and by the division (through one
    # upcast or one each), or by one view of it in groups of G columns
    # (..., N / G, G) that abs and the division read: a scale a group.
    readers, casts = [], []
    for user in norm.users:
        if _is_call(user, methods=("float", "to")) and _value(user) is not None and \
                _value(user).dtype == torch.float32:
            casts.append(user)
            readers += list(user.users)
        else:
            readers.append(user)
    values = [norm] + casts
    group, grouped = None, []
    if len(readers) == 1 and _is_group_view(readers[0], y.shape):
        grouped = [readers[0]]
        group = _value(grouped[0]).shape[-1]
        values, readers = grouped, list(grouped[0].users)
    absolute = [r for r in readers if _is_call(r, functions=(torch.abs,), methods=("abs",))]
    division = [r for r in readers if _is_call(r, functions=(operator.truediv, torch.div),
                                              methods=("div",))]
    if len(absolute) != 1 or len(division) != 1 or len(readers) != 2:
        return False
    absolute, division = absolute[0], division[0]
    amax = _only_user(absolute, functions=(torch.amax,), methods=("amax",))
    if amax is None or not _keeps_last_dim(amax, absolute):
        return False
    scaled = _only_user(amax, functions=(operator.truediv, torch.div), methods=("div",))
    if scaled is None or scaled.args[0] is not amax or scaled.args[1] != _E4M3_MAX:
        return False
    scale = _only_user(scaled, functions=(torch.clamp, torch.clamp_min),
                       methods=("clamp", "clamp_min"))
    if scale is None or _clamp_bounds(scale) != (1e-12, None):
        return False
    if division.args[0] not in values or division.args[1] is not scale:
        return False
    bounded = _only_user(division, functions=(torch.clamp, torch.clip),
                         methods=("clamp", "clip"))
    if bounded is None or _clamp_bounds(bounded) != (-_E4M3_MAX, _E4M3_MAX):
        return False
    cast = _only_user(bounded, methods=("to",))
    if cast is None or _value(cast) is None or _value(cast).dtype != torch.float8_e4m3fn:
        return False
    # Grouped: q viewed back to y's shape (else q is read in groups).
    ungrouped = None
    if group is not None:
        back = _only_user(cast, functions=(torch.reshape, torch.flatten),
                          methods=("view", "reshape", "flatten"))
        if back is not None and _value(back) is not None and _value(back).shape == y.shape:
            ungrouped = back
    sv = _value(scale)
    if sv is None or sv.dtype != torch.float32 or _value(division).dtype != torch.float32:
        return False
    # The scale's other readers (a dequantization) come after the norm.
    order = {n: i for i, n in enumerate(graph.nodes)}
    if any(order[u] < order[cast] for u in scale.users if u is not division):
        return False
    kwargs = {}
    if norm.target is functional.rms_norm:
        # rms_norm(x, shape, weight, eps, offset=) -> rms_norm_quant(x,
        # weight, eps, offset=); torch's eps=None (its dtype's epsilon) has
        # no quantizing kernel here.
        args = [norm.args[0], _argument(norm, 2, "weight"), _argument(norm, 3, "eps")]
        if norm.kwargs.get("offset"):
            kwargs["offset"] = norm.kwargs["offset"]
    else:
        args = [norm.args[0], _argument(norm, 2, "weight"), _argument(norm, 3, "bias"),
                _argument(norm, 4, "eps", 1e-5)]
    if args[-1] is None:
        return False
    if group is not None:
        kwargs["group_size"] = group
    last = ungrouped if ungrouped is not None else cast
    with graph.inserting_before(last):
        fused = graph.call_function(_QUANTIZED[norm.target], tuple(args), kwargs)
        q = graph.call_function(operator.getitem, (fused, 0))
        row_scale = graph.call_function(operator.getitem, (fused, 1))
        kept = graph.call_function(torch.unsqueeze, (row_scale, -1))
        if group is not None and ungrouped is None:
            # q read in its groups, as the model's was.
            q = graph.call_function(torch.unflatten,
                                    (q, -1, (y.shape[-1] // group, group)))
    q.meta.update(last.meta)
    kept.meta.update(scale.meta)
    last.replace_all_uses_with(q)
    scale.replace_all_uses_with(kept)
    _erase_unused(graph, ([ungrouped] if ungrouped is not None else [])
                  + [cast, bounded, division, scale, scaled, amax, absolute]
                  + grouped + casts + [norm])
    return True


def _is_group_view(node, shape):
    """Whether `node` views a value of `shape` as groups of its last
    dimension: shape[:-1] + (N / G, G), G dividing N, by view / reshape /
    unflatten, in float32."""
    if not _is_call(node, functions=(torch.reshape, torch.unflatten),
                    methods=("view", "reshape", "unflatten")):
        return False
    v = _value(node)
    if v is None or v.dtype != torch.float32 or v.dim() != len(shape) + 1:
        return False
    n, g = shape[-1], v.shape[-1]
    return (tuple(v.shape[:-2]) == tuple(shape[:-1]) and isinstance(g, int) and g > 0
            and v.shape[-2] * g == n)


_FUSED = {functional.rms_norm: functional.fused_add_rms_norm,
          functional.layer_norm: functional.fused_add_layer_norm}


def _fuse_residual_add(graph, norm):
    """Replaces norm(x + r), where the sum is also read elsewhere (the next
    residual), with the fused residual add and norm, whose second result is
    the sum. Returns whether it did."""
    if norm.op != "call_function" or norm.target not in _FUSED or norm.kwargs.get("offset"):
        return False
    add = norm.args[0] if norm.args else None
    if not _is_call(add, functions=(operator.add, torch.add), methods=("add",)):
        return False
    if add.kwargs or len(add.args) != 2 or not all(
            isinstance(a, torch.fx.Node) for a in add.args):
        return False
    x, r, h = _value(add.args[0]), _value(add.args[1]), _value(add)
    if x is None or r is None or h is None or not (x.shape == r.shape == h.shape
                                                  and x.dtype == r.dtype == h.dtype):
        return False
    order = {n: i for i, n in enumerate(graph.nodes)}
    # The fused call goes where the norm is: every other reader of the sum
    # must come after it.
    if any(order[user] < order[norm] for user in add.users if user is not norm):
        return False
    with graph.inserting_before(norm):
        fused = graph.call_function(_FUSED[norm.target],
                                    tuple(add.args) + tuple(norm.args[1:]), dict(norm.kwargs))
        y = graph.call_function(operator.getitem, (fused, 0))
        total = graph.call_function(operator.getitem, (fused, 1))
    y.meta.update(norm.meta)
    total.meta.update(add.meta)
    norm.replace_all_uses_with(y)
    graph.erase_node(norm)
    add.replace_all_uses_with(total)
    graph.erase_node(add)
    return True


def backend(gm, example_inputs, mode=None, options=None):
    """A torch.compile backend: rewrite_norms, then Inductor with the
    configuration torch.compile's `mode` and `options` give it (as for
    torch.compile's own Inductor backend)."""
    import torch._inductor
    from torch._inductor.compile_fx import compile_fx
    rewrite_norms(gm)
    patches = dict(torch._inductor.list_mode_options(mode)) if mode else {}
    patches.update(options or {})
    return compile_fx(gm, example_inputs, config_patches=patches or None)


def compile(model, **kwargs):
    """torch.compile(model) with norm's kernels for the normalizations it
    recognizes (see this module); kwargs go to torch.compile (fullgraph,
    dynamic, mode, options, ...; not backend)."""
    if "backend" in kwargs:
        raise TypeError("norm_mlir.compile sets the backend; pass the other torch.compile "
                        "arguments")
    return torch.compile(model, backend=backend, **kwargs)
