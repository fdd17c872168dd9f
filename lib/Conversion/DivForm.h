//===- DivForm.h - the PTX form of an approximate f32 division -*- C++ -*-===//
//
// Private to lib/Conversion: the instruction a kernel's f32 arith.divf marked
// `afn` (approximate functions allowed) becomes. Such a division is PTX
// div.full.f32 (at most 2 ulp of error over the whole range; what Triton
// emits for `/` on f32, so Inductor's sigmoid), instead of the IEEE-rounded
// div.rn / rcp.rn.f32, whose Newton steps and slow path for denormal
// operands cost instructions and registers in kernels that are otherwise a
// few instructions an element (the gated norm's sigmoid). Divisions without
// the flag (FP8 scales, which must round like torch's) keep the IEEE form.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_DIVFORM_H
#define LIB_CONVERSION_DIVFORM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Replaces every f32 arith.divf of `module`'s kernels whose fastmath flags
/// include `afn` with the NVVM intrinsic for PTX div.full.f32.
void lowerApproxDivisions(gpu::GPUModuleOp module);

} // namespace mlir::norm

#endif // LIB_CONVERSION_DIVFORM_H
