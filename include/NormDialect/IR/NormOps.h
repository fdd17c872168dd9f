//===- NormOps.h - norm dialect operations ----------------------*- C++ -*-===//

#ifndef NORMDIALECT_IR_NORMOPS_H
#define NORMDIALECT_IR_NORMOPS_H

#include "NormDialect/IR/NormAttrs.h"
#include "NormDialect/IR/NormDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "NormDialect/IR/NormOps.h.inc"

#endif // NORMDIALECT_IR_NORMOPS_H
