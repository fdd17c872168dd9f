//===- PtxSerializer.h - gpu.module to PTX text -----------------*- C++ -*-===//
//
// norm-serialize-kernels' path for NVVM targets and PTX text: upstream's
// NVVM serializer with LLVM's optimization pipeline chosen here.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_LIB_CONVERSION_PTXSERIALIZER_H
#define NORM_LIB_CONVERSION_PTXSERIALIZER_H

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::norm {

/// Serializes `module` for `target` to PTX text as upstream's NVVM target
/// does for the `isa` format (translation to LLVM IR, the target's and
/// `options`' bitcode libraries and libdevice linked where referenced,
/// LLVM's default pipeline at the target's O level, NVPTX code generation),
/// with one difference: LLVM's SLP vectorizer does not run. The kernels
/// reach LLVM vectorized already (vector loads, stores and bf16/f16 pairs
/// from the vector dialect), sm_90 has no wider f32 arithmetic for it to
/// form, and on the 146 bundles it only reordered instructions (27 of them,
/// the opcode counts equal but for a few register moves), while it took
/// 13-15% of a compile. Unlike upstream it records no compile times on the
/// module, so the output does not depend on the machine's speed.
/// Errors are reported on `module`; returns failure after them.
FailureOr<SmallVector<char, 0>>
serializeToPTX(gpu::GPUModuleOp module, NVVM::NVVMTargetAttr target,
               const gpu::TargetOptions &options);

} // namespace mlir::norm

#endif // NORM_LIB_CONVERSION_PTXSERIALIZER_H
