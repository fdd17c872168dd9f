"""Compiling through the C API and the bundle cache (no GPU needed)."""

import json
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
    # A GPU before Ampere (torch reports sm_75 on a T4): an error before any
    # work, not an abort inside LLVM or PTX that ptxas rejects.
    with pytest.raises(CompileError, match="chip must be sm_80 .* got 'sm_75'"):
        compile_program(op_program("rms_fwd", 64, "f32", None, eps=1e-6, offset=0.0),
                        chip="sm_75")


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


def test_each_gpu_gets_kernels_it_runs():
    # Hopper and Blackwell get their own chips; every other GPU from Ampere
    # on the portable sm_80 kernels (its PTX runs on newer chips through the
    # driver's JIT); NORM_MLIR_CHIP picks sm_80 on any of them, but not a
    # chip the GPU cannot run.
    from norm_mlir.checks import chip_for_capability, chip_runs_on, target_options
    assert chip_for_capability(9, 0) == "sm_90"
    assert chip_for_capability(10, 0) == "sm_100"
    assert chip_for_capability(12, 0) == "sm_120"
    for capability in ((8, 0), (8, 6), (8, 9), (11, 0)):
        assert chip_for_capability(*capability) == "sm_80"
    assert chip_for_capability(9, 0, "sm_80") == "sm_80"
    assert chip_for_capability(10, 0, "sm_90") == "sm_90"
    with pytest.raises(RuntimeError, match="compute capability 8.0 .* this one is 7.5"):
        chip_for_capability(7, 5)
    for requested, capability in (("sm_90", (8, 0)), ("sm_90a", (10, 0)), ("sm_8", (9, 0))):
        with pytest.raises(RuntimeError, match=f"NORM_MLIR_CHIP={requested}: .* cannot run"):
            chip_for_capability(*capability, requested)
    assert chip_runs_on("sm_100a", 10, 0) and not chip_runs_on("sm_100a", 10, 3)
    # For sm_80 every property is an option: the compiler's own values for
    # it are an A100's, not the GPU's it runs on.
    from types import SimpleNamespace
    sxm = SimpleNamespace(multi_processor_count=132, shared_memory_per_block_optin=232448,
                          shared_memory_per_multiprocessor=233472,
                          max_threads_per_multi_processor=2048, regs_per_multiprocessor=65536)
    assert target_options(sxm, "sm_80") == (
        "num-sms=132 shared-memory-per-block=232448 shared-memory-per-sm=233472 "
        "threads-per-sm=2048 registers-per-sm=65536")


def test_portable_chip_compiles_without_hopper_instructions(tmp_path, monkeypatch):
    # sm_80: no clusters, bulk copies, mbarriers or dependent launches in any
    # kernel, long rows split instead of spread over clusters, FP8 rounded in
    # integer arithmetic (no cvt to e4m3 before sm_89); ptxas takes them
    # (test/chips-ptxas.sh assembles every op for sm_80).
    monkeypatch.setenv("NORM_MLIR_CACHE", str(tmp_path))
    programs = [op_program("rms_bwd", 65536, "bf16", "bf16", offset=0.0),
                op_program("ln_bwd", 4096, "bf16", "bf16", bias=True),
                op_program("rms_fwd", 8192, "bf16", "bf16", eps=1e-6, offset=0.0, quant=True)]
    for program in programs:
        portable = compile_program(program, chip="sm_80")
        assert ".target sm_80" in portable.ptx
        for instruction in ("griddepcontrol", "cp.async.bulk", "mbarrier", "cluster"):
            assert instruction not in portable.ptx, instruction
        assert '"programmatic": true' not in json.dumps(portable.manifest)
    # The backwards' combines are dependent launches on Hopper.
    for program in programs[:2]:
        hopper = compile_program(program)
        assert "griddepcontrol" in hopper.ptx
        assert '"programmatic": true' in json.dumps(hopper.manifest)
    assert "cvt.rn.satfinite.e4m3x2.f32" in compile_program(programs[2]).ptx
    assert "e4m3" not in compile_program(programs[2], chip="sm_80").ptx
    assert ".reqnctapercluster" in compile_program(programs[0]).ptx


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

