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
  // The target device on a module (TargetAttr): `norm.target`.
  let discardableAttrs = (ins "::mlir::norm::TargetAttr":$target);
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
}

class Norm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Norm_Dialect, mnemonic, traits>;

#endif // NORM_DIALECT_TD
