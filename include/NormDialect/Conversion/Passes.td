//===- Passes.td - norm conversion passes ------------------*- tablegen -*-===//

#ifndef NORM_CONVERSION_PASSES_TD
#define NORM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertNormToLoops : Pass<"convert-norm-to-loops"> {
  let summary = "Lower memref-form norm kernels to scf loops (CPU reference)";
  let description = [{
    Lowers bufferized `norm.fused` and `norm.combine` ops to `scf.for` loops
    over rows and columns: each `norm.row_reduce` becomes a loop over the row
    carrying the accumulator, column outputs are accumulated in f32 (into the
    partial buffer when split) and rounded once. This is the numerical
    reference path: it runs on the CPU through the LLVM lowering.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
}

def ConvertNormToGPU : Pass<"convert-norm-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower memref-form norm kernels to gpu.func kernels";
  let description = [{
    Outlines every bufferized `norm.fused` and `norm.combine` op into a
    `gpu.func` in a `gpu.module` of its own (both named after the kernel) and
    replaces it with `gpu.launch_func`. Each `norm.fused` kernel is lowered
    as its `#norm.plan` says (`--norm-plan-kernels` decides it; a plan
    written by hand is lowered the same way); the pass decides no layout of
    its own but the column and combine kernels' (`chooseColumnKernelLayout`,
    `chooseCombineLayout`). One module per kernel lets the GPU
    lowering and `norm-serialize-kernels` work on the kernels in parallel.
    Kernels spread one row over a thread block: 16-byte vector loads and
    stores, row reductions through warp shuffles and one exchange of warp
    totals in shared memory (a single barrier), column outputs accumulated in registers across the rows
    of a block and written as one f32 partial row per block. The launch
    configuration is recorded on each gpu.func as `norm.*` attributes (block
    size, rows per block, grid rule, cluster size) for the kernel bundle.

    Rows too long for one block's registers are spread over a thread block
    cluster (a plan of kind `cluster`): each
    block keeps one column slice in registers, and the block totals of each
    row reduction are exchanged through distributed shared memory, so the
    row is still read once (the upstream `gpu.all_reduce` has no cluster
    scope, hence our own reduction).

    Adjacent `norm.combine` ops that do not read each other's outputs (the
    dW and dB of one split kernel) become one kernel and one launch, each
    owning its own range of blocks.

    Plans with `l2_prefetch_rows` ask the bulk copy engine to prefetch rows
    that far ahead into L2 (`cp.async.bulk.prefetch.L2`), so blocks that
    start later, or the next steps of a persistent walk, find their rows in
    L2; a streamed forward skips it below `l2_prefetch_min_rows` rows (a
    bound on M in the kernel). Plans with `bulk_stores` write the full
    outputs' rows into shared memory and store each with one bulk copy
    (`cp.async.bulk.global.shared::cta`) instead of every thread's vector
    stores.
  }];
  let options = [
    Option<"fpContract", "fp-contract", "bool", /*default=*/"true",
           "Let the kernels' float multiplies and adds fuse into FMAs (arith "
           "fastmath `contract`), as nvcc (--fmad=true) and Triton do; false "
           "keeps every product rounded on its own">,
    Option<"combineLanes", "combine-lanes", "int64_t", /*default=*/"0",
           "Threads across the columns of a norm.combine block (0: the "
           "tuning rule; else a power of two)">,
    Option<"combineThreads", "combine-threads", "int64_t", /*default=*/"0",
           "Threads of a norm.combine block (0: the tuning rule; else a "
           "power of two)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::arith::ArithDialect"];
}

def NormCompactKernelArgs
    : Pass<"norm-compact-kernel-args", "::mlir::ModuleOp"> {
  let summary = "Kernels take aligned pointers and dynamic sizes, not memref "
                "descriptors";
  let description = [{
    Rewrites every `gpu.func` kernel argument of memref type with an
    identity layout in the default memory space into the values a kernel
    can read: its aligned pointer (`i64`) and one `i64` per dynamic size.
    Inside the kernel the descriptor is rebuilt from them (the allocated
    pointer is the aligned one, the offset 0, the strides the products of
    the sizes to the right: what the identity layout says), so the memref
    ops are unchanged and the rebuilt fields fold to constants after the
    lowering to NVVM. Each `gpu.launch_func` passes
    `memref.extract_aligned_pointer_as_index` and `memref.dim` of its
    operands instead; the bundle manifest describes those parameters
    (`{"buffer": b, "field": "aligned"}`, `{"value": size}`).

    Upstream's bare-pointer calling convention
    (`use-bare-ptr-memref-call-conv`) passes one pointer per memref but
    only for static shapes; these kernels take their rows with a dynamic M.
    Why not the default descriptors: a kernel reads only a few of their
    fields, but those lie spread over the parameter space (33 parameters
    for the RMSNorm backward, 264 bytes), and each constant-cache line the
    kernel touches first costs its warps a miss: ncu measured 90-140
    cycles a warp stalled on them against Triton's 45 in kernels of one
    row.
    Arguments of other memref types keep their descriptors.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

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
           "Target GPU (sm_90 or sm_90a)">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx81\"",
           "PTX features: one PTX ISA version, e.g. +ptx81">,
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

#endif // NORM_CONVERSION_PASSES_TD
