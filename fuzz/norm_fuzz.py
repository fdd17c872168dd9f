#!/usr/bin/env python3
"""Mutation fuzzer for norm's compiler, its C API and both bundle loaders.

Draws inputs from the checked-in corpus (fuzz/corpus), mutates them and runs
them through one target each:

  opt       norm-opt with a random pass pipeline and random pass options
  compile   norm-compile with random options
  table     norm-compile and convert-norm-to-gpu reading a mutated tuning table
  capi      the C API through ctypes (norm_mlir): mlirNormCompile with random
            pipeline options, and mlirNormCpuProgramCreate / ArgumentTypes /
            Run on buffers built from the argument types
  manifest  a mutated bundle (manifest.json + PTX) loaded by the C++ runtime
            (norm-bundle-check, every launch planned for several M) and by
            the Python loader (norm_mlir.load_bundle, the same launches)

Every input must end in exit 0 or a clean error (exit 1, or the loaders'
BundleError / CompileError): a signal, an LLVM fatal error, an assertion,
an uncaught exception or a run past the time limit is a finding. Findings
are written to --out (input, command, output) and the run exits 1.

  fuzz/norm_fuzz.py --build build --seconds 180          # what CI runs
  fuzz/norm_fuzz.py --build build --seconds 3600 --seed 7 --out /tmp/finds
  fuzz/norm_fuzz.py --build build --replay /tmp/finds/0001  # rerun a finding
  fuzz/norm_fuzz.py --build build --seed-corpus           # rebuild the corpus
  fuzz/norm_fuzz.py --build build-asan --sanitized        # an ASan/UBSan build

The sequence of inputs depends only on --seed; --seconds bounds the time.
"""

import argparse
import concurrent.futures
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")

# Integers that have broken code before: zero, signs, powers of two around
# 32- and 64-bit limits, and sizes near the kernels' layout edges.
INTERESTING_INTS = [0, 1, -1, 2, 3, 7, 8, 16, 24, 31, 32, 33, 64, 100, 127, 128,
                    255, 256, 1000, 1023, 1024, 4096, 4097, 32768, 65536, 131072,
                    2**20, 2**31 - 1, 2**31, 2**32, 2**40, 2**62, 2**63 - 1, -2**63]
ELEMENT_TYPES = ["bf16", "f16", "f32", "f64", "f8E4M3FN", "i1", "i8", "i32", "i64",
                 "index", "complex<f32>", "vector<4xf32>", "none"]
# Words of the norm dialect a mutation swaps for one another.
KEYWORD_GROUPS = [
    ["full", "row", "col"],
    ["<row>", "<col>"],
    ["<add>", "<max>"],
    ["norm.rms_norm", "norm.layer_norm"],
    ["norm.rms_norm_grad", "norm.layer_norm_grad"],
    ["norm.map", "norm.reduce", "norm.fused"],
    ["arith.addf", "arith.mulf", "arith.subf", "arith.divf", "arith.maximumf"],
    ["arith.extf", "arith.truncf"],
    ["math.rsqrt", "math.sqrt", "math.exp"],
    ["memref", "tensor"],
    ["ins", "outs"],
]
# Attributes of norm.fused that passes read, and what they may be set to.
FUSED_ATTRIBUTES = ["norm.rows_per_block", "norm.min_blocks_per_sm", "norm.rows_below",
                    "norm.rows_multiple", "norm.vector_width", "norm.warp_rows",
                    "norm.stream_rows", "norm.whole_columns", "norm.whole_blocks_branch",
                    "norm.preload_columns", "norm.split_size", "rows_per_partial",
                    "min_partials", "max_partials", "min_rows_per_partial"]
OPT_PIPELINES = ["norm-to-gpu", "norm-to-ptx", "norm-to-cpu"]
OPT_PASSES = ["norm-set-target", "norm-decompose", "norm-fuse-mixed-order", "norm-short-rows",
              "norm-split-rows", "norm-plan-kernels", "norm-split-reduction", "convert-norm-to-loops",
              "convert-norm-to-gpu", "norm-pipeline", "norm-compact-kernel-args",
              "norm-attach-target", "norm-serialize-kernels"]
UPSTREAM_STEPS = ["--one-shot-bufferize=bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map",
                  "--canonicalize", "--cse"]
CHIPS = ["sm_90", "sm_90a", "sm_80", "sm_100", "sm_9", "", "0", "gfx90a"]
FEATURES = ["+ptx81", "+ptx90", "+ptx60", "", "xyz", "+ptx81,+ptx82", "+ptx999"]
# What a crash looks like in a tool's output.
CRASH_MARKERS = ["Stack dump", "LLVM ERROR", "Assertion", "UNREACHABLE", "terminate called",
                 "Segmentation fault", "AddressSanitizer", "runtime error:",
                 "PLEASE submit a bug report"]


def interesting_int(rng):
    return rng.choice(INTERESTING_INTS) if rng.random() < 0.8 else rng.randint(-5, 70000)


# ---------------------------------------------------------------------------
# Mutations of MLIR text
# ---------------------------------------------------------------------------

def mutate_integer(rng, text):
    spots = [m for m in re.finditer(r"(?<![\w.%#@])\d+(?![\w.])", text)]
    if not spots:
        return text
    m = rng.choice(spots)
    return text[:m.start()] + str(interesting_int(rng)) + text[m.end():]


def mutate_dimension(rng, text):
    """A static size becomes dynamic, or the other way round, in one type."""
    spots = list(re.finditer(r"(?<=[<x])(\?|\d+)(?=x)", text))
    if not spots:
        return text
    m = rng.choice(spots)
    new = str(interesting_int(rng)) if m.group(0) == "?" or rng.random() < 0.5 else "?"
    return text[:m.start()] + new + text[m.end():]


def mutate_element_type(rng, text):
    spots = list(re.finditer(r"\b(bf16|f16|f32)\b", text))
    if not spots:
        return text
    m = rng.choice(spots)
    if rng.random() < 0.5:
        # Every occurrence of one type: mixed-type programs that still parse.
        return re.sub(rf"\b{m.group(0)}\b", rng.choice(ELEMENT_TYPES[:3]), text)
    return text[:m.start()] + rng.choice(ELEMENT_TYPES) + text[m.end():]


def mutate_keyword(rng, text):
    group = rng.choice(KEYWORD_GROUPS)
    present = [k for k in group if k in text]
    if not present:
        return text
    old = rng.choice(present)
    spots = [m.start() for m in re.finditer(re.escape(old), text)]
    at = rng.choice(spots)
    return text[:at] + rng.choice(group) + text[at + len(old):]


def mutate_lines(rng, text):
    lines = text.split("\n")
    if len(lines) < 2:
        return text
    i = rng.randrange(len(lines))
    choice = rng.random()
    if choice < 0.4:
        del lines[i]
    elif choice < 0.7:
        lines.insert(rng.randrange(len(lines)), lines[i])
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def mutate_attribute(rng, text):
    """Adds a norm.fused attribute, or sets an existing integer attribute."""
    name = rng.choice(FUSED_ATTRIBUTES + ["norm.plan"])
    value = rng.choice([f"{interesting_int(rng)} : i64", "unit", "true", '"x"', "1.5 : f32"])
    if name == "norm.plan" and rng.random() < 0.8:
        value = random_plan(rng)
    entry = name if value == "unit" else f"{name} = {value}"
    if "attributes {" in text:
        return text.replace("attributes {", "attributes {" + entry + ", ", 1)
    m = re.search(r"(norm\.fused[^\n]*?\))( \{\n)", text)
    if m:
        return text[:m.end(1)] + " attributes {" + entry + "}" + text[m.end(1):]
    return text


def random_plan(rng):
    """A #norm.plan, mostly well formed, whose fields need not suit the kernel:
    the lowering must refuse what it cannot generate, not trust the plan."""
    small = lambda: str(rng.choice([0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 256, 1024, -1,
                                    interesting_int(rng)]))
    fields = [f"kind = {rng.choice(['row_resident', 'cluster', 'streaming', 'sliced', 'off_chip'])}",
              f"threads = {rng.choice(['32', '64', '128', '256', '512', '1024', small()])}"]
    for name in ["vector_width", "chunks_per_thread", "column_slices", "row_groups",
                 "cluster_size", "shared_stages", "l2_prefetch_rows", "l2_prefetch_min_rows",
                 "sweeps_per_step", "rows_per_block", "num_stages", "min_blocks_per_sm",
                 "min_blocks"]:
        if rng.random() < 0.3:
            fields.append(f"{name} = {small()}")
    for name in ["warp_rows", "reread_staged", "bulk_stores", "holds_row",
                 "latency_bound_reductions", "persistent"]:
        if rng.random() < 0.2:
            fields.append(f"{name} = {rng.choice(['true', 'false'])}")
    return "#norm.plan<" + ", ".join(fields) + ">"


def mutate_epsilon(rng, text):
    return re.sub(r"epsilon = [^:}]+", "epsilon = " + rng.choice(
        ["0.0", "-1.0", "1.0e-300", "1.0e300", "0x7FF8000000000000", "1.0e-45", "5.0e-1"]),
        text, count=1)


def mutate_bytes(rng, text):
    if not text:
        return text
    i = rng.randrange(len(text))
    choice = rng.random()
    if choice < 0.4:
        return text[:i] + text[i + 1:]
    if choice < 0.8:
        return text[:i] + rng.choice("{}()<>[]%:,x?@#0123456789 \n\"") + text[i:]
    return text[:i] + text[i:i + 40] + text[i:]


def splice(rng, text, other):
    """Lines of another program pasted into this one."""
    a, b = text.split("\n"), other.split("\n")
    if len(b) < 2:
        return text
    start = rng.randrange(len(b))
    piece = b[start:start + rng.randint(1, 6)]
    at = rng.randrange(len(a) + 1)
    return "\n".join(a[:at] + piece + a[at:])


PROGRAM_MUTATIONS = [mutate_integer, mutate_dimension, mutate_element_type, mutate_keyword,
                     mutate_lines, mutate_attribute, mutate_epsilon, mutate_bytes]


def mutate_program(rng, text, corpus):
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        if rng.random() < 0.05:
            text = splice(rng, text, rng.choice(corpus))
        else:
            text = rng.choice(PROGRAM_MUTATIONS)(rng, text)
    return text


# ---------------------------------------------------------------------------
# Mutations of JSON (tuning tables, manifests)
# ---------------------------------------------------------------------------

def random_json_leaf(rng):
    return rng.choice([interesting_int(rng), -1, 0, "M", "", "x", None, True, False, 1.5,
                       [], {}, {"ceildiv": ["M", 0]}, {"min": ["M"]}, {"lt": ["M", "M"]},
                       {"rem": ["M", -3]}, [1, 2, 3], "bf16", "f64"])


def json_paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, path + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_paths(v, path + (i,))


def mutate_json(rng, value):
    """One structural change at a random place: a leaf replaced, a key
    removed or added, a list element removed or duplicated, or a subtree
    nested deeper."""
    paths = list(json_paths(value))
    path = rng.choice(paths)
    if not path:
        return random_json_leaf(rng) if rng.random() < 0.1 else value
    parent = value
    for p in path[:-1]:
        parent = parent[p]
    key = path[-1]
    choice = rng.random()
    if choice < 0.45:
        if isinstance(parent[key], int) and not isinstance(parent[key], bool) \
                and rng.random() < 0.6:
            parent[key] = interesting_int(rng)
        else:
            parent[key] = random_json_leaf(rng)
    elif choice < 0.65:
        del parent[key]
    elif choice < 0.8 and isinstance(parent, list):
        parent.insert(key, json.loads(json.dumps(parent[key])))
    elif choice < 0.9 and isinstance(parent, dict):
        parent[rng.choice(["n", "kernel", "grid", "when", "params", "block", "cluster",
                           "shape", "dtype", "extra", "buffer", "rank"])] = random_json_leaf(rng)
    else:
        parent[key] = [parent[key]] if rng.random() < 0.5 else {"min": [parent[key], "M"]}
    return value


def mutate_json_text(rng, text):
    try:
        value = json.loads(text)
    except ValueError:
        return mutate_bytes(rng, text)
    for _ in range(rng.choice([1, 1, 2, 4])):
        value = mutate_json(rng, value)
    out = json.dumps(value)
    if rng.random() < 0.05:
        out = mutate_bytes(rng, out)
    if rng.random() < 0.02:
        depth = rng.choice([20, 100, 10000])
        out = "[" * depth + out + "]" * depth
    return out


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------

def random_options(rng, options):
    """`--name=value` strings for a random subset of `options` ({name: type})."""
    chosen = []
    for name in rng.sample(sorted(options), k=min(len(options), rng.choice([0, 1, 1, 2, 3]))):
        kind = options[name]
        if name == "chip":
            value = rng.choice(CHIPS)
        elif name == "features":
            value = rng.choice(FEATURES)
        elif name == "tuning-table":
            value = rng.choice(["none", "/nonexistent.json",
                                os.path.join(ROOT, "tuning", "h200.json")])
        elif kind in ("long", "int", "uint", "ulong", "number"):
            value = str(interesting_int(rng))
        elif kind == "bool" or kind is None:
            value = rng.choice(["true", "false", "2"])
        else:
            value = rng.choice(["", "x", "isa", "bin"])
        chosen.append(f"{name}={value}")
    return chosen


def parse_help(text, wanted):
    """{pass or pipeline: {option: type}} for the names in `wanted`, from
    norm-opt --help."""
    found, current = {}, None
    for line in text.splitlines():
        m = re.match(r"^      --([\w-]+)\s", line)
        if m:
            current = m.group(1) if m.group(1) in wanted else None
            if current:
                found[current] = {}
            continue
        m = re.match(r"^        --([\w-]+)(?:=<(\w+)>)?\s", line)
        if m and current:
            found[current][m.group(1)] = m.group(2)
    return found


class Tools:
    def __init__(self, build):
        self.build = os.path.abspath(build)
        self.opt = os.path.join(self.build, "bin", "norm-opt")
        self.compile = os.path.join(self.build, "bin", "norm-compile")
        self.bundle_check = os.path.join(self.build, "runtime", "norm-bundle-check")
        self.capi = os.path.join(self.build, "lib", "libNormCAPI.so")
        for tool in (self.opt, self.compile):
            if not os.path.exists(tool):
                sys.exit(f"norm_fuzz: {tool} is missing; build first")
        help_text = subprocess.run([self.opt, "--help"], capture_output=True, text=True).stdout
        self.pass_options = parse_help(help_text, set(OPT_PASSES) | set(OPT_PIPELINES))
        help_text = subprocess.run([self.compile, "--help"], capture_output=True,
                                   text=True).stdout
        self.compile_options = {}
        for line in help_text.splitlines():
            m = re.match(r"^  --([\w-]+)(?:=<(\w+)>)?\s", line)
            if m and m.group(1) not in ("help", "help-list", "version", "print-ptx"):
                self.compile_options[m.group(1)] = m.group(2)


# Set by --sanitized: AddressSanitizer reserves terabytes of address space
# for its shadow, so the children get no address-space limit.
SANITIZED = False


def limit_resources():
    """In the child: 4 GiB of address space (not under --sanitized), no core
    files."""
    if not SANITIZED:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def sanitizer_environment():
    """What the children of a --sanitized run need: the ASan and UBSan
    runtimes preloaded (Python loads the instrumented C API and runtime
    through ctypes), every report fatal, no leak checking, and LLVM's
    allocator poisoning ignored: its headers poison memory in norm's
    instrumented code that the uninstrumented LLVM libraries then use."""
    runtimes = []
    for name in ("libasan.so", "libubsan.so"):
        path = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True,
                              text=True).stdout.strip()
        if not os.path.isabs(path):
            sys.exit(f"norm_fuzz: --sanitized needs gcc's {name}")
        runtimes.append(path)
    return {"LD_PRELOAD": ":".join(runtimes),
            "ASAN_OPTIONS": "detect_leaks=0:allow_user_poisoning=0:"
                            "detect_container_overflow=0:abort_on_error=1",
            "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1:abort_on_error=1"}


def run_tool(argv, timeout, env=None):
    """(finding or None, output) for one run of argv."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace",
                           timeout=timeout, preexec_fn=limit_resources, env=env)
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"")
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        return f"hang (over {timeout} s)", out[-4000:]
    out = r.stdout[-2000:] + r.stderr[-6000:]
    if r.returncode < 0:
        return f"signal {signal.Signals(-r.returncode).name}", out
    if r.returncode not in (0, 1):
        return f"exit {r.returncode}", out
    for marker in CRASH_MARKERS:
        if marker in r.stderr:
            return f"'{marker}' in its output", out
    return None, out


def case_opt(rng, tools, corpus, work):
    source = os.path.join(work, "input.mlir")
    with open(source, "w") as f:
        f.write(mutate_program(rng, rng.choice(corpus["programs"]), corpus["programs"]))
    argv = [tools.opt, source, "-o", os.devnull]
    if rng.random() < 0.4:
        name = rng.choice(OPT_PIPELINES)
        steps = [(name, tools.pass_options.get(name, {}))]
    else:
        steps = [(name, tools.pass_options.get(name, {}))
                 for name in rng.sample(OPT_PASSES, k=rng.choice([1, 1, 2, 3]))]
        if rng.random() < 0.3:
            argv.append(rng.choice(UPSTREAM_STEPS))
    for name, options in steps:
        chosen = random_options(rng, options)
        argv.append(f"--{name}" + (f"={' '.join(chosen)}" if chosen else ""))
    if rng.random() < 0.2:
        argv.append("--verify-each")
    return argv, None


def case_compile(rng, tools, corpus, work):
    source = os.path.join(work, "input.mlir")
    text = rng.choice(corpus["user_programs"])
    if rng.random() < 0.7:
        text = mutate_program(rng, text, corpus["programs"])
    with open(source, "w") as f:
        f.write(text)
    argv = [tools.compile, source, "-o", os.path.join(work, "bundle"), "--quiet"]
    argv += ["--" + o for o in random_options(rng, tools.compile_options)]
    return argv, None


def case_table(rng, tools, corpus, work):
    table = os.path.join(work, "table.json")
    with open(table, "w") as f:
        f.write(mutate_json_text(rng, rng.choice(corpus["tables"])))
    source = os.path.join(work, "input.mlir")
    with open(source, "w") as f:
        f.write(rng.choice(corpus["user_programs"]))
    if rng.random() < 0.5:
        argv = [tools.compile, source, "-o", os.path.join(work, "bundle"), "--quiet",
                f"--tuning-table={table}"]
    else:
        argv = [tools.opt, source, "-o", os.devnull,
                f"--norm-to-gpu=tuning-table={table}"]
    return argv, None


def case_capi(rng, tools, corpus, work):
    source = os.path.join(work, "input.mlir")
    text = rng.choice(corpus["cpu_programs"] if rng.random() < 0.5 else corpus["user_programs"])
    with open(source, "w") as f:
        f.write(mutate_program(rng, text, corpus["programs"]))
    options = " ".join(random_options(rng, tools.pass_options.get("norm-to-ptx", {})))
    job = os.path.join(work, "job.json")
    with open(job, "w") as f:
        json.dump({"source": source, "options": options, "rows": rng.choice([0, 1, 3, 5])}, f)
    env = dict(os.environ, NORM_CAPI_LIB=tools.capi,
               PYTHONPATH=os.path.join(ROOT, "python"))
    argv = [sys.executable, os.path.abspath(__file__), "--capi-child", job]
    return argv, env


def case_manifest(rng, tools, corpus, work):
    if not os.path.exists(tools.bundle_check):
        return None
    name, manifest, ptx = rng.choice(corpus["bundles"])
    bundle = os.path.join(work, "bundle")
    os.makedirs(bundle, exist_ok=True)
    with open(os.path.join(bundle, "manifest.json"), "w") as f:
        f.write(mutate_json_text(rng, manifest))
    with open(os.path.join(bundle, "kernels.ptx"), "w") as f:
        f.write(ptx if rng.random() < 0.95 else "")
    rows = [str(rng.choice([m for m in INTERESTING_INTS if 0 <= m < 2**40]))
            for _ in range(3)]
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    # Both loaders must give the same verdict (load, or refuse with an
    # error): a manifest one accepts and the other refuses exits 3.
    argv = ["/bin/sh", "-c",
            '"$1" "$2" $3 $4 $5; c=$?; [ $c -gt 1 ] && exit $c; '
            '"$6" "$7" --manifest-child "$2" $3 $4 $5; p=$?; [ $p -gt 1 ] && exit $p; '
            '[ $c -ne $p ] && { echo "the loaders disagree: C++ $c, Python $p"; exit 3; }; '
            'exit $c',
            "sh", tools.bundle_check, bundle, *rows, sys.executable,
            os.path.abspath(__file__)]
    return argv, env


TARGETS = {"opt": case_opt, "compile": case_compile, "table": case_table,
           "capi": case_capi, "manifest": case_manifest}


# ---------------------------------------------------------------------------
# Children: the in-process targets, run in a process of their own
# ---------------------------------------------------------------------------

def capi_child(job_path):
    """Compiles a program through the C API and, if it is a CPU program,
    runs every function on zero-filled buffers. Exit 0 or 1 (a clean
    CompileError, or a refusal of the arguments); anything else escapes."""
    import ctypes
    import numpy as np
    from norm_mlir import compiler
    from norm_mlir.cpu import CpuProgram, _ELEMENT_DTYPES
    with open(job_path) as f:
        job = json.load(f)
    with open(job["source"]) as f:
        source = f.read()
    lib = compiler._library()
    bundle = compiler._Bundle()
    lib.mlirNormCompile(source.encode(), b"fuzz input", job["options"].encode(),
                        ctypes.byref(bundle))
    lib.mlirNormBundleDestroy(ctypes.byref(bundle))
    try:
        program = CpuProgram(source)
    except compiler.CompileError:
        return 1
    for name in re.findall(r"func\.func @([\w.$-]+)", source):
        try:
            types = program.argument_types(name)
        except RuntimeError:
            continue
        arrays = []
        for memref in types:
            m = re.fullmatch(r"memref<((?:[?\d]+x)*)(\w+)(?:,.*)?>", memref)
            if not m or m.group(2) not in _ELEMENT_DTYPES:
                arrays = None
                break
            shape = [job["rows"] if d == "?" else int(d) for d in m.group(1).split("x")[:-1]]
            if any(d > 1 << 20 for d in shape) or np.prod(shape, dtype=np.float64) > 1 << 24:
                arrays = None
                break
            arrays.append(np.zeros(shape, dtype=_ELEMENT_DTYPES[m.group(2)]))
        if arrays is None:
            continue
        try:
            program.run(name, *arrays)
        except (ValueError, TypeError, RuntimeError):
            pass
    return 0


def manifest_child(bundle, rows):
    """Loads a bundle with the Python loader and evaluates every launch the
    way the launcher does for each M. BundleError is a clean refusal."""
    from norm_mlir import load_bundle
    from norm_mlir.bundle import BundleError, evaluate
    try:
        loaded = load_bundle(bundle)
        for function in loaded.functions.values():
            for m in rows:
                for name in function.buffers:
                    function.buffer_shape(name, m)
                for launch, _ in function.check_grids(m):
                    for param in launch["params"]:
                        if "value" in param:
                            evaluate(param["value"], m)
    except BundleError:
        return 1
    return 0


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def read_corpus():
    def texts(folder, suffix):
        path = os.path.join(CORPUS, folder)
        out = []
        for name in sorted(os.listdir(path)):
            if name.endswith(suffix):
                with open(os.path.join(path, name)) as f:
                    out.append(f.read())
        return out
    programs = texts("programs", ".mlir")
    bundles = []
    bundle_root = os.path.join(CORPUS, "bundles")
    for name in sorted(os.listdir(bundle_root)):
        with open(os.path.join(bundle_root, name, "manifest.json")) as f:
            manifest = f.read()
        with open(os.path.join(bundle_root, name, "kernels.ptx")) as f:
            ptx = f.read()
        bundles.append((name, manifest, ptx))
    return {"programs": programs,
            "user_programs": [p for p in programs if re.search(r"norm\.(rms|layer)_norm", p)
                              and "memref" not in p],
            "cpu_programs": [p for p in programs if "bufferization.to_tensor" in p],
            "tables": texts("tables", ".json"), "bundles": bundles}


def save_finding(out, index, target, what, argv, env, work, output):
    """Copies the case's files (its work folder) into <out>/<index> with
    every path into the work folder pointed at the copy, and writes
    finding.txt (target, what happened, command, output) and replay.json
    (the command and the environment it ran with) beside them."""
    folder = os.path.abspath(os.path.join(out, f"{index:04d}"))
    shutil.copytree(work, folder, dirs_exist_ok=True)
    moved = lambda text: text.replace(work, folder)  # noqa: E731
    for directory, _, names in os.walk(folder):
        for name in names:
            if name.endswith((".json", ".mlir")):
                path = os.path.join(directory, name)
                with open(path, errors="replace") as f:
                    text = f.read()
                with open(path, "w") as f:
                    f.write(moved(text))
    argv = [moved(a) for a in argv]
    extra = {k: v for k, v in (env or {}).items() if os.environ.get(k) != v}
    with open(os.path.join(folder, "replay.json"), "w") as f:
        json.dump({"argv": argv, "env": extra}, f, indent=1)
    with open(os.path.join(folder, "finding.txt"), "w") as f:
        f.write(f"target: {target}\nwhat: {what}\ncommand: {' '.join(argv)}\n\n{output}\n")
    return folder


def fuzz(args):
    tools = Tools(args.build)
    corpus = read_corpus()
    rng = random.Random(args.seed)
    targets = args.targets.split(",")
    deadline = time.monotonic() + args.seconds
    runs, findings, counts = 0, 0, {t: 0 for t in targets}
    os.makedirs(args.out, exist_ok=True)

    def finish(future, target, argv, env, work):
        nonlocal findings
        what, output = future.result()
        if what:
            findings += 1
            folder = save_finding(args.out, findings, target, what, argv, env, work, output)
            print(f"FINDING {findings} ({target}, {what}): {folder}", flush=True)
            print("  " + "\n  ".join(output.strip().splitlines()[:6]), flush=True)
        shutil.rmtree(work)

    # Cases are drawn in order on this thread (the sequence depends on the
    # seed alone) and run on `jobs` threads, each waiting on its process.
    with tempfile.TemporaryDirectory() as scratch, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        pending = []
        while time.monotonic() < deadline and (args.runs <= 0 or runs < args.runs):
            target = rng.choice(targets)
            work = os.path.join(scratch, str(runs))
            os.makedirs(work)
            case = TARGETS[target](rng, tools, corpus, work)
            runs += 1
            if case is None:
                shutil.rmtree(work)
                continue
            argv, env = case
            counts[target] += 1
            pending.append((pool.submit(run_tool, argv, args.timeout, env), target, argv,
                            env, work))
            while len(pending) >= 2 * args.jobs:
                finish(*pending.pop(0))
        for item in pending:
            finish(*item)
    summary = ", ".join(f"{t} {n}" for t, n in counts.items())
    print(f"norm_fuzz: {runs} inputs ({summary}) in {args.seconds} s at seed {args.seed}: "
          f"{findings} findings")
    return 1 if findings else 0


def seed_corpus():
    """Rebuilds fuzz/corpus/programs from the repository's examples, lit
    inputs and every split of the lit tests (their check lines dropped), and
    the CPU programs the Python package runs."""
    out = os.path.join(CORPUS, "programs")
    os.makedirs(out, exist_ok=True)
    count = 0

    def keep(name, text):
        nonlocal count
        text = "\n".join(line for line in text.split("\n")
                         if not line.lstrip().startswith("//")).strip() + "\n"
        if "func.func" not in text and "module" not in text:
            return
        with open(os.path.join(out, name + ".mlir"), "w") as f:
            f.write(text)
        count += 1
    for folder in ("examples", "test/Target/Inputs"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if name.endswith(".mlir"):
                with open(os.path.join(ROOT, folder, name)) as f:
                    keep(folder.replace("/", "_") + "_" + name[:-5], f.read())
    for folder in ("test/Dialect", "test/Transforms", "test/Conversion", "test/Target"):
        for name in sorted(os.listdir(os.path.join(ROOT, folder))):
            if not name.endswith(".mlir"):
                continue
            with open(os.path.join(ROOT, folder, name)) as f:
                parts = f.read().split("// -----")
            for i, part in enumerate(parts):
                keep(f"{folder.split('/')[1]}_{name[:-5]}_{i}", part)
    sys.path.insert(0, os.path.join(ROOT, "python"))
    from norm_mlir.cpu import cpu_program_text
    for kind in ("rms_fwd", "rms_bwd", "ln_fwd", "ln_bwd"):
        for dtype, weight in (("bf16", "f32"), ("f32", "f32"), ("f16", None)):
            keep(f"cpu_{kind}_{dtype}_{weight}", cpu_program_text(kind, 64, dtype, weight))
    print(f"{count} programs in {out}")


def replay(args):
    """Reruns a saved finding (replay.json) and says whether it still is
    one: exit 1 if so, else 0."""
    with open(os.path.join(args.replay, "replay.json")) as f:
        case = json.load(f)
    print(" ".join(case["argv"]))
    what, output = run_tool(case["argv"], args.timeout, dict(os.environ, **case["env"]))
    print(output.strip())
    print(f"norm_fuzz: {what}" if what else "norm_fuzz: no longer a finding")
    return 1 if what else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--runs", type=int, default=0, help="stop after this many inputs (0: none)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    p.add_argument("--timeout", type=float, default=30,
                   help="seconds one input may take before it counts as a hang")
    p.add_argument("--targets", default=",".join(TARGETS))
    p.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "norm-fuzz"))
    p.add_argument("--seed-corpus", action="store_true")
    p.add_argument("--replay")
    p.add_argument("--sanitized", action="store_true",
                   help="--build is instrumented with AddressSanitizer and UBSan "
                        "(-fsanitize=address,undefined): their reports are findings")
    p.add_argument("--print-sanitizer-environment", action="store_true",
                   help="print what --sanitized sets, a KEY=VALUE line each "
                        "(test/sanitized-compiler.sh runs the other checks with it)")
    p.add_argument("--capi-child", help=argparse.SUPPRESS)
    p.add_argument("--manifest-child", help=argparse.SUPPRESS)
    p.add_argument("rows", nargs="*", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.capi_child:
        return capi_child(args.capi_child)
    if args.manifest_child:
        return manifest_child(args.manifest_child, args.rows)
    if args.print_sanitizer_environment:
        for key, value in sanitizer_environment().items():
            print(f"{key}={value}")
        return 0
    if args.sanitized:
        global SANITIZED
        SANITIZED = True
        os.environ.update(sanitizer_environment())
    if args.seed_corpus:
        return seed_corpus()
    if args.replay:
        return replay(args)
    unknown = set(args.targets.split(",")) - set(TARGETS)
    if unknown:
        p.error(f"unknown targets {sorted(unknown)}; known: {sorted(TARGETS)}")
    return fuzz(args)


if __name__ == "__main__":
    sys.exit(main())
