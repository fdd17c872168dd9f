//===- Compile.h - norm program text to a kernel bundle ---------*- C++ -*-===//
//
// The whole compiler behind one call: parse norm IR, run norm-to-gpu,
// describe the launches, lower to PTX. Used by norm-compile and the C API
// (and through it by the Python package).
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TARGET_COMPILE_H
#define NORMDIALECT_TARGET_COMPILE_H

#include "NormDialect/Pipelines/Pipelines.h"

#include <string>

namespace mlir::norm {

/// What compileToBundle produces.
struct CompiledBundle {
  std::string ptx;
  /// manifest.json text (docs/bundle.md).
  std::string manifest;
};

/// Compiles the norm program in `source` (MLIR text; `sourceName` names it
/// in diagnostics). On failure returns false, with every diagnostic, located,
/// in `diagnostics`.
bool compileToBundle(const std::string &source, const std::string &sourceName,
                     const NormToPTXOptions &options, CompiledBundle &out,
                     std::string &diagnostics);

/// The tuning table to use: `requested` if given ("none": no table), else
/// $NORM_TUNING_TABLE, else the repository's tuning/h200.json when it exists.
std::string defaultTuningTable(const std::string &requested);

/// The compiler's version string, part of cache keys.
const char *compilerVersion();

} // namespace mlir::norm

#endif // NORMDIALECT_TARGET_COMPILE_H
