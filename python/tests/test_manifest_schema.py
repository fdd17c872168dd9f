"""The written manifest schema (docs/manifest.schema.json) against both
loaders: every bundle norm-compile writes is valid; on mutated manifests the
Python loader's structure check (norm_mlir.manifest) agrees with the schema
exactly, and the C++ runtime (norm-bundle-check) refuses whatever the schema
refuses. No GPU needed."""

import copy
import glob
import json
import os
import random
import subprocess

import pytest

from norm_mlir import program_text
from norm_mlir.manifest import BundleError, check_manifest

jsonschema = pytest.importorskip(
    "jsonschema", reason="jsonschema is not installed (scripts/test.sh installs it)")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("NORM_BUILD_DIR", os.path.join(ROOT, "build"))
COMPILER = os.path.join(BUILD, "bin", "norm-compile")
BUNDLE_CHECK = os.path.join(BUILD, "runtime", "norm-bundle-check")
SCHEMA_PATH = os.path.join(ROOT, "docs", "manifest.schema.json")


def _validator():
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    # The loaders read integers as JSON integers: 1.0 is not one (JSON
    # Schema's own "integer" would take it; the schema's description says so).
    checker = jsonschema.Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, v: isinstance(v, int) and not isinstance(v, bool))
    cls = jsonschema.validators.extend(jsonschema.Draft202012Validator,
                                       type_checker=checker)
    return cls(schema)


def schema_accepts(validator, manifest):
    try:
        return validator.is_valid(manifest)
    except RecursionError:
        return False


def python_accepts(manifest):
    try:
        check_manifest(manifest)
        return True
    except BundleError:
        return False


@pytest.fixture(scope="module")
def manifests(tmp_path_factory):
    """Manifests norm-compile writes now (each layout class and dtype), and
    the fuzzer's seed bundles."""
    if not os.path.exists(COMPILER):
        pytest.skip(f"no norm-compile at {COMPILER} (build the project)")
    out = tmp_path_factory.mktemp("bundles")
    found = {}
    # sm_80's RMSNorm backward at N = 65536 has block groups (zeroed
    # workspaces).
    for kind, n, dtype, chip in [("rms_fwd", 4096, "bf16", "sm_90"),
                                 ("ln_bwd", 1024, "f32", "sm_90"),
                                 ("rms_bwd", 65536, "bf16", "sm_90"),
                                 ("ln_fwd", 768, "f16", "sm_90"),
                                 ("rms_fwd", 131072, "bf16", "sm_90"),
                                 ("rms_bwd", 65536, "bf16", "sm_80")]:
        name = f"{kind}_{dtype}_{n}_{chip}"
        src = out / f"{name}.mlir"
        src.write_text(program_text(kind, n, dtype))
        subprocess.run([COMPILER, str(src), "-o", str(out / name), f"--chip={chip}",
                        "--quiet"], check=True)
        with open(out / name / "manifest.json") as f:
            found[name] = json.load(f)
    for path in sorted(glob.glob(os.path.join(ROOT, "fuzz", "corpus", "bundles", "*",
                                              "manifest.json"))):
        with open(path) as f:
            found[os.path.basename(os.path.dirname(path))] = json.load(f)
    return found


def test_every_written_manifest_is_valid(manifests):
    validator = _validator()
    for name, manifest in manifests.items():
        errors = list(validator.iter_errors(manifest))
        assert not errors, f"{name}: {errors[0].json_path}: {errors[0].message}"
        assert python_accepts(manifest), name


# Replacement values a mutation puts in place of a member: the types and
# ranges the schema tells apart.
REPLACEMENTS = [None, True, False, 0, 1, -1, 2, 17, 1024, 1025, 232448, 232449, 1.0,
                2.5, "", "M", "x", "aligned", "bf16", "f64", "norm-kernel-bundle", [],
                [1], [1, 2], [1, 2, 3], ["M", 4], {}, {"ceildiv": ["M", 4]},
                {"ceildiv": ["M"]}, {"pow": [1, 2]}, {"min": [1, 2], "max": [1, 2]},
                {"value": "M"}, {"value": -1}, {"buffer": "arg0"},
                {"buffer": "arg0", "field": "aligned"}, {"buffer": "arg0", "rank": 1},
                {"buffer": "arg0", "field": "x"}, {"buffer": 3, "rank": 0}]


def _paths(value, prefix=()):
    """Every member and element path of a JSON value."""
    yield prefix
    if isinstance(value, dict):
        for key, member in value.items():
            yield from _paths(member, prefix + (key,))
    elif isinstance(value, list):
        for i, element in enumerate(value):
            yield from _paths(element, prefix + (i,))


def _mutate(rng, manifest):
    mutated = copy.deepcopy(manifest)
    for _ in range(rng.choice([1, 1, 2])):
        paths = [p for p in _paths(mutated) if p]
        path = rng.choice(paths)
        parent = mutated
        for step in path[:-1]:
            parent = parent[step]
        action = rng.random()
        if action < 0.15 and isinstance(parent, dict):
            del parent[path[-1]]
        elif action < 0.2 and isinstance(parent, dict):
            parent["extra"] = rng.choice(REPLACEMENTS)
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return mutated


def _single_mutations(manifest):
    """Each member's value replaced by each of REPLACEMENTS, and each object
    member removed, at the first path of each shape (list indices read as
    one): every field the schema constrains, with every kind of value."""
    seen = set()
    for path in _paths(manifest):
        if not path:
            continue
        shape = tuple("*" if isinstance(step, int) else step for step in path)
        if shape in seen:
            continue
        seen.add(shape)
        for replacement in REPLACEMENTS + ["<delete>"]:
            mutated = copy.deepcopy(manifest)
            parent = mutated
            for step in path[:-1]:
                parent = parent[step]
            if replacement == "<delete>":
                if not isinstance(parent, dict):
                    continue
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(replacement)
            yield path, mutated


def test_python_loader_agrees_with_the_schema_field_by_field(manifests):
    validator = _validator()
    disagreements = []
    for name in ["rms_bwd_bf16_65536_sm_90", "ln_fwd_f16_768_sm_90", "rms_fwd_bf16_1024",
                 "rms_bwd_bf16_65536_sm_80"]:
        for path, mutated in _single_mutations(manifests[name]):
            schema, python = schema_accepts(validator, mutated), python_accepts(mutated)
            if schema != python:
                disagreements.append((name, path, schema, python))
    assert not disagreements, disagreements[:5]


def test_python_loader_agrees_with_the_schema(manifests):
    validator = _validator()
    rng = random.Random(7)
    names = sorted(manifests)
    disagreements = []
    refused = 0
    for _ in range(3000):
        name = rng.choice(names)
        mutated = _mutate(rng, manifests[name])
        schema, python = schema_accepts(validator, mutated), python_accepts(mutated)
        refused += not schema
        if schema != python:
            disagreements.append((name, schema, python, json.dumps(mutated)[:300]))
    assert not disagreements, disagreements[:3]
    # The mutations reach both verdicts.
    assert 300 < refused < 2700


@pytest.mark.skipif(not os.path.exists(BUNDLE_CHECK),
                    reason="no norm-bundle-check (the C++ runtime is not built)")
def test_cpp_loader_refuses_what_the_schema_refuses(manifests, tmp_path):
    validator = _validator()
    rng = random.Random(11)
    names = sorted(n for n in manifests if "_131072" not in n)
    checked = 0
    for i in range(400):
        mutated = _mutate(rng, manifests[rng.choice(names)])
        if schema_accepts(validator, mutated):
            continue
        bundle = tmp_path / f"b{i}"
        bundle.mkdir()
        (bundle / "manifest.json").write_text(json.dumps(mutated))
        (bundle / "kernels.ptx").write_text("//\n")
        result = subprocess.run([BUNDLE_CHECK, str(bundle), "1000"],
                                capture_output=True, text=True)
        assert result.returncode == 1, (json.dumps(mutated)[:300], result.returncode,
                                        result.stdout[-300:], result.stderr[-300:])
        checked += 1
    assert checked > 40
