//===- ProgramSource.h - parsing norm programs for the drivers --*- C++ -*-===//
//
// Private to lib/Target: the context, registry and located diagnostics that
// compileToBundle and CpuJit both set up around a program's text.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_TARGET_PROGRAMSOURCE_H
#define LIB_TARGET_PROGRAMSOURCE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::norm {

/// A program's text with a context that knows every dialect, extension and
/// LLVM translation the norm pipelines use; diagnostics of everything done in
/// this context are appended, located, to the given string.
class ProgramSource {
public:
  ProgramSource(const std::string &source, const std::string &sourceName,
                std::string &diagnostics);

  /// Parses the program; null (with diagnostics) on invalid IR.
  OwningOpRef<ModuleOp> parse();

  MLIRContext &getContext() { return context; }

private:
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream diagStream;
  SourceMgrDiagnosticHandler handler;
};

} // namespace mlir::norm

#endif // LIB_TARGET_PROGRAMSOURCE_H
