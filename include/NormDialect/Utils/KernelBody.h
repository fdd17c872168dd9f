//===- KernelBody.h - evaluating a norm.fused body --------------*- C++ -*-===//
//
// Helpers for code that evaluates or cuts a norm.fused body: the CPU and GPU
// lowerings evaluate slices of the per-element body at a point (block
// arguments and norm.row_reduce results supplied by the caller), and
// --norm-split-rows cuts the slices that feed the row reductions out.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_UTILS_KERNELBODY_H
#define NORMDIALECT_UTILS_KERNELBODY_H

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/KernelShape.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::norm {

/// Describes `op` for the tuning rules (n is ShapedType::kDynamic when N is
/// not static); works on tensors and memrefs.
KernelShape describeKernel(FusedOp op);

/// The whole-column kernel that runs beside `op` (norm-short-rows' pair),
/// if any: the next kernel, with only ops free of memory effects between
/// them, has the norm.whole_columns attribute and only column outputs, and
/// neither kernel writes a value the other reads or writes (results on
/// tensors, buffers once bufferized). norm-plan-kernels leaves it SMs;
/// convert-norm-to-gpu launches it as a programmatic dependent that does not
/// wait for `op`.
FusedOp columnKernelBeside(FusedOp op);

/// Clones, in body order, every op of `body` that `targets` depend on and that
/// `mapping` does not already map. Block arguments and norm.row_reduce
/// results reached must already be mapped (the caller loads the arguments
/// and computes the reductions); hitting an unmapped one is a bug in the
/// caller and is reported through the return value.
LogicalResult cloneBodySlice(OpBuilder &builder, Block &body,
                             ArrayRef<Value> targets, IRMapping &mapping);

/// The block arguments of `body` that the slice of `targets` reads, excluding
/// what lies behind already-mapped values.
SmallVector<BlockArgument> argumentsUsedBy(Block &body, ArrayRef<Value> targets,
                                           const IRMapping &mapping);

/// The full outputs of `op` (by output index) whose yielded values are
/// computed from the elements alone, in the output's own element type: no
/// norm.row_reduce or norm.group_reduce result behind them, and not an input
/// passed through (the residual add's h = x + residual, which the norm then
/// reduces). A kernel that re-reads its row can store them in its first pass
/// and read them back in the later ones (KernelShape::earlyOutputs).
SmallVector<unsigned> earlyOutputIndices(FusedOp op);

/// The identity of `combiner` in f32 (0 for add, -inf for max).
Value combinerIdentity(OpBuilder &builder, Location loc, Combiner combiner);

/// Combines two f32 values with `combiner`.
Value combine(OpBuilder &builder, Location loc, Combiner combiner, Value lhs,
              Value rhs);

/// Converts an f32 value to `type` (round to nearest even) or returns it.
Value roundTo(OpBuilder &builder, Location loc, Value value, Type type);

} // namespace mlir::norm

#endif // NORMDIALECT_UTILS_KERNELBODY_H
