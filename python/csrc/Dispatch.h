//===- Dispatch.h - typed handles of dispatcher ops -------------*- C++ -*-===//
//
// What the autograd kernels use to call the ops below autograd.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_MLIR_CSRC_DISPATCH_H
#define NORM_MLIR_CSRC_DISPATCH_H

#include <ATen/core/dispatch/Dispatcher.h>

namespace norm_mlir {

/// The dispatcher's handle of op `name` ("norm_mlir::rms_norm"), typed
/// `Signature`. Callers keep it in a static: the lookup is a hash-map walk.
template <typename Signature>
c10::TypedOperatorHandle<Signature> lookupOp(const char *name) {
  return c10::Dispatcher::singleton()
      .findSchemaOrThrow(name, "")
      .template typed<Signature>();
}

} // namespace norm_mlir

#endif // NORM_MLIR_CSRC_DISPATCH_H
