//===- Passes.td - norm target passes ----------------------*- tablegen -*-===//
//
// The passes that attach the NVVM target to the kernels and serialize them:
// the part of the pipeline that produces PTX, beside the bundle writer and
// the PTX linker of lib/Target.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_TARGET_PASSES_TD
#define NORM_TARGET_PASSES_TD

include "mlir/Pass/PassBase.td"

def NormAttachTarget : Pass<"norm-attach-target", "::mlir::ModuleOp"> {
  let summary = "Attach the NVVM target the kernels compile for, checked first";
  let description = [{
    Appends `#nvvm.target<O = opt-level, chip = chip, features = features>`
    to every `gpu.module` that does not carry it yet, as upstream's
    `nvvm-attach-target` does, after checking the chip and the PTX features
    in the pass's `initialize` (`validateNVVMTarget`): upstream builds the
    attribute from any option values, and its verification crashes on an
    empty chip, while LLVM aborts the process on a chip or PTX version it
    cannot select the kernels' instructions for. Unlike upstream's it takes
    no link libraries or flags: the kernels need no libdevice.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target GPU (sm_90, sm_90a, sm_100 or sm_100a)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "PTX features: one PTX ISA version, e.g. +ptx81 (empty: the "
           "chip's oldest the kernels can use)">,
    Option<"optLevel", "O", "unsigned", /*default=*/"2",
           "LLVM optimization level of the kernels (0 to 3)">,
  ];
  let dependentDialects = ["::mlir::NVVM::NVVMDialect",
                           "::mlir::gpu::GPUDialect"];
}

def NormSerializeKernels
    : Pass<"norm-serialize-kernels", "::mlir::ModuleOp"> {
  let summary = "Serialize the gpu.modules to gpu.binary ops, in parallel";
  let description = [{
    Does what upstream `gpu-module-to-binary` does (each `gpu.module` becomes
    a `gpu.binary` with one object per target attribute, through the
    targets' `serializeToObject`), but serializes the modules on the
    context's thread pool instead of one after another. LLVM's optimization
    and NVPTX code generation are most of the time from norm IR to PTX, and
    convert-norm-to-gpu puts every kernel in a module of its own, so a
    program of several kernels compiles in about the time of its largest on
    a machine with as many cores. Each module translates into its own
    `llvm::LLVMContext`; the binaries are created, in module order, after
    all modules have serialized, so the output does not depend on the
    threads.

    PTX text for `#nvvm.target`s is produced as upstream's NVVM target
    produces it, with LLVM's default pipeline at the target's `O` level,
    except that LLVM's SLP vectorizer does not run: the kernels reach LLVM
    vectorized, and on sm_90 it only reordered their instructions while
    taking 13-15% of a compile. Nor are compile times recorded among the
    objects' properties, so the output does not depend on the machine.
    Other targets and formats go through the target's `serializeToObject`.
  }];
  let options = [
    Option<"format", "format", "std::string", /*default=*/"\"isa\"",
           "The objects' format, as gpu-module-to-binary's: isa (assembly, "
           "PTX), bin (binary) or fatbin, offloading (LLVM IR)">,
    Option<"toolkitPath", "toolkit", "std::string", /*default=*/"\"\"",
           "The toolkit (e.g. CUDA) path, as gpu-module-to-binary's">,
  ];
}

#endif // NORM_TARGET_PASSES_TD
