//===- PtxLinker.h - several PTX modules as one -----------------*- C++ -*-===//
//
// norm-serialize-kernels compiles each kernel's gpu.module to a PTX module of
// its own; a bundle ships one PTX module (docs/bundle.md), which the driver
// loads with one cuModuleLoadData. Linking PTX modules of one target is
// textual: one header, module-scope `.extern` declarations once, then every
// module's functions. Symbols the modules define must not clash.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TARGET_PTXLINKER_H
#define NORMDIALECT_TARGET_PTXLINKER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::norm {

/// Links the PTX modules `modules` (in order) into one: the first module's
/// header (leading comments, `.version`, `.target`, `.address_size`), each
/// distinct module-scope `.extern` declaration once, then every module's
/// functions and other module-scope statements in module order. Fails with a
/// message naming the modules when their headers differ, when two modules
/// define the same entry, function or variable, or when they declare one
/// `.extern` symbol differently.
llvm::Expected<std::string>
linkPTXModules(llvm::ArrayRef<llvm::StringRef> modules);

} // namespace mlir::norm

#endif // NORMDIALECT_TARGET_PTXLINKER_H
