//===- FusionPlan.h - the mixed-order fusion decision -----------*- C++ -*-===//
//
// Which order-typed ops share a kernel. The decision is made here, on an
// abstract description of the ops, so it can be unit tested without IR; the
// pass only translates IR to FusionNodes and the plan back to norm.fused ops.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_FUSIONPLAN_H
#define NORMDIALECT_TUNING_FUSIONPLAN_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include <cstdint>
#include <string>

namespace mlir::norm {

/// What an order-typed op computes, as far as fusion is concerned.
enum class NodeKind {
  RowReduce,   ///< norm.reduce <row>: one value per row.
  ColReduce,   ///< norm.reduce <col>: one value per column, needs every row.
  FullMap,     ///< norm.map full: one value per (row, column).
  RowMap,      ///< norm.map row: one value per row from per-row values.
  ColMap,      ///< norm.map col: one value per column from per-column values.
  GroupReduce, ///< norm.reduce <group>: one value per row and group.
  GroupMap,    ///< norm.map group: one value per row and group.
};

/// One op of a block, in program order.
struct FusionNode {
  NodeKind kind;
  /// Identifiers of the values defined outside the candidate ops that this
  /// op reads with the `full` role (the M x N inputs whose reads fusion
  /// shares).
  llvm::SmallVector<int64_t> fullInputs;
  /// Indices (into the node list) of earlier nodes whose results it reads.
  llvm::SmallVector<unsigned> producers;
  /// The op's group_size (0: none); a kernel has one.
  int64_t groupSize = 0;
};

/// The outcome: a kernel index per node, and for each node that could have
/// joined an existing kernel but did not, the reason.
struct FusionPlan {
  llvm::SmallVector<unsigned> kernelOf;
  unsigned numKernels = 0;
  llvm::SmallVector<std::string> notFusedBecause;
};

/// Groups `nodes` into kernels. A node joins the first earlier kernel that it
/// is connected to (it reads one of the kernel's full inputs, or a result of
/// one of its nodes) when that is legal:
///  - it does not read a column reduction of that kernel (that result is
///    complete only after the kernel has seen every row);
///  - it is not a column-only map (no per-row work to share);
///  - joining creates no cycle between kernels;
///  - its group size (if any) is the kernel's (if any).
/// Nodes that join no kernel start a new one. With `allowFusion` false every
/// node gets a kernel of its own, except row and group maps, which stay with
/// their first producer (they have no M x N space of their own).
FusionPlan planMixedOrderFusion(llvm::ArrayRef<FusionNode> nodes,
                                bool allowFusion = true);

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_FUSIONPLAN_H
