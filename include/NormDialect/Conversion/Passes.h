//===- Passes.h - norm conversion passes ------------------------*- C++ -*-===//

#ifndef NORMDIALECT_CONVERSION_PASSES_H
#define NORMDIALECT_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::norm {

#define GEN_PASS_DECL
#include "NormDialect/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "NormDialect/Conversion/Passes.h.inc"

} // namespace mlir::norm

#endif // NORMDIALECT_CONVERSION_PASSES_H
