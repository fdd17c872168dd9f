//===- InitAllNorm.h - register everything norm provides --------*- C++ -*-===//
//
// The one header a host compiler includes to embed norm: the dialect with its
// external interface models, the passes and the pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_INITALLNORM_H
#define NORMDIALECT_INITALLNORM_H

namespace mlir {
class DialectRegistry;
namespace norm {

/// Registers the norm dialect, the interface models it provides for
/// upstream infrastructure (bufferization) and, through
/// registerNormPipelineDependencies, what norm's pipelines need from
/// upstream in `registry`. A registry with the upstream dialects
/// (registerAllDialects) and this runs norm-to-ptx and norm-to-cpu.
void registerAllNorm(DialectRegistry &registry);

/// Registers the upstream interface models and LLVM IR translations that
/// norm's pipelines rely on without naming them: the bufferization models of
/// the tensor, arith, scf and func ops around the kernels, the
/// ConvertToLLVMPatternInterface of every dialect the kernels, launches and
/// CPU loops are lowered from (the GPU-to-PTX pipeline converts func, arith
/// and index inside the NVVM and host conversions, not in passes of their
/// own), the NVVM target and the translations serialization uses.
void registerNormPipelineDependencies(DialectRegistry &registry);

/// Registers every norm pass and pipeline with the global pass registry, so
/// they can be named in `--pass-pipeline` strings and on the command line.
void registerAllNormPasses();

} // namespace norm
} // namespace mlir

#endif // NORMDIALECT_INITALLNORM_H
