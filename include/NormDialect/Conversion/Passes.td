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

def NormExpandFloat8 : Pass<"norm-expand-float8"> {
  let summary = "Round f32 to f8E4M3FN with integer arithmetic (CPU)";
  let description = [{
    Replaces each `arith.truncf` from f32 to f8E4M3FN with integer and f32
    arithmetic computing the same byte as the GPU's PTX
    `cvt.rn.satfinite.e4m3x2.f32`: round to nearest even, saturate to the
    largest finite value (+-448, infinities included), NaN to NaN (0x7f with
    the sign). LLVM has no FP8 type, so the CPU lowering needs this before
    convert-to-llvm, which carries f8E4M3FN as i8. (Upstream's arith-expand
    expands bf16, f4E2M1 and f8E8M0 conversions only.)
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
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

#endif // NORM_CONVERSION_PASSES_TD
