//===- KernelPlanAttr.h - a kernel plan as IR -------------------*- C++ -*-===//
//
// The translation between the tuning library's KernelPlan and the declared
// #norm.plan attribute that --norm-plan-kernels writes on each norm.fused op
// and the later passes read.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_UTILS_KERNELPLANATTR_H
#define NORMDIALECT_UTILS_KERNELPLANATTR_H

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/KernelPlan.h"

#include <optional>

namespace mlir::norm {

/// `plan` as a #norm.plan.
PlanAttr encodePlan(MLIRContext *context, const KernelPlan &plan);

/// The KernelPlan a #norm.plan states.
KernelPlan decodePlan(PlanAttr attr);

/// `op`'s norm.plan, if it has one.
PlanAttr planAttrOf(FusedOp op);

/// Attaches `plan` to `op` as its norm.plan.
void setPlan(FusedOp op, const KernelPlan &plan);

/// `op`'s plan, if --norm-plan-kernels (or the user) gave it one.
std::optional<KernelPlan> planOf(FusedOp op);

} // namespace mlir::norm

#endif // NORMDIALECT_UTILS_KERNELPLANATTR_H
