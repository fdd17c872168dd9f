//===- KernelPlanAttr.cpp - a kernel plan as IR ---------------------------===//

#include "NormDialect/Utils/KernelPlanAttr.h"

using namespace mlir;
using namespace mlir::norm;

static KernelKind encodeKind(KernelPlan::Kind kind) {
  switch (kind) {
  case KernelPlan::Kind::RowResident:
    return KernelKind::row_resident;
  case KernelPlan::Kind::Cluster:
    return KernelKind::cluster;
  case KernelPlan::Kind::Streaming:
    return KernelKind::streaming;
  case KernelPlan::Kind::Sliced:
    return KernelKind::sliced;
  case KernelPlan::Kind::OffChip:
    return KernelKind::off_chip;
  }
  llvm_unreachable("unknown kernel kind");
}

static KernelPlan::Kind decodeKind(KernelKind kind) {
  switch (kind) {
  case KernelKind::row_resident:
    return KernelPlan::Kind::RowResident;
  case KernelKind::cluster:
    return KernelPlan::Kind::Cluster;
  case KernelKind::streaming:
    return KernelPlan::Kind::Streaming;
  case KernelKind::sliced:
    return KernelPlan::Kind::Sliced;
  case KernelKind::off_chip:
    return KernelPlan::Kind::OffChip;
  }
  llvm_unreachable("unknown kernel kind");
}

PlanAttr mlir::norm::encodePlan(MLIRContext *context, const KernelPlan &plan) {
  const RowLayout &layout = plan.layout;
  return PlanAttr::get(
      context, encodeKind(plan.kind), layout.threads, layout.vectorWidth,
      layout.chunksPerThread, layout.columnSlices, layout.rowGroups,
      layout.warpRows, layout.clusterSize, layout.globalExchange,
      layout.sharedStages, layout.rereadStaged, layout.l2PrefetchRows,
      layout.l2PrefetchMinRows, layout.bulkStores, layout.holdsRow,
      layout.sweepsPerStep, layout.storesEarlyOutputs,
      layout.latencyBoundReductions, plan.rowsPerBlock, plan.numStages,
      plan.minBlocksPerSM, plan.minBlocks, plan.persistent);
}

KernelPlan mlir::norm::decodePlan(PlanAttr attr) {
  KernelPlan plan;
  plan.kind = decodeKind(attr.getKind());
  RowLayout &layout = plan.layout;
  layout.threads = attr.getThreads();
  layout.vectorWidth = attr.getVectorWidth();
  layout.chunksPerThread = attr.getChunksPerThread();
  layout.columnSlices = attr.getColumnSlices();
  layout.rowGroups = attr.getRowGroups();
  layout.warpRows = attr.getWarpRows();
  layout.clusterSize = attr.getClusterSize();
  layout.globalExchange = attr.getGlobalExchange();
  layout.sharedStages = attr.getSharedStages();
  layout.rereadStaged = attr.getRereadStaged();
  layout.l2PrefetchRows = attr.getL2PrefetchRows();
  layout.l2PrefetchMinRows = attr.getL2PrefetchMinRows();
  layout.bulkStores = attr.getBulkStores();
  layout.holdsRow = attr.getHoldsRow();
  layout.sweepsPerStep = attr.getSweepsPerStep();
  layout.storesEarlyOutputs = attr.getStoresEarlyOutputs();
  layout.latencyBoundReductions = attr.getLatencyBoundReductions();
  plan.rowsPerBlock = attr.getRowsPerBlock();
  plan.numStages = attr.getNumStages();
  plan.minBlocksPerSM = attr.getMinBlocksPerSm();
  plan.minBlocks = attr.getMinBlocks();
  plan.persistent = attr.getPersistent();
  return plan;
}

PlanAttr mlir::norm::planAttrOf(FusedOp op) {
  return op->getAttrOfType<PlanAttr>(NormDialect::PlanAttrHelper::getNameStr());
}

void mlir::norm::setPlan(FusedOp op, const KernelPlan &plan) {
  op->setAttr(NormDialect::PlanAttrHelper::getNameStr(),
              encodePlan(op->getContext(), plan));
}

std::optional<KernelPlan> mlir::norm::planOf(FusedOp op) {
  if (PlanAttr attr = planAttrOf(op))
    return decodePlan(attr);
  return std::nullopt;
}
