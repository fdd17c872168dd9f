//===- PassOptions.h - reporting bad pass options ---------------*- C++ -*-===//
//
// The norm passes check their options once, in initialize(), before they
// see any IR: a bad option is not an error of the program, so its
// diagnostic carries no location and does not print the module.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_UTILS_PASSOPTIONS_H
#define NORMDIALECT_UTILS_PASSOPTIONS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <string>

namespace mlir::norm {

/// Success when `error` is empty; otherwise emits "`pass`: `error`" without
/// a location and fails.
inline LogicalResult reportOptionError(MLIRContext *context, StringRef pass,
                                       const std::string &error) {
  if (error.empty())
    return success();
  return emitError(UnknownLoc::get(context)) << pass << ": " << error;
}

} // namespace mlir::norm

#endif // NORMDIALECT_UTILS_PASSOPTIONS_H
