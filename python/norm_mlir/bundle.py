"""Kernel bundles: the PTX and manifest written by norm-compile.

Nothing here imports MLIR or torch: a bundle is plain JSON plus PTX text. The
manifest format is described in docs/bundle.md.
"""

import json
import os

# DTYPE_BYTES is re-exported: the benchmarks read it from here.
from .manifest import DTYPE_BYTES, EXPRESSION_OPS, BundleError, check_manifest  # noqa: F401

# CUDA's largest grid: 2^31 - 1 blocks in x, 65535 in y.
MAX_GRID_X = 2**31 - 1
MAX_GRID_Y = 65535


def _check_param(kernel, param, function):
    """Raises BundleError unless `param` is a kernel parameter of the
    manifest: a buffer's memref descriptor ({"buffer": b, "rank": r}), its
    aligned pointer ({"buffer": b, "field": "aligned"}) or a size
    ({"value": expression of M})."""
    if not isinstance(param, dict):
        raise BundleError(f"launch of {kernel} has a malformed parameter {param!r}")
    if "value" in param:
        if evaluate(param["value"], 1) < 0:
            raise BundleError(f"launch of {kernel} has a bad size parameter "
                              f"{param['value']!r}")
        return
    name = param.get("buffer")
    if name not in function.buffers and not any(
            a["name"] == name for a in function.arguments):
        raise BundleError(f"launch of {kernel} names unknown buffer {name}")
    if "field" in param:
        if param["field"] != "aligned":
            raise BundleError(f"launch of {kernel} passes field {param['field']!r} of "
                              f"{name} (only 'aligned')")
    elif not isinstance(param.get("rank"), int):
        raise BundleError(f"launch of {kernel} passes {name} without a rank or field")


def evaluate(expr, m):
    """Evaluates a manifest size expression (int, "M", {"ceildiv": [a, b]},
    {"min": [a, b]}, {"max": [a, b]}, {"rem": [a, b]}) or launch condition
    ({"lt": [a, b]}, {"ge": [a, b]}, {"and": [c, d]}, {"or": [c, d]}: 1
    where it holds, else 0)."""
    if isinstance(expr, int):
        return expr
    if expr == "M":
        return m
    if isinstance(expr, dict) and len(expr) == 1 and next(iter(expr)) in EXPRESSION_OPS:
        (name, args), = expr.items()
        if not isinstance(args, list) or len(args) != 2:
            raise BundleError(f"{name} takes two operands in size expression {expr!r}")
        a, b = (evaluate(e, m) for e in args)
        if name == "lt":
            return int(a < b)
        if name == "ge":
            return int(a >= b)
        if name == "and":
            return int(bool(a) and bool(b))
        if name == "or":
            return int(bool(a) or bool(b))
        if name == "min":
            return min(a, b)
        if name == "max":
            return max(a, b)
        if b <= 0:
            raise BundleError(f"division by {b} in size expression {expr}")
        if name == "rem":
            return a % b
        return -(-a // b)
    raise BundleError(f"unknown size expression {expr!r}")


def version_edges(manifest):
    """The rows on both sides of every bound on M in the manifest's launch
    conditions ({"ge": ["M", t]}, {"lt": ["M", t]}: rows t - 1 and t),
    sorted, from 1: where a bundle's versions (norm-short-rows' bands)
    begin and end, which the GPU checks run whatever rows they pick."""
    edges = set()

    def walk(cond):
        if isinstance(cond, dict):
            for op, args in cond.items():
                if op in ("ge", "lt") and len(args) == 2 and args[0] == "M" \
                        and isinstance(args[1], int):
                    edges.update((args[1] - 1, args[1]))
                else:
                    walk(args)
        elif isinstance(cond, list):
            for item in cond:
                walk(item)

    for function in manifest.get("functions", []):
        for launch in function.get("launches", []):
            walk(launch.get("when"))
    return sorted(m for m in edges if m >= 1)


class Function:
    """One compiled function of a bundle: its signature and launch list."""

    def __init__(self, desc):
        """`desc`: one of the manifest's functions, checked by check_manifest."""
        self.name = desc["function"]
        self.arguments = desc["arguments"]
        self.buffers = {b["name"]: b for b in desc["buffers"]}
        self.results = desc["results"]
        self.launches = desc["launches"]
        for result in self.results:
            if result not in self.buffers:
                raise BundleError(f"{self.name} returns unknown buffer {result!r}")
        for launch in self.launches:
            if "when" in launch and evaluate(launch["when"], 0) not in (0, 1):
                raise BundleError(f"launch of {launch['kernel']} has a bad when "
                                  f"{launch['when']!r} (a comparison of M)")
            for p in launch["params"]:
                _check_param(launch["kernel"], p, self)

    def bind_rows(self, shapes):
        """Checks argument shapes (lists of ints) and returns M.

        Every "M" in the signature must be the same number; static sizes must
        match exactly.
        """
        if len(shapes) != len(self.arguments):
            raise BundleError(
                f"{self.name} takes {len(self.arguments)} arguments, got {len(shapes)}")
        m = None
        for arg, shape in zip(self.arguments, shapes):
            want = arg["shape"]
            if len(shape) != len(want):
                raise BundleError(
                    f"{self.name}: argument {arg['name']} must have rank {len(want)}, "
                    f"got shape {list(shape)}")
            for d, (got, exp) in enumerate(zip(shape, want)):
                if exp == "M":
                    if m is None:
                        m = got
                    elif got != m:
                        raise BundleError(
                            f"{self.name}: argument {arg['name']} has {got} rows, "
                            f"but another argument has {m}")
                elif got != exp:
                    raise BundleError(
                        f"{self.name}: argument {arg['name']} dimension {d} must be "
                        f"{exp}, got {got}")
        if m is None:
            m = 0
        return m

    def launches_at(self, m):
        """The launches a call with M = m makes, in order: those without a
        `when` and those whose `when` holds at m."""
        return [launch for launch in self.launches
                if "when" not in launch or evaluate(launch["when"], m)]

    def buffer_shape(self, name, m):
        """The shape of buffer `name` for M = m. Raises BundleError where a
        size is undefined at that M or the buffer's bytes do not fit 64
        bits (as the C++ runtime's Function::bufferBytes refuses them)."""
        shape = [evaluate(e, m) for e in self.buffers[name]["shape"]]
        nbytes = DTYPE_BYTES[self.buffers[name]["dtype"]]
        for size in shape:
            nbytes *= max(size, 0)
        if any(size < 0 for size in shape) or nbytes >= 1 << 63:
            raise BundleError(f"buffer {name} has no valid size at M = {m}")
        return shape

    def grid(self, launch, m):
        """(x, y) grid size of a launch for M = m."""
        return evaluate(launch["grid"], m), evaluate(launch.get("grid_y", 1), m)

    def check_grids(self, m):
        """The launches a call with M = m makes (launches_at), each with its
        grid, as [(launch, (x, y))]. Raises BundleError where one needs a
        grid past CUDA's limits: the launch parameters are 32-bit, so such a
        grid would run truncated over part of the rows. A persistent
        launch's x grid is capped at the blocks resident at once and is not
        checked."""
        grids = []
        for launch in self.launches_at(m):
            x, y = self.grid(launch, m)
            if (1 if launch.get("persistent", False) else x) > MAX_GRID_X or y > MAX_GRID_Y:
                raise BundleError(
                    f"M = {m} rows need a launch of {launch['kernel']} over {x} x {y} "
                    f"blocks, past CUDA's grid limit of {MAX_GRID_X} x {MAX_GRID_Y}")
            grids.append((launch, (x, y)))
        return grids


class Bundle:
    """A loaded bundle: manifest plus PTX text."""

    def __init__(self, manifest, ptx):
        """`manifest`: parsed JSON that check_manifest accepted (load_bundle
        checks it before it reads the PTX the manifest names)."""
        self.manifest = manifest
        self.target = manifest.get("target", "sm_90")
        self.ptx = ptx
        self.functions = {}
        for f in manifest["functions"]:
            if f["function"] in self.functions:
                raise BundleError(f"bundle has two functions named {f['function']!r}")
            self.functions[f["function"]] = Function(f)

    def function(self, name=None):
        if name is None:
            if len(self.functions) != 1:
                raise BundleError(
                    f"bundle has {len(self.functions)} functions; name one of "
                    f"{sorted(self.functions)}")
            return next(iter(self.functions.values()))
        if name not in self.functions:
            raise BundleError(f"bundle has no function {name!r}; it has {sorted(self.functions)}")
        return self.functions[name]


def load_bundle(directory):
    """Reads <directory>/manifest.json and the PTX it names."""
    path = os.path.join(directory, "manifest.json")
    try:
        with open(path) as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise BundleError(f"no manifest.json in {directory}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise BundleError(f"{path}: invalid JSON: {e}") from None
    except RecursionError:
        raise BundleError(f"{path}: JSON nested too deeply") from None
    except OSError as e:
        raise BundleError(f"{path} cannot be read: {e}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "norm-kernel-bundle":
        raise BundleError(f"{path} is not a norm kernel bundle manifest")
    check_manifest(manifest)
    ptx_path = os.path.join(directory, manifest.get("ptx", "kernels.ptx"))
    try:
        with open(ptx_path) as f:
            ptx = f.read()
    except FileNotFoundError:
        raise BundleError(f"bundle PTX {ptx_path} is missing") from None
    except (OSError, UnicodeDecodeError) as e:
        raise BundleError(f"bundle PTX {ptx_path} cannot be read: {e}") from None
    return Bundle(manifest, ptx)
