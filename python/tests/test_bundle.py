"""Bundle loading, size expressions and signature checks (no GPU needed)."""

import json
import os
import subprocess

import pytest

from norm_mlir import BundleError, load_bundle, program_text
from norm_mlir.bundle import evaluate

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("NORM_BUILD_DIR", os.path.join(ROOT, "build"))
COMPILER = os.path.join(BUILD, "bin", "norm-compile")


def compile_bundle(tmp_path, kind, n=256, dtype="bf16", flags=(), **kwargs):
    src = tmp_path / f"{kind}.mlir"
    src.write_text(program_text(kind, n, dtype, **kwargs))
    out = tmp_path / kind
    subprocess.run([COMPILER, str(src), "-o", str(out), "--quiet", *flags], check=True)
    return load_bundle(str(out))


def param_buffers(launch):
    """The buffers a launch passes, in order (their aligned pointers or
    descriptors; sizes left out)."""
    return [p["buffer"] for p in launch["params"] if "buffer" in p]


def set_main_launch_field(bundle_dir, key, value):
    """Rewrites one field of the first launch in a bundle's manifest."""
    manifest = bundle_dir / "manifest.json"
    desc = json.loads(manifest.read_text())
    desc["functions"][0]["launches"][0][key] = value
    manifest.write_text(json.dumps(desc))


def test_evaluate_expressions():
    assert evaluate(7, 100) == 7
    assert evaluate("M", 100) == 100
    assert evaluate({"ceildiv": ["M", 32]}, 100) == 4
    assert evaluate({"ceildiv": ["M", 32]}, 0) == 0
    # A split's partial rows: ceil(M / max(min(ceil(M / 264), 64), 1)), none
    # for M = 0.
    partials = {"ceildiv": ["M", {"max": [{"min": [{"ceildiv": ["M", 264]}, 64]}, 1]}]}
    assert evaluate(partials, 4097) == 257
    assert evaluate(partials, 32768) == 512
    assert evaluate(partials, 3) == 3
    assert evaluate(partials, 0) == 0
    assert evaluate({"max": [2, "M"]}, 1) == 2
    assert evaluate({"lt": ["M", 128]}, 127) == 1
    assert evaluate({"lt": ["M", 128]}, 128) == 0
    assert evaluate({"ge": ["M", 128]}, 128) == 1
    both = {"and": [{"lt": ["M", 512]}, {"ge": ["M", 2]}]}
    assert [evaluate(both, m) for m in (1, 2, 511, 512)] == [0, 1, 1, 0]
    either = {"or": [{"lt": ["M", 256]}, {"ge": ["M", 6144]}]}
    assert [evaluate(either, m) for m in (255, 256, 6143, 6144)] == [1, 0, 0, 1]
    # M a multiple of four (a remainder below 1): the whole-block versions.
    whole = {"lt": [{"rem": ["M", 4]}, 1]}
    assert [evaluate(whole, m) for m in (0, 4096, 4097, 4099)] == [1, 1, 0, 0]
    with pytest.raises(BundleError):
        evaluate({"rem": ["M", 0]}, 5)
    with pytest.raises(BundleError):
        evaluate("N", 3)
    with pytest.raises(BundleError):
        evaluate({"min": ["M"]}, 3)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_rms_bwd_bundle_signature(tmp_path):
    # The split alone (test_short_rows_version_the_backward: the versions).
    bundle = compile_bundle(tmp_path, "rms_bwd", flags=["--short-rows=0"])
    f = bundle.function()
    assert f.name == "rms_bwd"
    assert [a["dtype"] for a in f.arguments] == ["bf16", "bf16", "f32", "bf16"]
    assert [l["kernel"] for l in f.launches] == ["norm_fused", "norm_combine"]
    m = f.bind_rows([[1000, 256], [1000, 256], [1000], [256]])
    assert m == 1000
    # One f32 partial row per split of the rows and one block per partial
    # row, then dx and dw. M is dynamic: at most 256 rows per partial, fewer
    # when M is small so that there are at least 2112 partial rows (16
    # one-warp blocks per SM of 132), but at least four rows each while that
    # leaves 528 partial rows: 1000 rows -> min(4, ceil(1000 / 528)) = 2
    # rows each -> 500 partial rows; 4096 rows -> 4 rows each.
    workspace = [b for b in f.buffers if b not in f.results]
    assert len(workspace) == 1
    rows, cols = f.buffer_shape(workspace[0], m)
    per_partial = max(min(4, -(-1000 // 528)), min(256, -(-1000 // 2112)))
    assert (per_partial, -(-1000 // per_partial)) == (2, 500)
    assert (rows, cols) == (-(-1000 // per_partial), 256)
    assert f.grid(f.launches[0], m) == (rows, 1)
    assert tuple(f.buffer_shape(workspace[0], 4096)) == (1024, 256)
    # Up to 2112 x 16 rows, one wave of 2112 (split 16); past them at most
    # 4224 partial rows (max_partials: the 32 one-warp blocks an SM holds):
    # 65536 rows -> 16 rows each -> 4096 partial rows; 1200000 rows ->
    # ceil(1200000 / 4224) = 285 rows each -> 4211 partial rows (not 36
    # waves of 2112 partial rows of 16).
    assert tuple(f.buffer_shape(workspace[0], 32768)) == (2048, 256)
    assert tuple(f.buffer_shape(workspace[0], 65536)) == (4096, 256)
    big = f.bind_rows([[1200000, 256], [1200000, 256], [1200000], [256]])
    assert tuple(f.buffer_shape(workspace[0], big)) == (-(-1200000 // 285), 256)
    assert -(-1200000 // 285) == 4211
    # No rows: no partial rows and no blocks.
    assert tuple(f.buffer_shape(workspace[0], 0)) == (0, 256)
    assert f.grid(f.launches[0], 0) == (0, 1)
    assert ".target sm_90" in bundle.ptx


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_short_rows_version_the_backward(tmp_path):
    # N = 1024 bf16: below 512 rows (chooseShortRowsLimit) the row kernel
    # (dx) and a whole-column kernel (dw, its programmatic dependent) run,
    # at one row (chooseSingleBlockRows) one block of the fused kernel, cast
    # to one row; from 512 on the fused kernel and the combine. No row takes
    # the pair, whose row kernel has no blocks and whose column kernel
    # writes the zero sums.
    f = compile_bundle(tmp_path, "rms_bwd", n=1024).function()
    kernels = [l["kernel"] for l in f.launches]
    assert kernels == ["norm_fused", "norm_fused_0", "norm_columns", "norm_fused_1",
                       "norm_combine"]
    short, long = {"lt": ["M", 512]}, {"ge": ["M", 512]}
    one = {"and": [short, {"and": [{"ge": ["M", 1]}, {"lt": ["M", 2]}]}]}
    other = {"and": [short, {"or": [{"lt": ["M", 1]}, {"ge": ["M", 2]}]}]}
    assert [l["when"] for l in f.launches] == [one, other, other, long, long]
    assert [l["programmatic"] for l in f.launches] == [False, False, True, False, True]
    runs = lambda m: [l["kernel"] for l in f.launches if evaluate(l["when"], m)]
    assert runs(1) == ["norm_fused"]
    assert runs(0) == runs(2) == runs(511) == ["norm_fused_0", "norm_columns"]
    assert f.grid(f.launches[1], 0) == (0, 1)
    assert runs(512) == runs(100000) == ["norm_fused_1", "norm_combine"]
    # One block whatever M; the column kernel's grid is the columns' (4
    # lanes of 8 elements: 32 blocks of 32 columns); the row kernel's a
    # block per row.
    assert f.grid(f.launches[0], 0) == f.grid(f.launches[0], 1) == (1, 1)
    assert f.grid(f.launches[2], 3) == (32, 1)
    assert f.grid(f.launches[1], 300) == (300, 1)
    # Every version writes the same results.
    assert f.results == ["buf0", "buf1"]
    for launch in (f.launches[0], f.launches[1], f.launches[3]):
        assert param_buffers(launch)[4] == "buf0"
    # A condition that is not one is rejected when the bundle is read.
    set_main_launch_field(tmp_path / "rms_bwd", "when", {"lt": ["M"]})
    with pytest.raises(BundleError, match=r"manifest.functions\[0\].launches\[0\].when must be "
                                          r"an integer from 0, \"M\" or \{op: \[a, b\]\}"):
        load_bundle(str(tmp_path / "rms_bwd"))
    set_main_launch_field(tmp_path / "rms_bwd", "when", {"max": ["M", 2]})
    with pytest.raises(BundleError, match="bad when"):
        load_bundle(str(tmp_path / "rms_bwd"))


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_forward_rows_per_block_follow_m(tmp_path):
    # The forward's blocks take 2 rows each (N = 4096), but a short M gets a
    # block per row up to 8 rows per SM (1056 blocks): min(2, ceil(M / 1056))
    # rows a block.
    # (The staged kernel alone: test_forward_streams_short_rows has both.)
    f = compile_bundle(tmp_path, "rms_fwd", n=4096, stats=False,
                       flags=["--short-rows=0"]).function()
    main = f.launches[0]
    assert f.grid(main, 16) == (16, 1)
    assert f.grid(main, 1056) == (1056, 1)
    assert f.grid(main, 1057) == (-(-1057 // 2), 1)
    assert f.grid(main, 32768) == (16384, 1)
    assert f.grid(main, 0) == (0, 1)
    # Rows per block asked for are taken as they are.
    (tmp_path / "fixed").mkdir()
    fixed = compile_bundle(tmp_path / "fixed", "rms_fwd", n=4096, stats=False,
                           flags=["--rows-per-block=2", "--short-rows=0"]).function()
    assert fixed.grid(fixed.launches[0], 16) == (8, 1)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_blocks_cuda_cannot_launch_are_refused(tmp_path):
    compile_bundle(tmp_path, "rms_fwd", n=4096, stats=False)
    for block in (0, -256, 2048, 256.0, True):
        set_main_launch_field(tmp_path / "rms_fwd", "block", block)
        with pytest.raises(BundleError, match=r"launches\[0\].block must be an integer from 1 "
                                              r"to 1024, got"):
            load_bundle(str(tmp_path / "rms_fwd"))


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_grids_past_cuda_limits_are_refused(tmp_path):
    # Two rows a block at N = 4096 from 1057 rows: 2^32 + 2 rows need a
    # grid of 2^31 + 1 blocks, which a 32-bit launch parameter would cut to
    # one block over two of the rows; 2^32 - 2 rows fit the 2^31 - 1.
    f = compile_bundle(tmp_path, "rms_fwd", n=4096, stats=False,
                       flags=["--short-rows=0"]).function()
    f.check_grids(2**32 - 2)
    with pytest.raises(BundleError, match=r"M = 4294967298 rows need a launch of .* "
                       r"over 2147483649 x 1 blocks, past CUDA's grid limit"):
        f.check_grids(2**32 + 2)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_forward_streams_short_rows(tmp_path):
    # RMSNorm at N = 4096 streams at every M (blocks of 512 threads, no
    # shared memory): a row a block up to one wave of them (528 rows on 132
    # SMs), two rows a block from there.
    f = compile_bundle(tmp_path, "rms_fwd", n=4096, stats=False).function()
    two, one = f.launches
    assert two["when"] == {"ge": ["M", 529]}
    assert one["when"] == {"lt": ["M", 529]}
    for launch in (two, one):
        assert (launch["block"], launch["shared_bytes"]) == (512, 0)
    assert f.grid(one, 528) == (528, 1)
    assert f.grid(two, 529) == (265, 1)
    assert f.grid(two, 32768) == (16384, 1)
    # LayerNorm's forward at N = 4096 streams below 5M elements (1280 rows):
    # below 133 rows (a block an SM) with the weight and bias loaded with
    # the row, two rows a block from one wave of one-row blocks (529 rows),
    # four at 793-1056 rows (one wave of them where two-row blocks take
    # two), two again to 1279; the staged kernel from 1280 rows.
    (tmp_path / "ln").mkdir()
    ln = compile_bundle(tmp_path / "ln", "ln_fwd", n=4096, stats=False).function()
    two_late, four, two, preloaded, streamed, staged = ln.launches
    for m, launch in ((1, preloaded), (132, preloaded), (133, streamed), (528, streamed),
                      (529, two), (792, two), (793, four), (1056, four), (1057, two_late),
                      (1279, two_late), (1280, staged), (65536, staged)):
        assert ln.launches_at(m) == [launch], m
    assert staged["when"] == {"ge": ["M", 1280]}
    for launch in (two_late, four, two, preloaded, streamed):
        assert launch["shared_bytes"] == 0
    assert staged["shared_bytes"] > 0
    assert ln.grid(preloaded, 132) == (132, 1)
    assert ln.grid(streamed, 528) == (528, 1)
    assert ln.grid(two, 792) == (396, 1)
    assert ln.grid(four, 1056) == (264, 1)
    assert ln.grid(two_late, 1279) == (640, 1)
    # The forwards that write their statistics: RMSNorm's the same bands;
    # LayerNorm's two rows a block at N = 3072 only while their blocks (four
    # an SM at 40 registers) take one wave and a row a block (five an SM)
    # two: 661-1056 rows.
    (tmp_path / "stats").mkdir()
    rms = compile_bundle(tmp_path / "stats", "rms_fwd", n=4096).function()
    assert [launch["when"] for launch in rms.launches] == [
        {"ge": ["M", 529]}, {"lt": ["M", 529]}]
    (tmp_path / "ln3072").mkdir()
    ln = compile_bundle(tmp_path / "ln3072", "ln_fwd", n=3072).function()
    held = ln.launches[0]
    assert ln.grid(held, 1056) == (528, 1)
    for m, rows_held in ((660, False), (661, True), (1056, True), (1057, False)):
        assert (ln.launches_at(m)[0] is held) == rows_held, m


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_ln_bwd_combines_share_one_launch(tmp_path):
    # dW and dB are finished by one kernel: its parameters are both partial
    # buffers and both results, its grid the blocks of both (32 columns a
    # block each), its block the narrow-row size.
    bundle = compile_bundle(tmp_path, "ln_bwd", n=1024, flags=["--short-rows=0"])
    f = bundle.function()
    assert [l["kernel"] for l in f.launches] == ["norm_fused", "norm_combine"]
    combine = f.launches[1]
    params = param_buffers(combine)
    assert len(params) == 4
    assert params[1] in f.results and params[3] in f.results
    assert params[0] not in f.results and params[2] not in f.results
    m = f.bind_rows([[4097, 1024], [4097, 1024], [4097], [4097], [1024]])
    assert f.grid(combine, m) == (2 * 1024 // 32, 1)
    assert combine["block"] == 1024
    # The combine is a programmatic dependent launch of the split kernel
    # (PDL): it waits for it in the kernel, which signals its dependents.
    assert combine["programmatic"] is True
    assert f.launches[0]["programmatic"] is False
    assert "griddepcontrol.wait;" in bundle.ptx
    assert "griddepcontrol.launch_dependents;" in bundle.ptx
    set_main_launch_field(tmp_path / "ln_bwd", "programmatic", "yes")
    with pytest.raises(BundleError, match=r"programmatic must be true or false, got 'yes'"):
        load_bundle(str(tmp_path / "ln_bwd"))


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_signature_errors(tmp_path):
    f = compile_bundle(tmp_path, "ln_fwd").function()
    with pytest.raises(BundleError, match="takes 3 arguments"):
        f.bind_rows([[4, 256]])
    with pytest.raises(BundleError, match="dimension 1 must be 256"):
        f.bind_rows([[4, 128], [256], [256]])
    with pytest.raises(BundleError, match="must have rank 2"):
        f.bind_rows([[256], [256], [256]])
    rms = compile_bundle(tmp_path, "rms_bwd").function()
    with pytest.raises(BundleError, match="has 5 rows, but another argument has 4"):
        rms.bind_rows([[4, 256], [5, 256], [4], [256]])


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_kernels_take_pointers_and_sizes(tmp_path):
    # norm-compact-kernel-args: each buffer passes its aligned pointer, and
    # its dynamic size (M, or the workspace's partial rows) after it; the
    # PTX entry declares as many parameters.
    bundle = compile_bundle(tmp_path, "rms_bwd", flags=["--short-rows=0"])
    f = bundle.function()
    split, combine = f.launches
    workspace = next(b for b in f.buffers if b not in f.results)
    assert split["params"][:2] == [{"buffer": "arg0", "field": "aligned"},
                                   {"value": "M"}]
    # The weight (static shape) passes its pointer alone.
    weight = split["params"].index({"buffer": "arg3", "field": "aligned"})
    assert "buffer" in split["params"][weight + 1]
    sizes = [p["value"] for p in combine["params"] if "value" in p]
    assert len(sizes) == 1
    assert evaluate(sizes[0], 1000) == f.buffer_shape(workspace, 1000)[0]
    entry = bundle.ptx[bundle.ptx.index(".entry norm_combine("):]
    assert entry[:entry.index(")")].count(".param") == len(combine["params"])
    # A field other than the aligned pointer, or a malformed size, is
    # rejected when the bundle is read.
    set_main_launch_field(tmp_path / "rms_bwd", "params",
                          [{"buffer": "arg0", "field": "offset"}])
    with pytest.raises(BundleError, match=r"params\[0\].field must be one of 'aligned', got 'offset'"):
        load_bundle(str(tmp_path / "rms_bwd"))
    set_main_launch_field(tmp_path / "rms_bwd", "params", [{"value": {"max": ["M"]}}])
    with pytest.raises(BundleError, match=r"params\[0\].value must be an integer"):
        load_bundle(str(tmp_path / "rms_bwd"))


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_manifest_fields_of_the_wrong_kind_are_named(tmp_path):
    """A manifest with a field of the wrong type or range is a BundleError
    naming the field, whatever the field: before check_manifest, most such
    edits surfaced as a TypeError or KeyError from inside the loader."""
    compile_bundle(tmp_path, "ln_bwd")
    path = tmp_path / "ln_bwd" / "manifest.json"
    good = json.loads(path.read_text())

    def refused(edit, message):
        manifest = json.loads(json.dumps(good))
        edit(manifest)
        path.write_text(json.dumps(manifest))
        with pytest.raises(BundleError, match=message):
            load_bundle(str(tmp_path / "ln_bwd"))

    refused(lambda m: m.update(functions=3), r"manifest.functions must be a list, got 3")
    refused(lambda m: m.update(ptx=[1]), r"manifest.ptx must be a string")
    refused(lambda m: m["functions"][0]["arguments"][1].update(shape=["M", -1]),
            r"arguments\[1\].shape\[1\] must be a size")
    refused(lambda m: m["functions"][0]["arguments"][0].update(dtype="f64"),
            r"arguments\[0\].dtype must be one of 'bf16', 'f16', 'f32', 'f8e4m3fn', got 'f64'")
    refused(lambda m: m["functions"][0]["launches"][1].pop("kernel"),
            r"launches\[1\] lacks 'kernel'")
    refused(lambda m: m["functions"][0]["launches"][0].update(grid=2.5),
            r"launches\[0\].grid must be an integer")
    refused(lambda m: m["functions"][0].update(results=["buf9"]),
            r"returns unknown buffer 'buf9'")
    refused(lambda m: m["functions"].append(m["functions"][0]),
            r"two functions named 'ln_bwd'")

    # Every field replaced by values of other kinds: a BundleError or a
    # bundle that loads, never another exception.
    def fields(value, where=()):
        yield where
        children = value.items() if isinstance(value, dict) else (
            enumerate(value) if isinstance(value, list) else ())
        for key, child in children:
            yield from fields(child, where + (key,))

    others = [None, True, -1, 2**40, 1.5, "M", "", [], {}, ["M"], {"ceildiv": ["M", 0]}]
    for where in list(fields(good))[1:]:
        for other in others:
            manifest = json.loads(json.dumps(good))
            parent = manifest
            for key in where[:-1]:
                parent = parent[key]
            parent[where[-1]] = other
            path.write_text(json.dumps(manifest))
            try:
                f = load_bundle(str(tmp_path / "ln_bwd")).function()
                for m in (0, 1, 700, 5000):
                    f.check_grids(m)
            except BundleError:
                pass


def test_malformed_bundles(tmp_path):
    with pytest.raises(BundleError, match="no manifest.json"):
        load_bundle(str(tmp_path))
    (tmp_path / "manifest.json").write_text("{not json")
    with pytest.raises(BundleError, match="invalid JSON"):
        load_bundle(str(tmp_path))
    (tmp_path / "manifest.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(BundleError, match="not a norm kernel bundle"):
        load_bundle(str(tmp_path))
    (tmp_path / "manifest.json").write_text(json.dumps(
        {"format": "norm-kernel-bundle", "version": 1, "ptx": "k.ptx", "functions": []}))
    with pytest.raises(BundleError, match="PTX .* is missing"):
        load_bundle(str(tmp_path))


def test_program_text_rejects_bad_arguments():
    with pytest.raises(ValueError, match="unsupported dtype"):
        program_text("rms_fwd", 64, "float64")
    with pytest.raises(ValueError, match="N must be a positive integer"):
        program_text("rms_fwd", 0, "bf16")
    with pytest.raises(ValueError, match="eps must be positive"):
        program_text("rms_fwd", 64, "bf16", eps=0.0)
    with pytest.raises(ValueError, match="unknown op kind"):
        program_text("softmax", 64, "bf16")
    with pytest.raises(ValueError, match="stats=False is for the forwards"):
        program_text("ln_bwd", 64, "bf16", stats=False)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
@pytest.mark.parametrize("kind", ["rms_fwd", "ln_fwd"])
def test_inference_forward_bundle_returns_y_alone(tmp_path, kind):
    # Same arguments as the training forward, one result and no buffer for
    # the statistics (the kernel has no parameters for them either).
    (tmp_path / "train").mkdir()
    (tmp_path / "infer").mkdir()
    train = compile_bundle(tmp_path / "train", kind, stats=True).function()
    infer = compile_bundle(tmp_path / "infer", kind, stats=False).function()
    assert infer.arguments == train.arguments
    assert len(train.results) == (2 if kind == "rms_fwd" else 3)
    assert len(infer.results) == 1 and len(infer.buffers) == 1
    (buf,) = infer.buffers.values()
    assert buf["dtype"] == "bf16" and buf["shape"] == ["M", 256]
    assert len(param_buffers(infer.launches[0])) == len(
        param_buffers(train.launches[0])) - (len(train.results) - 1)


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
@pytest.mark.parametrize("kind", ["rms_fwd", "rms_bwd", "ln_fwd", "ln_bwd"])
@pytest.mark.parametrize("dtype", ["bf16", "f16", "f32"])
def test_every_program_compiles(tmp_path, kind, dtype):
    bundle = compile_bundle(tmp_path, kind, n=1000, dtype=dtype)
    assert ".entry norm_fused" in bundle.ptx


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_long_rows_launch_in_clusters(tmp_path):
    # Rows of 65536 bf16 (RMSNorm forward) are spread over clusters of 4
    # blocks: grid y is the cluster, compiled into the PTX.
    bundle = compile_bundle(tmp_path, "rms_fwd", n=65536)
    f = bundle.function()
    main = f.launches[0]
    assert main["cluster"] == 4
    assert f.grid(main, 100)[1] == 4
    assert ".reqnctapercluster 1, 4, 1" in bundle.ptx
    # Persistent: a cluster per row at most (grid M), rows strided by the
    # grid, which the launcher caps at the clusters that fit.
    assert main["persistent"] is True
    assert f.grid(main, 100)[0] == 100
    # A manifest asking for an impossible cluster is rejected on load, and
    # so is a persistent flag that is not a boolean.
    set_main_launch_field(tmp_path / "rms_fwd", "persistent", 1)
    with pytest.raises(BundleError, match="persistent must be true or false, got 1"):
        load_bundle(str(tmp_path / "rms_fwd"))
    set_main_launch_field(tmp_path / "rms_fwd", "persistent", True)
    set_main_launch_field(tmp_path / "rms_fwd", "cluster", 32)
    with pytest.raises(BundleError, match="cluster must be an integer from 1 to 16, got 32"):
        load_bundle(str(tmp_path / "rms_fwd"))


@pytest.mark.skipif(not os.path.exists(COMPILER), reason="norm-compile is not built")
def test_staged_rows_carry_dynamic_shared_memory(tmp_path):
    # Three rows of dy and x (N = 8192 bf16) staged in shared memory: 96 KB
    # of dynamic shared memory, over the 48 KB a kernel gets without the
    # opt-in the launcher performs; with dx stored by bulk copies, its two
    # row slots add 32 KB.
    # (launches[1]: the short version's row kernel; launches[0], its one
    # block at one row, keeps its row in registers.)
    bundle = compile_bundle(tmp_path, "rms_bwd", n=8192,
                            flags=["--shared-stages=3", "--bulk-stores=0"])
    assert bundle.function().launches[0]["shared_bytes"] == 0
    main = bundle.function().launches[1]
    assert main["shared_bytes"] == 3 * 2 * 8192 * 2
    (tmp_path / "bulk").mkdir()
    bulk = compile_bundle(tmp_path / "bulk", "rms_bwd", n=8192,
                          flags=["--shared-stages=3", "--bulk-stores=1"])
    assert bulk.function().launches[1]["shared_bytes"] == (3 * 2 + 2) * 8192 * 2
    assert "cp.async.bulk.global.shared::cta.bulk_group" in bulk.ptx
    assert ".extern .shared .align 16 .b8" in bundle.ptx
    # Without staging there is none.
    (tmp_path / "plain").mkdir()
    plain = compile_bundle(tmp_path / "plain", "rms_bwd", n=8192, flags=["--shared-stages=0"])
    assert plain.function().launches[1]["shared_bytes"] == 0
    # More than the chip has is rejected on load.
    set_main_launch_field(tmp_path / "rms_bwd", "shared_bytes", 300000)
    with pytest.raises(BundleError, match="shared_bytes must be an integer from 0 to 232448, got 300000"):
        load_bundle(str(tmp_path / "rms_bwd"))
