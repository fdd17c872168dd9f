//===- ExpForm.h - the PTX form of an f32 exp -------------------*- C++ -*-===//
//
// Private to lib/Conversion: the instruction a kernel's f32 math.exp becomes.
// exp(x) = 2^(x log2 e) by PTX ex2.approx.f32 (relative error below 2^-22 on
// the power of two; what CUDA's __expf and Triton's tl.exp emit), without
// libdevice, so compiling needs no device library. The non-ftz form keeps
// denormal results (x below -87.3) instead of flushing them to zero.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_EXPFORM_H
#define LIB_CONVERSION_EXPFORM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Replaces every f32 math.exp in `module`'s kernels with x * log2(e)
/// followed by the NVVM intrinsic for PTX ex2.approx.f32.
void lowerExpApprox(gpu::GPUModuleOp module);

} // namespace mlir::norm

#endif // LIB_CONVERSION_EXPFORM_H
