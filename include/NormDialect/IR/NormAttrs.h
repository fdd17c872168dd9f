//===- NormAttrs.h - norm dialect attributes --------------------*- C++ -*-===//

#ifndef NORMDIALECT_IR_NORMATTRS_H
#define NORMDIALECT_IR_NORMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#include "NormDialect/IR/NormEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "NormDialect/IR/NormAttrs.h.inc"

#endif // NORMDIALECT_IR_NORMATTRS_H
