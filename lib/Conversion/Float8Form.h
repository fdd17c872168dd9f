//===- Float8Form.h - the PTX form of an f32 -> FP8 rounding ----*- C++ -*-===//
//
// Private to lib/Conversion: what a kernel's arith.truncf from f32 to
// f8E4M3FN becomes. PTX cvt.rn.satfinite.e4m3x2.f32 (sm_89 and newer)
// through upstream's nvvm.convert.f32x2.to.f8x2: round to nearest even and
// saturate to the largest finite value (+-448), as FP8 quantizers do (NaN
// stays NaN). The other FP8 formats, and reading FP8 (arith.extf from it),
// have no lowering here.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_FLOAT8FORM_H
#define LIB_CONVERSION_FLOAT8FORM_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace mlir::norm {

/// Whether `op` converts to or from an FP8 type in a way the kernels cannot
/// lower: any FP8 arith.extf, or an arith.truncf to FP8 that is not f32 to
/// f8E4M3FN. Set `why` to the reason.
bool isUnsupportedFloat8Conversion(Operation *op, std::string &why);

/// Replaces every arith.truncf from f32 to f8E4M3FN in `module`'s kernels
/// with nvvm.convert.f32x2.to.f8x2 (round to nearest even, saturating to
/// finite) and the byte of its result.
void lowerFloat8Truncs(gpu::GPUModuleOp module);

} // namespace mlir::norm

#endif // LIB_CONVERSION_FLOAT8FORM_H
