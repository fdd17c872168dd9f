//===- KernelBundle.h - PTX + manifest for MLIR-free launch -----*- C++ -*-===//
//
// A kernel bundle is what a runtime without MLIR needs to run a compiled norm
// program: the PTX of its kernels and a JSON manifest naming, in launch
// order, each kernel, its parameters (program arguments, results or
// workspaces, each passed as a memref descriptor), its block size and its
// grid as an expression of the row count M. The format is documented in
// docs/bundle.md and read by python/norm_runtime and runtime/.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TARGET_KERNELBUNDLE_H
#define NORMDIALECT_TARGET_KERNELBUNDLE_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/JSON.h"

namespace mlir::norm {

/// Describes the host function `func` (after convert-norm-to-gpu, before the
/// GPU-to-LLVM lowering) as a manifest: arguments, buffers it allocates,
/// results, and the kernel launches in order. Emits a located error and
/// fails on anything a bundle cannot express (dynamic N, non-norm host work).
FailureOr<llvm::json::Object> describeLaunches(Operation *func);

/// Returns the PTX of the `gpu.binary` ops in `module` (one per kernel, from
/// norm-serialize-kernels with format=isa) linked into one PTX module
/// (linkPTXModules).
FailureOr<std::string> extractPTX(ModuleOp module);

} // namespace mlir::norm

#endif // NORMDIALECT_TARGET_KERNELBUNDLE_H
