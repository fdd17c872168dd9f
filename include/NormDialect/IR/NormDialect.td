//===- NormDialect.td - norm dialect definition ------------*- tablegen -*-===//
//
// The `norm` dialect: normalization layers and the order-typed reductions
// they decompose into.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_DIALECT_TD
#define NORM_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Norm_Dialect : Dialect {
  let name = "norm";
  let cppNamespace = "::mlir::norm";
  let summary = "Normalization layers and order-typed reductions";
  let description = [{
    The `norm` dialect models LayerNorm and RMSNorm (forward and backward) on
    ranked tensors whose innermost dimension is normalized and whose leading
    dimensions are rows. Its lower level spells every reduction with an
    explicit *order type*: a `row` reduction runs along the contiguous
    innermost dimension (one value per row), a `col` reduction runs across
    rows (one value per column). Passes fuse row and column reductions that
    read the same inputs into one kernel (`norm.fused`) and split column
    reductions into deterministic partial sums (`norm.combine`).
  }];
  let useDefaultAttributePrinterParser = 1;
  // Every `norm.*` attribute the passes attach to other ops, with its type;
  // the dialect's verifier refuses any other name or type
  // (verifyOperationAttribute). Their meaning is documented where they are
  // read: FusedOp's accessors, GPUKernelBuilders.h, KernelBundle.cpp.
  let discardableAttrs = (ins
    // On the module: the device kernels are planned for (--norm-set-target).
    "::mlir::norm::TargetAttr":$target,
    // On norm.fused, set by the user or norm-short-rows.
    "::mlir::IntegerAttr":$split_size,
    "::mlir::IntegerAttr":$num_stages,
    "::mlir::UnitAttr":$whole_columns,
    "::mlir::UnitAttr":$stream_rows,
    "::mlir::UnitAttr":$preload_columns,
    "::mlir::IntegerAttr":$rows_per_block,
    "::mlir::UnitAttr":$warp_rows,
    "::mlir::IntegerAttr":$min_blocks_per_sm,
    "::mlir::IntegerAttr":$rows_below,
    "::mlir::IntegerAttr":$rows_multiple,
    "::mlir::UnitAttr":$whole_blocks_branch,
    "::mlir::IntegerAttr":$vector_width,
    // On norm.fused, set by --norm-plan-kernels (or by hand).
    "::mlir::norm::PlanAttr":$plan,
    // On the scf.if of norm-short-rows' versions.
    "::mlir::UnitAttr":$short_rows,
    // On the kernels (gpu.func) convert-norm-to-gpu builds, for the bundle
    // manifest and the later passes.
    "::mlir::IntegerAttr":$block_size,
    "::mlir::IntegerAttr":$cols_per_block,
    "::mlir::UnitAttr":$persistent,
    "::mlir::IntegerAttr":$rows_in_parallel,
    "::mlir::IntegerAttr":$column_slices,
    "::mlir::IntegerAttr":$cluster_size,
    "::mlir::IntegerAttr":$block_group,
    "::mlir::UnitAttr":$streaming,
    "::mlir::IntegerAttr":$shared_stages,
    "::mlir::UnitAttr":$bulk_stores,
    "::mlir::UnitAttr":$programmatic,
    "::mlir::IntegerAttr":$dynamic_shared_bytes,
    // Inside the kernels, for --norm-pipeline and the lowering.
    "::mlir::UnitAttr":$row_loop,
    "::mlir::UnitAttr":$prefetch,
    "::mlir::IntegerAttr":$predicate_operand,
    "::mlir::UnitAttr":$predicate_epilogue,
    "::mlir::UnitAttr":$ftz_exact
  );
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

class Norm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Norm_Dialect, mnemonic, traits>;

#endif // NORM_DIALECT_TD
