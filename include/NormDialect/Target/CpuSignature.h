//===- CpuSignature.h - what a CPU program's caller must pass --*- C++ -*-===//
//
// The calling contract of the public functions of a norm program compiled for
// the CPU: one memref descriptor per argument, of the argument's rank, static
// sizes and contiguous strides, with the dynamic sizes that the program's ops
// equate (the rows of x, dy, y and the statistics; the columns of x and the
// weight) equal. Compiled code reads descriptors blindly, so CpuJit checks a
// caller's descriptors against this before it calls in: a wrong count, shape
// or layout is an error message, not an out-of-bounds access.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TARGET_CPUSIGNATURE_H
#define NORMDIALECT_TARGET_CPUSIGNATURE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mlir {
class ModuleOp;
} // namespace mlir

namespace mlir::norm {

/// One memref argument of a CPU function.
struct CpuArgument {
  /// The argument's type as MLIR prints it ("memref<?x16xbf16>").
  std::string type;
  /// Static sizes; ShapedType::kDynamic where the caller chooses.
  llvm::SmallVector<int64_t> shape;
  /// Per dimension, the class of sizes it must equal: dimensions with the
  /// same class must have the same size at run time.
  llvm::SmallVector<unsigned> sizeClass;
  /// True for the identity layout: a contiguous row-major buffer at offset 0.
  bool contiguous = true;
  /// Otherwise the layout's strides and offset (in elements), each static or
  /// ShapedType::kDynamic.
  llvm::SmallVector<int64_t> strides;
  int64_t offset = 0;
};

/// The contract of one public function.
struct CpuSignature {
  /// Why the function cannot be called with memref descriptors (it returns
  /// values, or takes a non-memref argument); empty when it can.
  std::string notCallable;
  std::vector<CpuArgument> arguments;
};

/// The signatures of the public functions of `module` (user-level IR, before
/// lowering), by name. The size classes come from the ops that relate their
/// operands' sizes: the norm ops (activations share every dimension, per-row
/// statistics the leading ones, weights and biases the last), the roled
/// level-2 ops, destination-style ops' results and inits, casts, and the
/// bufferization ops between memref arguments and tensors.
std::map<std::string, CpuSignature> cpuSignatures(ModuleOp module);

/// Checks `descriptors`, pointers to memref descriptors
/// ({allocated, aligned, offset, sizes[rank], strides[rank]}, the layout of
/// MLIR's C interface), against `signature` of function `name`. Returns an
/// empty string when they fit, else a message naming the argument and what
/// is wrong with it.
std::string checkDescriptors(const std::string &name,
                             const CpuSignature &signature,
                             llvm::ArrayRef<void *> descriptors);

} // namespace mlir::norm

#endif // NORMDIALECT_TARGET_CPUSIGNATURE_H
