//===- Passes.h - norm target passes ----------------------------*- C++ -*-===//

#ifndef NORMDIALECT_TARGET_PASSES_H
#define NORMDIALECT_TARGET_PASSES_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::norm {

#define GEN_PASS_DECL
#include "NormDialect/Target/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "NormDialect/Target/Passes.h.inc"

} // namespace mlir::norm

#endif // NORMDIALECT_TARGET_PASSES_H
