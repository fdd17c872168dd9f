//===- FusionPlan.cpp - the mixed-order fusion decision -------------------===//

#include "NormDialect/Tuning/FusionPlan.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <optional>
#include <vector>

using namespace mlir::norm;

namespace {
/// Kernels formed so far with what they read and which kernels they need.
struct KernelState {
  llvm::DenseSet<int64_t> fullInputs;
  /// Kernels whose results this kernel reads (transitively closed).
  llvm::DenseSet<unsigned> dependsOn;
  /// The group size of its group ops (0: none yet).
  int64_t groupSize = 0;
};
} // namespace

FusionPlan mlir::norm::planMixedOrderFusion(llvm::ArrayRef<FusionNode> nodes,
                                            bool allowFusion) {
  FusionPlan plan;
  std::vector<KernelState> kernels;
  for (auto [index, node] : llvm::enumerate(nodes)) {
    std::string reason;
    std::optional<unsigned> chosen;
    for (unsigned k = 0; allowFusion && k < kernels.size() && !chosen; ++k) {
      bool sharesInput = llvm::any_of(node.fullInputs, [&](int64_t id) {
        return kernels[k].fullInputs.contains(id);
      });
      bool readsKernel = llvm::any_of(
          node.producers, [&](unsigned p) { return plan.kernelOf[p] == k; });
      if (!sharesInput && !readsKernel)
        continue;
      if (node.kind == NodeKind::ColMap) {
        reason = "a column-only map has no per-row work to share with a "
                 "kernel";
        continue;
      }
      auto colProducer = llvm::find_if(node.producers, [&](unsigned p) {
        return plan.kernelOf[p] == k && nodes[p].kind == NodeKind::ColReduce;
      });
      if (colProducer != node.producers.end()) {
        reason = "it reads the column reduction #" +
                 std::to_string(*colProducer) +
                 ", which is complete only after every row has been seen";
        continue;
      }
      if (node.groupSize > 0 && kernels[k].groupSize > 0 &&
          node.groupSize != kernels[k].groupSize) {
        reason = "its groups of " + std::to_string(node.groupSize) +
                 " columns are not the kernel's groups of " +
                 std::to_string(kernels[k].groupSize);
        continue;
      }
      bool cycle = llvm::any_of(node.producers, [&](unsigned p) {
        unsigned other = plan.kernelOf[p];
        return other != k && kernels[other].dependsOn.contains(k);
      });
      if (cycle) {
        reason = "joining would make two kernels depend on each other";
        continue;
      }
      chosen = k;
    }
    // A row or group map is per-row epilogue work (rstd from a sum): it
    // always goes with the kernel of its first producer, even when fusion is
    // off.
    if (!chosen && !allowFusion &&
        (node.kind == NodeKind::RowMap || node.kind == NodeKind::GroupMap) &&
        !node.producers.empty())
      chosen = plan.kernelOf[node.producers.front()];
    if (!chosen) {
      chosen = kernels.size();
      kernels.emplace_back();
      plan.notFusedBecause.push_back(reason);
    } else {
      plan.notFusedBecause.push_back({});
    }
    KernelState &kernel = kernels[*chosen];
    kernel.fullInputs.insert(node.fullInputs.begin(), node.fullInputs.end());
    if (node.groupSize > 0)
      kernel.groupSize = node.groupSize;
    for (unsigned p : node.producers) {
      unsigned other = plan.kernelOf[p];
      if (other == *chosen)
        continue;
      kernel.dependsOn.insert(other);
      kernel.dependsOn.insert(kernels[other].dependsOn.begin(),
                              kernels[other].dependsOn.end());
    }
    // Kernels that depended on the chosen one now also depend on what it
    // gained.
    for (KernelState &k : kernels)
      if (k.dependsOn.contains(*chosen))
        k.dependsOn.insert(kernel.dependsOn.begin(), kernel.dependsOn.end());
    plan.kernelOf.push_back(*chosen);
  }
  plan.numKernels = kernels.size();
  return plan;
}
