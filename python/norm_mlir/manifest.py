"""The structure of a bundle manifest (docs/bundle.md), checked before the
loader reads a field: a malformed manifest is a BundleError that names the
field, not a TypeError or KeyError from deep inside the loader or launcher.

What the fields mean together (buffers that exist, parameters that fit) is
bundle.Function's to check; this module checks types and ranges only.
"""


class BundleError(ValueError):
    """A malformed bundle, or tensors that do not fit a bundle's signature."""


# CUDA's launch limits that a manifest's constants must respect.
MAX_BLOCK = 1024
MAX_CLUSTER = 16
# Most dynamic shared memory a launch may ask for (Hopper: 227 KB).
MAX_SHARED_BYTES = 227 * 1024

DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f8e4m3fn": 1}

# The operators of manifest size expressions and launch conditions (both
# loaders read them; docs/bundle.md).
EXPRESSION_OPS = ("ceildiv", "min", "max", "rem", "lt", "ge", "and", "or")


def _fail(where, what, value):
    raise BundleError(f"{where} must be {what}, got {value!r}")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _int(lo=None, hi=None):
    def check(value, where):
        if not _is_int(value) or (lo is not None and value < lo) or (
                hi is not None and value > hi):
            bounds = (f" from {lo}" if lo is not None else "") + (
                f" to {hi}" if hi is not None else "")
            _fail(where, f"an integer{bounds}", value)
    return check


def _string(*choices):
    def check(value, where):
        if not isinstance(value, str) or (choices and value not in choices):
            _fail(where, "one of " + ", ".join(map(repr, choices)) if choices else "a string",
                  value)
    return check


def _bool(value, where):
    if not isinstance(value, bool):
        _fail(where, "true or false", value)


def _list(item):
    def check(value, where):
        if not isinstance(value, list):
            _fail(where, "a list", value)
        for i, element in enumerate(value):
            item(element, f"{where}[{i}]")
    return check


def _object(required, optional=None):
    """An object with the `required` members and any of the `optional` ones
    (each a check); other members are left for later formats."""
    def check(value, where):
        if not isinstance(value, dict):
            _fail(where, "an object", value)
        for key, member in required.items():
            if key not in value:
                raise BundleError(f"{where} lacks {key!r}")
            member(value[key], f"{where}.{key}")
        for key, member in (optional or {}).items():
            if key in value:
                member(value[key], f"{where}.{key}")
    return check


def _expression(value, where):
    """A non-negative integer, "M", or {op: [a, b]} of expressions."""
    if (_is_int(value) and value >= 0) or value == "M":
        return
    if isinstance(value, dict) and len(value) == 1:
        (op, args), = value.items()
        if op in EXPRESSION_OPS and isinstance(args, list) and len(args) == 2:
            for i, arg in enumerate(args):
                _expression(arg, f"{where}.{op}[{i}]")
            return
    _fail(where, "an integer from 0, \"M\" or {op: [a, b]} with op one of "
          + ", ".join(EXPRESSION_OPS), value)


def _argument_size(value, where):
    if value != "M" and not (_is_int(value) and value >= 0):
        _fail(where, "a size (an integer from 0, or \"M\")", value)


def _param(value, where):
    if isinstance(value, dict) and "value" in value:
        return _expression(value["value"], f"{where}.value")
    _object({"buffer": _string()}, {"field": _string("aligned"), "rank": _int(0)})(value, where)
    if "field" not in value and "rank" not in value:
        raise BundleError(f"{where} lacks 'field' or 'rank'")


def _tensor(size, optional=None):
    return _object({"name": _string(), "dtype": _string(*DTYPE_BYTES), "shape": _list(size)},
                   optional)


_launch = _object(
    {"kernel": _string(), "block": _int(1, MAX_BLOCK), "grid": _expression,
     "params": _list(_param)},
    {"cluster": _int(1, MAX_CLUSTER), "block_group": _int(2, MAX_CLUSTER),
     "grid_y": _expression,
     "shared_bytes": _int(0, MAX_SHARED_BYTES), "persistent": _bool,
     "programmatic": _bool, "when": _expression})

_function = _object(
    {"function": _string(), "arguments": _list(_tensor(_argument_size)),
     "buffers": _list(_tensor(_expression, {"zeroed": _bool})), "results": _list(_string()),
     "launches": _list(_launch)})

_manifest = _object(
    {"format": _string("norm-kernel-bundle"), "version": _int(1, 1),
     "functions": _list(_function)},
    {"target": _string(), "compiler": _string(), "ptx": _string()})


def check_manifest(manifest):
    """Raises BundleError unless `manifest` (parsed JSON) has the structure of
    docs/bundle.md."""
    try:
        _manifest(manifest, "manifest")
    except RecursionError:
        raise BundleError("manifest expressions nested too deeply") from None
