//===- NormDialect.cpp - norm dialect ---------------------------*- C++ -*-===//

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Tuning/DeviceInfo.h"
#include "NormDialect/Tuning/KernelPlan.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::norm;

/// The most elements a plan's slices of a row may cover: far beyond any row
/// (2^40), and small enough that the lowering's sums of it fit 64 bits.
static constexpr int64_t kMaxPlanElements = int64_t{1} << 40;

#include "NormDialect/IR/NormDialect.cpp.inc"
#include "NormDialect/IR/NormEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "NormDialect/IR/NormAttrs.cpp.inc"

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t numSms,
                   int64_t registerBudget, int64_t maxClusterSize,
                   int64_t maxThreadsPerBlock, int64_t sharedMemoryPerBlock,
                   int64_t sharedMemoryPerSm, int64_t threadsPerSm,
                   int64_t registersPerSm, int64_t computeCapability) {
  // The tuning library says which values its rules take.
  std::string problem = numSms > 0 && numSms <= kMaxDeviceCount
                            ? validateRegisterBudget(registerBudget)
                            : "num_sms must be 1 to " +
                                  std::to_string(kMaxDeviceCount) + ", got " +
                                  std::to_string(numSms);
  if (problem.empty())
    problem = validateClusterSize(maxClusterSize);
  if (problem.empty() && (maxThreadsPerBlock < 32 || maxThreadsPerBlock % 32))
    problem = "max_threads_per_block must be a positive multiple of 32, got " +
              std::to_string(maxThreadsPerBlock);
  if (problem.empty())
    problem =
        validateSMResources(maxThreadsPerBlock, sharedMemoryPerBlock,
                            sharedMemoryPerSm, threadsPerSm, registersPerSm);
  if (problem.empty())
    problem = validateComputeCapability(computeCapability, maxClusterSize);
  if (!problem.empty())
    return emitError() << "invalid #norm.target: " << problem;
  return success();
}

LogicalResult PlanAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, KernelKind kind,
    int64_t threads, int64_t vectorWidth, int64_t chunksPerThread,
    int64_t columnSlices, int64_t rowGroups, bool warpRows, int64_t clusterSize,
    bool globalExchange, int64_t sharedStages, bool rereadStaged,
    int64_t l2PrefetchRows, int64_t l2PrefetchMinRows, bool bulkStores,
    bool holdsRow, int64_t sweepsPerStep, bool storesEarlyOutputs,
    bool latencyBoundReductions, int64_t rowsPerBlock, int64_t numStages,
    int64_t minBlocksPerSM, int64_t minBlocks, bool persistent) {
  auto fail = [&](const std::string &problem) {
    return emitError() << "invalid #norm.plan: " << problem;
  };
  // No kernel exists: nothing else is read.
  if (kind == KernelKind::off_chip)
    return success();
  if (threads < 1 || threads > 1024)
    return fail("threads must be 1 to 1024, got " + std::to_string(threads));
  if (vectorWidth < 1 || vectorWidth > 32 || !llvm::isPowerOf2_64(vectorWidth))
    return fail("vector_width must be a power of two up to 32, got " +
                std::to_string(vectorWidth));
  if (chunksPerThread < 1 || columnSlices < 1 || sweepsPerStep < 1 ||
      rowsPerBlock < 1)
    return fail("chunks_per_thread, column_slices, sweeps_per_step and "
                "rows_per_block must be positive");
  // The same bound as the passes' row-count options, so that the lowering's
  // products of these counts stay within 64 bits.
  if (std::max({chunksPerThread, columnSlices, sweepsPerStep, rowsPerBlock,
                l2PrefetchRows, l2PrefetchMinRows, numStages, minBlocks}) >
      kMaxRowCountOption)
    return fail("chunks_per_thread, column_slices, sweeps_per_step, "
                "rows_per_block, l2_prefetch_rows, l2_prefetch_min_rows, "
                "num_stages and min_blocks must be at most " +
                std::to_string(kMaxRowCountOption));
  // A block's slices of a row (threads x vector_width x chunks_per_thread
  // elements each).
  int64_t covered = threads * vectorWidth;
  for (int64_t factor : {chunksPerThread, columnSlices})
    if (llvm::MulOverflow(covered, factor, covered) ||
        covered > kMaxPlanElements)
      return fail("threads x vector_width x chunks_per_thread x column_slices "
                  "must be at most 2^40 elements");
  if (rowGroups < 1 || threads % rowGroups != 0)
    return fail("row_groups must divide the " + std::to_string(threads) +
                " threads, got " + std::to_string(rowGroups));
  if (std::string problem = validateClusterSize(clusterSize); !problem.empty())
    return fail(problem);
  if (storesEarlyOutputs && (kind != KernelKind::streaming || holdsRow))
    return fail("stores_early_outputs needs a streaming kernel that re-reads "
                "its row (holds_row false)");
  if (globalExchange && (clusterSize < 2 || sharedStages != 0))
    return fail("global_exchange needs a cluster_size of 2 or more blocks "
                "and no shared_stages (a block group holds its slices in "
                "registers)");
  if (sharedStages < 0 || sharedStages > 4)
    return fail("shared_stages must be 0 to 4, got " +
                std::to_string(sharedStages));
  if (l2PrefetchRows < 0 || l2PrefetchMinRows < 0 || numStages < 0 ||
      minBlocks < 0)
    return fail("l2_prefetch_rows, l2_prefetch_min_rows, num_stages and "
                "min_blocks must not be negative");
  if (minBlocksPerSM < 0 || minBlocksPerSM > 32)
    return fail("min_blocks_per_sm must be 0 (no limit) to 32, got " +
                std::to_string(minBlocksPerSM));
  return success();
}

LogicalResult NormDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  Attribute value = attribute.getValue();
  auto expect = [&](bool matches, StringRef kind) -> LogicalResult {
    if (matches)
      return success();
    return op->emitError() << "'" << name << "' must be " << kind << ", got "
                           << value;
  };
  if (name == TargetAttrHelper::getNameStr())
    return expect(isa<TargetAttr>(value), "a #norm.target");
  if (name == PlanAttrHelper::getNameStr())
    return expect(isa<PlanAttr>(value) && isa<FusedOp>(op),
                  "a #norm.plan on a norm.fused op");
  for (StringRef unit : {
           WholeColumnsAttrHelper::getNameStr(),
           StreamRowsAttrHelper::getNameStr(),
           PreloadColumnsAttrHelper::getNameStr(),
           WarpRowsAttrHelper::getNameStr(),
           WholeBlocksBranchAttrHelper::getNameStr(),
           ShortRowsAttrHelper::getNameStr(),
           PersistentAttrHelper::getNameStr(),
           StreamingAttrHelper::getNameStr(),
           BulkStoresAttrHelper::getNameStr(),
           ProgrammaticAttrHelper::getNameStr(),
           RowLoopAttrHelper::getNameStr(),
           PrefetchAttrHelper::getNameStr(),
           PredicateEpilogueAttrHelper::getNameStr(),
           FtzExactAttrHelper::getNameStr(),
       })
    if (name == unit)
      return expect(isa<UnitAttr>(value), "a unit attribute");
  for (StringRef integer : {
           SplitSizeAttrHelper::getNameStr(),
           NumStagesAttrHelper::getNameStr(),
           RowsPerBlockAttrHelper::getNameStr(),
           MinBlocksPerSmAttrHelper::getNameStr(),
           RowsBelowAttrHelper::getNameStr(),
           RowsMultipleAttrHelper::getNameStr(),
           VectorWidthAttrHelper::getNameStr(),
           BlockSizeAttrHelper::getNameStr(),
           ColsPerBlockAttrHelper::getNameStr(),
           RowsInParallelAttrHelper::getNameStr(),
           ColumnSlicesAttrHelper::getNameStr(),
           ClusterSizeAttrHelper::getNameStr(),
           BlockGroupAttrHelper::getNameStr(),
           SharedStagesAttrHelper::getNameStr(),
           DynamicSharedBytesAttrHelper::getNameStr(),
           PredicateOperandAttrHelper::getNameStr(),
       })
    if (name == integer)
      return expect(isa<IntegerAttr>(value), "an integer");
  return op->emitError() << "'" << name
                         << "' is not an attribute of the norm dialect";
}

void NormDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "NormDialect/IR/NormAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "NormDialect/IR/NormOps.cpp.inc"
      >();
}
