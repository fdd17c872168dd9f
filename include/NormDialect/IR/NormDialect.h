//===- NormDialect.h - norm dialect -----------------------------*- C++ -*-===//
//
// The `norm` dialect: declarations of the dialect, its attributes and ops.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_IR_NORMDIALECT_H
#define NORMDIALECT_IR_NORMDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

// The dialect's discardable attributes (norm.target) are of its own
// attribute classes.
#include "NormDialect/IR/NormAttrs.h"

#include "NormDialect/IR/NormDialect.h.inc"

#endif // NORMDIALECT_IR_NORMDIALECT_H
