//===- CpuJit.h - run norm programs on the CPU ------------------*- C++ -*-===//
//
// Compiles a norm program through the CPU lowering (norm-to-cpu) and runs its
// functions in-process with MLIR's ExecutionEngine: the numerical reference,
// and the CPU path of the Python custom ops.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TARGET_CPUJIT_H
#define NORMDIALECT_TARGET_CPUJIT_H

#include "NormDialect/Target/CpuSignature.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
namespace norm {

/// A norm program compiled for the host CPU.
class CpuJit {
public:
  /// Compiles `source` (MLIR text, `sourceName` in diagnostics). Every public
  /// function gets a C interface taking pointers to memref descriptors
  /// (`{allocated, aligned, offset, sizes[rank], strides[rank]}`). Null with
  /// located `diagnostics` on failure.
  static std::unique_ptr<CpuJit> create(const std::string &source,
                                        const std::string &sourceName,
                                        std::string &diagnostics);
  ~CpuJit();

  /// Calls `function` with one memref descriptor pointer per argument.
  /// False with `error`, without calling, when the function does not exist
  /// or the descriptors do not fit its signature (checkDescriptors).
  bool invoke(const std::string &function,
              const std::vector<void *> &descriptors, std::string &error);

  /// The signature of public function `function`; null when there is none.
  const CpuSignature *signature(const std::string &function) const;

private:
  CpuJit() = default;
  std::unique_ptr<ExecutionEngine> engine;
  std::map<std::string, CpuSignature> signatures;
};

} // namespace norm
} // namespace mlir

#endif // NORMDIALECT_TARGET_CPUJIT_H
