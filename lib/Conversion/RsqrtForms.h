//===- RsqrtForms.h - the PTX forms of an f32 rsqrt ----------*- C++ -*-===//
//
// Private to lib/Conversion: which PTX instruction a kernel's f32 math.rsqrt
// becomes. rsqrt.approx.f32 handles denormal operands, which costs a
// compare and two multiplies of scaling around each MUFU.RSQ on sm_90;
// rsqrt.approx.ftz.f32 flushes them to zero and has none. The two agree
// wherever the operand is never denormal, which a normalization's
// rsqrt(mean of squares + eps) is when eps is a normal float: that case
// takes the ftz form, every other rsqrt keeps the exact one.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_RSQRTFORMS_H
#define LIB_CONVERSION_RSQRTFORMS_H

#include "NormDialect/IR/NormDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::norm {

class FusedOp;

/// The unit attribute on an f32 math.rsqrt of a norm.fused body whose
/// operand is never a denormal float (isNeverDenormal), so that the
/// flush-to-zero PTX form computes the same value. Kernel builders copy it
/// with the op when they clone the body.
constexpr llvm::StringLiteral kFlushExactAttr =
    NormDialect::FtzExactAttrHelper::getNameStr();

/// Whether f32 `value` is never a denormal float: a normal constant, or the
/// sum of a value that is never negative (isNeverNegative) and a constant
/// of at least the smallest normal float (FLT_MIN), or the larger of such a
/// constant and anything. NaN and infinity count as not denormal. Follows
/// defining ops only (no block arguments), a few levels deep.
bool isNeverDenormal(Value value);

/// Whether f32 `value` is never negative: always +0, positive, +infinity or
/// NaN. It is for a constant with its sign bit clear; a product of a value
/// with itself; a sum or product of two such values; an extension or sqrt
/// of one; an absolute value; arith.maximumf with one such operand; a
/// norm.row_reduce of such values.
bool isNeverNegative(Value value);

/// Marks (kFlushExactAttr) the f32 math.rsqrt ops of `op`'s body whose
/// operands are never denormal.
void markFlushExactRsqrts(FusedOp op);

/// The PTX instruction for f32 math.rsqrt `op` with operand $1 and result
/// $0: rsqrt.approx.ftz.f32 where marked kFlushExactAttr, else
/// rsqrt.approx.f32.
StringRef rsqrtPtx(Operation *op);

/// Replaces every f32 math.rsqrt left in `func` with the NVVM intrinsic
/// for PTX rsqrt.approx.f32 (relative error below 2^-22, what CUDA's rsqrtf
/// and PyTorch's kernels use), or its ftz form where marked
/// kFlushExactAttr. Upstream's NVVM lowering would call libdevice's
/// __nv_rsqrtf, which ends up as the same instruction but makes compiling
/// depend on finding libdevice. An intrinsic, not inline PTX: LLVM merges
/// the copies of a row-uniform rsqrt that a kernel builder cloned per
/// element (the streamed rows). The row kernels emit theirs as inline PTX
/// already (RowKernelBuilder's emitElementwise, rsqrtPtx), once per row.
void lowerRsqrtApprox(gpu::GPUFuncOp func);

} // namespace mlir::norm

#endif // LIB_CONVERSION_RSQRTFORMS_H
