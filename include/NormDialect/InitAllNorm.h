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

/// Registers the norm dialect and the interface models it provides for
/// upstream infrastructure (bufferization) in `registry`.
void registerAllNorm(DialectRegistry &registry);

/// Registers every norm pass and pipeline with the global pass registry, so
/// they can be named in `--pass-pipeline` strings and on the command line.
void registerAllNormPasses();

} // namespace norm
} // namespace mlir

#endif // NORMDIALECT_INITALLNORM_H
