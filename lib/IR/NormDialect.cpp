//===- NormDialect.cpp - norm dialect ---------------------------*- C++ -*-===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/IR/NormOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::norm;

#include "NormDialect/IR/NormDialect.cpp.inc"
#include "NormDialect/IR/NormEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "NormDialect/IR/NormAttrs.cpp.inc"

void NormDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "NormDialect/IR/NormAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "NormDialect/IR/NormOps.cpp.inc"
      >();
}
