//===- Passes.h - norm transformation passes --------------------*- C++ -*-===//

#ifndef NORMDIALECT_TRANSFORMS_PASSES_H
#define NORMDIALECT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
namespace norm {

#define GEN_PASS_DECL
#include "NormDialect/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "NormDialect/Transforms/Passes.h.inc"

/// Registers the BufferizableOpInterface models of norm.fused and
/// norm.combine, so one-shot bufferization turns them into their memref form.
void registerBufferizableOpInterfaceExternalModels(DialectRegistry &registry);

} // namespace norm
} // namespace mlir

#endif // NORMDIALECT_TRANSFORMS_PASSES_H
