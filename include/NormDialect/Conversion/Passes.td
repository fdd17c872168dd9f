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

#endif // NORM_CONVERSION_PASSES_TD
