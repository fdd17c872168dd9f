"""Compiling through the C API and the bundle cache (no GPU needed)."""

import os

import pytest

from norm_mlir import compiler
from norm_mlir.compiler import CompileError, cache_key, compile_program
from norm_mlir.programs import op_program

pytestmark = pytest.mark.skipif(compiler._library() is None,
                                reason="libNormCAPI.so is not built")


def test_compile_and_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("rms_fwd", 128, "bf16", "bf16", eps=1e-6, offset=0.0)
    bundle = compile_program(program)
    assert ".entry norm_fused" in bundle.ptx
    entries = os.listdir(tmp_path)
    assert len(entries) == 1
    # A second call is served by the cache: no compiler needed.
    monkeypatch.setattr(compiler, "_library", lambda: None)
    again = compile_program(program)
    assert again.ptx == bundle.ptx
    assert os.listdir(tmp_path) == entries
    # A different program (another eps) is another entry, and without a
    # compiler that is a clear error.
    with pytest.raises(CompileError, match="no compiled bundle"):
        compile_program(op_program("rms_fwd", 128, "bf16", "bf16", eps=1e-5, offset=0.0))


def test_cache_entries_of_another_compiler_are_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("rms_fwd", 128, "bf16", "bf16", eps=1e-6, offset=0.0)
    bundle = compile_program(program)
    (entry,) = os.listdir(tmp_path)
    built_by = tmp_path / entry / "compiler-id"
    assert built_by.read_text().strip() == compiler.compiler_identity()
    # An entry written by another build of the compiler, with other kernels:
    # this compiler rebuilds it instead of serving it.
    built_by.write_text("another-build\n")
    (tmp_path / entry / "kernels.ptx").write_text("// stale\n")
    again = compile_program(program)
    assert again.ptx == bundle.ptx
    assert built_by.read_text().strip() == compiler.compiler_identity()
    # Without a compiler (prebuilt bundles on a GPU machine) any entry is used.
    built_by.write_text("another-build\n")
    monkeypatch.setattr(compiler, "_library_path", lambda: None)
    assert compile_program(program).ptx == bundle.ptx


def test_damaged_cache_entries_are_rebuilt(tmp_path, monkeypatch):
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("rms_fwd", 128, "bf16", "bf16", eps=1e-6, offset=0.0)
    bundle = compile_program(program)
    (entry,) = os.listdir(tmp_path)
    manifest = tmp_path / entry / "manifest.json"
    manifest.write_text(manifest.read_text()[:100])
    # Without a compiler the damage is the error, naming the entry.
    monkeypatch.setattr(compiler, "_library_path", lambda: None)
    with pytest.raises(compiler.BundleError, match=f"{entry}/manifest.json: invalid JSON"):
        compile_program(program)
    # With one, the entry is rebuilt.
    monkeypatch.undo()
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    assert compile_program(program).ptx == bundle.ptx
    assert compile_program(program).ptx == bundle.ptx


def test_an_unreadable_tuning_table_is_a_compile_error(tmp_path, monkeypatch):
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    monkeypatch.setenv("NORM_TUNING_TABLE", str(tmp_path / "missing.json"))
    with pytest.raises(CompileError, match=r"the tuning table .*missing.json cannot be read"):
        compile_program(op_program("rms_fwd", 128, "bf16", "bf16", eps=1e-6, offset=0.0))


def test_cache_key_covers_program_options_and_chip():
    base = cache_key("p", "chip=sm_90", "sm_90")
    assert cache_key("q", "chip=sm_90", "sm_90") != base
    assert cache_key("p", "chip=sm_90 split-size=8", "sm_90") != base
    assert cache_key("p", "chip=sm_90", "sm_80") != base


def test_compile_errors_carry_diagnostics(tmp_path, monkeypatch):
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    bad = "func.func @f(%x: tensor<4x8xf64>) { return }\n" \
          "func.func @g(%x: tensor<4x8xbf16>) -> tensor<4x8xbf16> {\n" \
          "  %y, %r = norm.rms_norm %x {epsilon = 0.0 : f64} : tensor<4x8xbf16> -> tensor<4x8xbf16>, tensor<4xf32>\n" \
          "  return %y : tensor<4x8xbf16>\n}\n"
    with pytest.raises(CompileError, match=r"norm_mlir program:3:\d+: error: .*epsilon must be a positive number"):
        compile_program(bad)
    with pytest.raises(CompileError, match="invalid norm-to-ptx options"):
        compile_program(op_program("rms_fwd", 64, "f32", None, eps=1e-6, offset=0.0),
                        options="split-size=banana")
    # An option that parses but is out of range: one line naming the pass and
    # the option, without a dump of the program.
    with pytest.raises(CompileError, match="norm-split-rows: shared-stages must be") as error:
        compile_program(op_program("rms_fwd", 64, "f32", None, eps=1e-6, offset=0.0),
                        options="shared-stages=9")
    assert "see current operation" not in str(error.value)
    assert "norm.fused" not in str(error.value)
    # A GPU other than Hopper (torch reports sm_80 on an A100): an error
    # before any work, not an abort inside LLVM or PTX that ptxas rejects.
    with pytest.raises(CompileError, match="chip must be sm_90, sm_90a, sm_100 or sm_100a .* got 'sm_80'"):
        compile_program(op_program("rms_fwd", 64, "f32", None, eps=1e-6, offset=0.0),
                        chip="sm_80")


def test_pipeline_options_reach_the_kernels(tmp_path, monkeypatch):
    # fp-contract (default on) lets LLVM fuse the forward's scale-and-shift
    # into FMAs; off, every product is rounded on its own.
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("ln_fwd", 1024, "bf16", "bf16", eps=1e-6, offset=0.0)
    assert "fma.rn.f32" in compile_program(program).ptx
    assert "fma.rn.f32" not in compile_program(program, options="fp-contract=false").ptx


def test_device_properties_reach_the_plans(tmp_path, monkeypatch):
    # The package compiles for the GPU it runs on: its SMs, shared memory,
    # threads and registers become target options (only those that differ
    # from the compiler's H100 SXM / H200 defaults, so bundles prebuilt for
    # those keep their cache keys), and the plans follow them: an H100
    # PCIe's 114 SMs give the RMSNorm backward 228 partial rows, not 264.
    from types import SimpleNamespace
    from norm_mlir.checks import target_options
    sxm = SimpleNamespace(multi_processor_count=132, shared_memory_per_block_optin=232448,
                          shared_memory_per_multiprocessor=233472,
                          max_threads_per_multi_processor=2048, regs_per_multiprocessor=65536)
    assert target_options(sxm) == ""
    assert target_options(SimpleNamespace(**dict(vars(sxm), multi_processor_count=114))) \
        == "num-sms=114"
    a100 = SimpleNamespace(multi_processor_count=108, shared_memory_per_block_optin=166912,
                           shared_memory_per_multiprocessor=167936)
    assert target_options(a100) == ("num-sms=108 shared-memory-per-block=166912 "
                                    "shared-memory-per-sm=167936")
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("rms_bwd", 4096, "bf16", "bf16", offset=0.0)
    manifests = [str(compile_program(program, options=o).manifest) for o in ("", "num-sms=114")]
    assert "264" in manifests[0] and "228" not in manifests[0]
    assert "228" in manifests[1] and "264" not in manifests[1]
    with pytest.raises(CompileError, match="registers_per_sm must hold"):
        compile_program(program, options="registers-per-sm=1024")


def test_blackwell_chips_compile(tmp_path, monkeypatch):
    # A B200 reports sm_100: its programs compile (PTX ISA 8.6, the oldest
    # that names it, unless features say otherwise); nothing here runs them.
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    program = op_program("rms_bwd", 65536, "bf16", "bf16", offset=0.0)
    for chip in ("sm_100", "sm_100a"):
        ptx = compile_program(program, chip=chip).ptx
        assert f".target {chip}" in ptx and ".version 8.6" in ptx
    with pytest.raises(CompileError, match="on sm_100a and LLVM knows: \\+ptx86"):
        compile_program(program, chip="sm_100a", options="features=+ptx81")

