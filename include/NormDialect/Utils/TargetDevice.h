//===- TargetDevice.h - the planning target of a module ---------*- C++ -*-===//
//
// The DeviceInfo the tuning rules take, read from the `norm.target`
// attribute of the module around an op (#norm.target, set by
// --norm-set-target): the one place passes learn what GPU they plan for.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_UTILS_TARGETDEVICE_H
#define NORMDIALECT_UTILS_TARGETDEVICE_H

#include "NormDialect/IR/NormAttrs.h"
#include "NormDialect/Tuning/DeviceInfo.h"

#include "mlir/IR/Operation.h"

namespace mlir::norm {

/// The device `target` describes (DeviceInfo's defaults for what it does
/// not state).
DeviceInfo deviceOf(TargetAttr target);

/// The target of the module that holds `op` (or `op` itself, a module): its
/// `norm.target`, else the default device (an H100/H200).
DeviceInfo targetDevice(Operation *op);

} // namespace mlir::norm

#endif // NORMDIALECT_UTILS_TARGETDEVICE_H
