//===- TuningTest.cpp - launch and split decisions ------------------------===//

#include "NormDialect/Tuning/Tuning.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <tuple>

using namespace mlir::norm;

namespace {

TEST(Tuning, SplitSizeIsTheMeasuredBest) {
  DeviceInfo h200;
  EXPECT_EQ(chooseSplitSize(65536, 4096, h200), 64);
  EXPECT_EQ(chooseSplitSize(512, 131072, h200), 64);
  EXPECT_EQ(chooseSplitSize(std::nullopt, 4096, h200), 64);
}

// With min_partials F the split caps whole waves of F partial rows: 256
// rows each, so M = 65536 at F = 264 runs one wave (249 rows a partial)
// instead of four of 63 (+1-3% on the H200, +5% at 65536x2048).
TEST(Tuning, SplitSizeWithMinPartialsCapsWholeWaves) {
  DeviceInfo h200;
  EXPECT_EQ(chooseSplitSize(std::nullopt, 4096, h200, false, 264), 256);
  EXPECT_EQ(chooseSplitSize(65536, 4096, h200, false, 264), 256);
  EXPECT_EQ(chooseSplitSize(100, 4096, h200, false, 264), 100);
  // Over clusters the measured 32 stands (their split is uncapped anyway
  // under the rule's one wave).
  EXPECT_EQ(chooseSplitSize(std::nullopt, 65536, h200, true, 15), 32);
}

TEST(Tuning, SplitSizeNeverExceedsM) {
  DeviceInfo h200;
  EXPECT_EQ(chooseSplitSize(1, 4096, h200), 1);
  EXPECT_EQ(chooseSplitSize(10, 4096, h200), 10);
}

TEST(Tuning, ValidateSplitSize) {
  EXPECT_TRUE(validateSplitSize(1).empty());
  EXPECT_NE(validateSplitSize(0), "");
  EXPECT_NE(validateSplitSize(-3).find("-3"), std::string::npos);
}

TEST(Tuning, ValidateRegisterBudget) {
  EXPECT_TRUE(validateRegisterBudget(1).empty());
  EXPECT_TRUE(validateRegisterBudget(kMaxRegisterBudget).empty());
  EXPECT_NE(validateRegisterBudget(0), "");
  // Past a thread's registers: an error, where the layout searches would
  // otherwise count up to it.
  EXPECT_NE(validateRegisterBudget(kMaxRegisterBudget + 1), "");
  EXPECT_NE(validateRegisterBudget(int64_t{1} << 46).find("70368744177664"),
            std::string::npos);
  EXPECT_NE(validateClusterSize(3), "");
  EXPECT_TRUE(validateClusterSize(16).empty());
}

TEST(Tuning, RowLayoutAvoidsIdleThreads) {
  DeviceInfo h200;
  // 640 vectors of 8 bf16: 160 threads x 4 chunks, not 256 x 3.
  RowLayout n5120 = chooseRowLayout(5120, 2, 1, h200);
  EXPECT_EQ(n5120.threads, 160);
  EXPECT_EQ(n5120.chunksPerThread, 4);
  RowLayout n7168 = chooseRowLayout(7168, 2, 2, h200);
  EXPECT_EQ(n7168.threads * n7168.elementsPerThread(), 7168);
  EXPECT_EQ(chooseRowLayout(4096, 2, 1, h200).threads, 128);
}

TEST(Tuning, RowLayoutUses16ByteVectors) {
  DeviceInfo h200;
  RowLayout bf16 = chooseRowLayout(4096, 2, 1, h200);
  EXPECT_EQ(bf16.vectorWidth, 8);
  RowLayout f32 = chooseRowLayout(4096, 4, 1, h200);
  EXPECT_EQ(f32.vectorWidth, 4);
  EXPECT_GE(bf16.threads * bf16.elementsPerThread(), 4096);
  EXPECT_EQ(bf16.threads % 32, 0);
}

TEST(Tuning, RowLayoutNarrowsVectorsForOddN) {
  DeviceInfo h200;
  EXPECT_EQ(chooseRowLayout(1000, 2, 1, h200).vectorWidth, 8);
  EXPECT_EQ(chooseRowLayout(4097, 2, 1, h200).vectorWidth, 1);
  EXPECT_EQ(chooseRowLayout(4098, 2, 1, h200).vectorWidth, 2);
  // One element a row: one lane a row, 128 rows a block at once.
  RowLayout tiny = chooseRowLayout(1, 2, 1, h200, /*allowRowGroups=*/true);
  EXPECT_EQ(tiny.threadsPerRow(), 1);
  EXPECT_EQ(tiny.rowGroups, 128);
  EXPECT_EQ(tiny.chunksPerThread, 1);
}

TEST(Tuning, RowsOfFewerThan32VectorsShareAWarp) {
  DeviceInfo h200;
  // bf16 N = 64: 8 vectors, 8 lanes a row, four rows a warp.
  RowLayout heads = chooseRowLayout(64, 2, 1, h200, true);
  EXPECT_EQ(heads.threadsPerRow(), 8);
  EXPECT_EQ(heads.rowGroups, 16);
  EXPECT_EQ(heads.chunksPerThread, 1);
  // N = 128: 16 lanes; N = 100 (25 vectors of 4): a warp, 7 lanes guarded.
  EXPECT_EQ(chooseRowLayout(128, 2, 1, h200, true).threadsPerRow(), 16);
  EXPECT_EQ(chooseRowLayout(100, 2, 1, h200, true).threadsPerRow(), 32);
  EXPECT_EQ(chooseRowLayout(256, 2, 1, h200, true).threadsPerRow(), 32);
  for (int64_t n : {1, 24, 64, 100, 128, 256, 1024})
    EXPECT_GE(chooseRowLayout(n, 2, 1, h200, true).sliceWidth(), n) << n;
}

TEST(Tuning, GroupsSitOnConsecutiveLanesOfAChunk) {
  DeviceInfo h200;
  auto shapeOf = [](int64_t n, int64_t bytes, int64_t group,
                    int64_t fullOperands = 1) {
    KernelShape shape;
    shape.n = n;
    shape.elementBytes = bytes;
    shape.fullOperands = fullOperands;
    shape.fullOutputs = 1;
    shape.groupSize = group;
    return shape;
  };
  // FP8 1 x 128 scales, bf16 N = 4096: vectors of 8, a group's 16 lanes
  // inside the rule's block, which the plan keeps.
  KernelShape scales = shapeOf(4096, 2, 128);
  KernelPlan plan = planKernel(scales, h200, nullptr);
  EXPECT_EQ(plan.kind, KernelPlan::Kind::RowResident);
  EXPECT_EQ(plan.layout.vectorWidth, 8);
  EXPECT_EQ(plan.layout.threadsPerRow() % 16, 0);
  EXPECT_EQ(plan.layout.sharedStages, 0);
  EXPECT_FALSE(plan.layout.bulkStores);
  EXPECT_EQ(validatePlan(scales, plan, h200), "");
  EXPECT_EQ(validateGroupPlan(scales, plan), "");
  // Groups of 4 bf16 narrow the vectors to 4 elements.
  KernelShape narrow = shapeOf(4096, 2, 4);
  EXPECT_EQ(planKernel(narrow, h200, nullptr).layout.vectorWidth, 4);
  // Groups of 1024 bf16 (128 vectors) at N = 5120: 256 threads, not 160.
  KernelShape wide = shapeOf(5120, 2, 1024);
  plan = planKernel(wide, h200, nullptr);
  EXPECT_EQ(plan.layout.threads, 256);
  EXPECT_EQ(plan.layout.chunksPerThread, 3);
  EXPECT_EQ(validateGroupPlan(wide, plan), "");
  // Rows only a whole block holds (a residual add at N = 16384): 1024
  // threads, no register prefetch of the next row; longer rows fit nothing.
  KernelShape residual = shapeOf(16384, 2, 128, 2);
  plan = planKernel(residual, h200, nullptr);
  EXPECT_EQ(plan.layout.threads, 1024);
  EXPECT_EQ(plan.numStages, 1);
  EXPECT_EQ(validateGroupPlan(residual, plan), "");
  EXPECT_EQ(planKernel(shapeOf(65536, 4, 128, 2), h200, nullptr).kind,
            KernelPlan::Kind::OffChip);
  // 640 bf16 is 80 vectors of 8: no power of two of lanes for the GPU (the
  // plan itself is valid, for the CPU lowering).
  KernelShape odd = shapeOf(5120, 2, 640);
  plan = planKernel(odd, h200, nullptr);
  EXPECT_EQ(validatePlan(odd, plan, h200), "");
  EXPECT_NE(validateGroupPlan(odd, plan).find("power of two of vectors"),
            std::string::npos);
  // Forwards with groups never stream, whatever is asked.
  PlanRequest streamed;
  streamed.streamRows = true;
  EXPECT_EQ(planKernel(scales, h200, nullptr, streamed).kind,
            KernelPlan::Kind::RowResident);
}

TEST(Tuning, ShortRowsGetAWarpEach) {
  DeviceInfo h200;
  RowLayout small = chooseRowLayout(1024, 2, 1, h200, true);
  EXPECT_EQ(small.rowGroups, 4);
  EXPECT_EQ(small.threadsPerRow(), 32);
  EXPECT_GE(small.sliceWidth(), 1024);
  // Within the budget only: N = 2048 (64 elements a lane) is not.
  EXPECT_EQ(chooseRowLayout(2048, 2, 1, h200, true).rowGroups, 1);
  EXPECT_EQ(chooseRowLayout(4096, 2, 1, h200, true).rowGroups, 1);
  // Kernels with split column outputs keep a block per row.
  EXPECT_EQ(chooseRowLayout(1024, 2, 1, h200, false).rowGroups, 1);
}

TEST(Tuning, LongRowsAreSliced) {
  DeviceInfo h200;
  EXPECT_TRUE(rowsFitInRegisters(8192, 2, 2, 1, h200));
  EXPECT_FALSE(rowsFitInRegisters(131072, 2, 2, 1, h200));
  // 1024 threads leave 64 registers a thread: the LayerNorm backward at
  // N = 16384 (two column outputs) and the forward at N = 32768 spill there
  // (seen on the H200: 0.49 and 1.25 TB/s), so they take the long-row path.
  EXPECT_FALSE(rowsFitInRegisters(16384, 2, 2, 2, h200));
  EXPECT_FALSE(rowsFitInRegisters(32768, 2, 1, 0, h200));
  EXPECT_TRUE(rowsFitInRegisters(16384, 2, 1, 0, h200));
  RowLayout sliced = chooseSlicedLayout(131072, 2, 2, h200);
  EXPECT_GT(sliced.columnSlices, 1);
  EXPECT_GE(sliced.columnSlices * sliced.sliceWidth(), 131072);
  EXPECT_LE(sliced.elementsPerThread() * 2, h200.registerBudget);
  EXPECT_EQ(chooseSlicedLayout(4096, 2, 2, h200).columnSlices, 1);
  RowLayout stream = chooseStreamingLayout(131072, 2, h200);
  EXPECT_EQ(stream.vectorWidth, 8);
  EXPECT_EQ(stream.threads % 32, 0);
}

TEST(Tuning, RegisterLimitIsWhatPtxasAllowsTheBlock) {
  DeviceInfo h200;
  // N = 7168 f32 with two full operands: 448 threads x 16 elements. ptxas
  // sizes a 448-thread block as 512 (four warps a unit: one SM sub-
  // partition's registers hold a quarter of the block), so 128 registers a
  // thread, not 65536 / 448 = 146: an estimate of 128 fits, one of 144
  // (three column outputs) does not.
  RowLayout layout = chooseRowLayout(7168, 4, 2, h200);
  ASSERT_EQ(layout.threads, 448);
  EXPECT_EQ(estimateRegisters(layout, 4, 2, 2), 128);
  EXPECT_TRUE(rowsFitInRegisters(7168, 4, 2, 2, h200));
  EXPECT_EQ(estimateRegisters(layout, 4, 2, 3), 144);
  EXPECT_FALSE(rowsFitInRegisters(7168, 4, 2, 3, h200));
}

TEST(Tuning, LongRowsShareAClusterWhenOneFits) {
  DeviceInfo h200;
  // RMSNorm forward, N = 32K..128K bf16: 2, 4, 8 blocks of 256 threads, 64
  // elements a thread (twice the budget of one operand: one block per SM).
  for (auto [n, cluster] :
       {std::pair<int64_t, int64_t>{32768, 2}, {65536, 4}, {131072, 8}}) {
    std::optional<RowLayout> layout = chooseClusterLayout(n, 2, 1, 0, h200);
    ASSERT_TRUE(layout.has_value()) << n;
    EXPECT_EQ(layout->clusterSize, cluster) << n;
    EXPECT_EQ(layout->columnSlices, cluster) << n;
    EXPECT_EQ(layout->sliceWidth() * cluster, n) << n;
    EXPECT_EQ(layout->threads, 256) << n;
    EXPECT_LE(layout->elementsPerThread(), 2 * h200.registerBudget) << n;
    EXPECT_LE(estimateRegisters(*layout, 2, 1, 0), 65536 / layout->threads);
  }
  // Backward (x and dy, one or two column outputs): twice the blocks.
  EXPECT_EQ(chooseClusterLayout(32768, 2, 2, 1, h200)->clusterSize, 4);
  EXPECT_EQ(chooseClusterLayout(131072, 2, 2, 1, h200)->clusterSize, 16);
  // Two column outputs (LayerNorm) keep more live per element: more blocks,
  // and none holds N = 131072 without spilling.
  EXPECT_EQ(chooseClusterLayout(16384, 2, 2, 2, h200)->clusterSize, 4);
  EXPECT_EQ(chooseClusterLayout(65536, 2, 2, 2, h200)->clusterSize, 16);
  EXPECT_FALSE(chooseClusterLayout(131072, 2, 2, 2, h200).has_value());
  // Within the portable size only, the largest backward does not fit.
  DeviceInfo portable = h200;
  portable.maxClusterSize = 8;
  EXPECT_FALSE(chooseClusterLayout(131072, 2, 2, 1, portable).has_value());
  EXPECT_FALSE(rowsFitOnChip(131072, 2, 2, 1, portable));
  EXPECT_TRUE(rowsFitOnChip(131072, 2, 2, 1, h200));
  // Clusters off: long rows do not fit on chip.
  DeviceInfo noClusters = h200;
  noClusters.maxClusterSize = 1;
  EXPECT_FALSE(rowsFitOnChip(32768, 2, 1, 0, noClusters));
  EXPECT_TRUE(rowsFitOnChip(4096, 2, 1, 0, noClusters));
  // An odd N: slices of scalar chunks, the last one partly outside the row.
  std::optional<RowLayout> odd = chooseClusterLayout(32771, 2, 1, 0, h200);
  ASSERT_TRUE(odd.has_value());
  EXPECT_EQ(odd->vectorWidth, 1);
  EXPECT_GE(odd->sliceWidth() * odd->clusterSize, 32771);
  EXPECT_LT(odd->sliceWidth() * (odd->clusterSize - 1), 32771);
}

TEST(Tuning, SplitSizeOfClusterKernels) {
  DeviceInfo h200;
  EXPECT_EQ(chooseSplitSize(std::nullopt, 4096, h200), 64);
  EXPECT_EQ(chooseSplitSize(std::nullopt, 131072, h200, true), 32);
  EXPECT_EQ(chooseSplitSize(20, 131072, h200, true), 20);
}

TEST(Tuning, PlansFollowTheDeviceProperties) {
  // What the Python package reads from the driver reaches the plans: an
  // H100 PCIe (114 SMs) gets fewer partial rows and forward blocks than the
  // SXM's 132, and an SM of 100 KB of shared memory (an sm_89 GPU's) does
  // not stage the rows of the RMSNorm backward at N = 8192, which 228 KB
  // stage twice (two blocks of two 16 KB rows of each input).
  DeviceInfo sxm, pcie, ada;
  pcie.numSMs = 114;
  ada.numSMs = 128;
  ada.sharedMemoryPerBlock = 99 * 1024;
  ada.sharedMemoryPerSM = 100 * 1024;
  ada.threadsPerSM = 1536;
  KernelShape rmsBwd{4096, 2, 2, 1, 1, false};
  EXPECT_EQ(chooseMinPartials(rmsBwd, planKernel(rmsBwd, sxm, nullptr), sxm),
            264);
  EXPECT_EQ(chooseMinPartials(rmsBwd, planKernel(rmsBwd, pcie, nullptr), pcie),
            228);
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(rmsFwd, sxm, nullptr).minBlocks, 8 * 132);
  EXPECT_EQ(planKernel(rmsFwd, pcie, nullptr).minBlocks, 8 * 114);
  KernelShape rmsBwd8K{8192, 2, 2, 1, 1, false};
  EXPECT_EQ(planKernel(rmsBwd8K, sxm, nullptr).layout.sharedStages, 2);
  EXPECT_EQ(planKernel(rmsBwd8K, ada, nullptr).layout.sharedStages, 0);
  // Clusters the GPU holds at once follow the SM count too.
  EXPECT_LT(pcie.residentClusters(8), sxm.residentClusters(8));
}

TEST(Tuning, ChipsBeforeHopperPlanWithoutItsCopiesAndClusters) {
  // Compute capability 80 (the portable kernels): an A100's resources, no
  // clusters, and none of the plans that need bulk copies (staged rows,
  // bulk stores, the bulk L2 prefetch), which 90 gets for the same shapes.
  DeviceInfo hopper = deviceOfCapability(90);
  DeviceInfo ampere = deviceOfCapability(80);
  EXPECT_EQ(hopper.numSMs, 132);
  EXPECT_EQ(hopper.maxClusterSize, 16);
  EXPECT_EQ(ampere.numSMs, 108);
  EXPECT_EQ(ampere.sharedMemoryPerBlock, 163 * 1024);
  EXPECT_EQ(ampere.maxClusterSize, 1);
  EXPECT_FALSE(ampere.hasBulkCopies() || ampere.hasDependentLaunch() ||
               ampere.hasFloat8Conversion());
  EXPECT_TRUE(deviceOfCapability(89).hasFloat8Conversion());
  EXPECT_EQ(deviceOfCapability(100).numSMs, 148);
  EXPECT_EQ(deviceOfCapability(120).maxClusterSize, 8);
  // The same SMs, so that only the capability differs.
  DeviceInfo portable = hopper;
  portable.computeCapability = 80;
  portable.maxClusterSize = 1;
  // {n, bytes, full inputs, column outputs, reductions, only row outputs,
  //  narrowest input, column input bytes, full outputs}
  KernelShape rmsBwd2K{2048, 2, 2, 1, 1, false, 0, 2, 1};
  KernelPlan staged = planKernel(rmsBwd2K, hopper, nullptr);
  KernelPlan held = planKernel(rmsBwd2K, portable, nullptr);
  EXPECT_GT(staged.layout.sharedStages, 0);
  EXPECT_EQ(held.layout.sharedStages, 0);
  EXPECT_TRUE(staged.layout.bulkStores);
  EXPECT_FALSE(held.layout.bulkStores);
  // Asked for, staging and bulk stores are still refused.
  KernelPlan asked =
      planKernel(rmsBwd2K, portable, nullptr,
                 PlanRequest().setSharedStages(2).setBulkStores(1));
  EXPECT_EQ(asked.layout.sharedStages, 0);
  EXPECT_FALSE(asked.layout.bulkStores);
  KernelShape longFwd{32768, 2, 1, 0, 2, false};
  EXPECT_EQ(planKernel(longFwd, hopper, nullptr).layout.l2PrefetchRows, 64);
  EXPECT_EQ(planKernel(longFwd, portable, nullptr).layout.l2PrefetchRows, 0);
  // Long backward rows: a cluster of 8 on Hopper; here RMSNorm's is a block
  // group of 8 (BlockGroupsShareLongBackwardRowsWithoutClusters), and
  // LayerNorm's none, so --norm-split-rows takes its statistics out first.
  KernelShape longBwd{65536, 2, 2, 1, 1, false};
  KernelPlan clustered = planKernel(longBwd, hopper, nullptr);
  EXPECT_EQ(clustered.kind, KernelPlan::Kind::Cluster);
  EXPECT_FALSE(clustered.layout.globalExchange);
  KernelPlan grouped = planKernel(longBwd, portable, nullptr);
  EXPECT_EQ(grouped.kind, KernelPlan::Kind::Cluster);
  EXPECT_TRUE(grouped.layout.globalExchange);
  KernelShape longLayerNormBwd{65536, 2, 2, 2, 2, false};
  EXPECT_EQ(planKernel(longLayerNormBwd, portable, nullptr).kind,
            KernelPlan::Kind::OffChip);
  EXPECT_FALSE(rowsFitOnChip(longLayerNormBwd, portable, -1));
  // Long forward rows stream there (re-read from L2) instead of being split;
  // Hopper spreads N = 131072 over a cluster.
  KernelShape widestFwd{131072, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(widestFwd, hopper, nullptr).kind,
            KernelPlan::Kind::Cluster);
  EXPECT_EQ(planKernel(widestFwd, portable, nullptr).kind,
            KernelPlan::Kind::Streaming);
  EXPECT_TRUE(rowsFitOnChip(widestFwd, portable, -1));
  // A staged plan written for Hopper is refused on the older chip.
  EXPECT_NE(validatePlan(rmsBwd2K, staged, portable).find("bulk copies"),
            std::string::npos);
  EXPECT_EQ(validatePlan(rmsBwd2K, held, portable), "");
  // The target's checks: Ampere from 80, and no clusters below 90.
  EXPECT_EQ(validateComputeCapability(80, 1), "");
  EXPECT_NE(validateComputeCapability(80, 16).find("max_cluster_size must "
                                                   "be 1"),
            std::string::npos);
  EXPECT_NE(validateComputeCapability(75, 1).find("at least 80"),
            std::string::npos);
}

TEST(Tuning, PlanPicksTheLayoutKind) {
  DeviceInfo h200;
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false};
  KernelPlan plan = planKernel(rmsFwd, h200, nullptr);
  EXPECT_EQ(plan.kind, KernelPlan::Kind::RowResident);
  EXPECT_EQ(plan.rowsPerBlock, chooseRowsPerBlock(4096, 2, h200));
  EXPECT_EQ(plan.numStages, 0);
  // Short forward rows: a warp each; the backward (column outputs) keeps a
  // block per row.
  EXPECT_EQ(
      planKernel({1024, 2, 1, 0, 1, false}, h200, nullptr).layout.rowGroups, 4);
  EXPECT_EQ(
      planKernel({1024, 2, 2, 1, 1, false}, h200, nullptr).layout.rowGroups, 1);
  // ... except rows of at most 16 vectors (bf16 N = 64, 128), whose row
  // groups share their block's partial row; a row of a warp (N = 200: 25
  // vectors of 8) keeps its block.
  EXPECT_EQ(planKernel({64, 2, 2, 1, 1, false}, h200, nullptr).layout.rowGroups,
            16);
  EXPECT_EQ(
      planKernel({128, 2, 3, 1, 1, false}, h200, nullptr).layout.rowGroups, 8);
  EXPECT_EQ(
      planKernel({200, 2, 2, 1, 1, false}, h200, nullptr).layout.rowGroups, 1);
  EXPECT_EQ(
      planKernel({256, 2, 2, 1, 1, false}, h200, nullptr).layout.rowGroups, 1);
  // Long rows: a cluster, unless the kernel only computes statistics.
  KernelPlan longBwd = planKernel({65536, 2, 2, 1, 1, false}, h200, nullptr);
  EXPECT_EQ(longBwd.kind, KernelPlan::Kind::Cluster);
  EXPECT_EQ(longBwd.layout.clusterSize, 8);
  EXPECT_EQ(planKernel({131072, 2, 2, 0, 1, true}, h200, nullptr).kind,
            KernelPlan::Kind::Streaming);
  // No row reductions: column slices.
  KernelPlan sliced = planKernel({131072, 2, 2, 1, 0, false}, h200, nullptr);
  EXPECT_EQ(sliced.kind, KernelPlan::Kind::Sliced);
  EXPECT_GT(sliced.layout.columnSlices, 1);
}

TEST(Tuning, PlanAppliesTheTableToRowResidentKernelsOnly) {
  DeviceInfo h200;
  TuningTable table;
  table.add({8192, 2, 1, 0, 2}, {16, 8, 2, 2});
  table.add({65536, 2, 1, 0, 1}, {64, 3, 3, 2});
  KernelPlan lnFwd = planKernel({8192, 2, 1, 0, 2, false}, h200, &table);
  EXPECT_EQ(lnFwd.rowsPerBlock, 8);
  EXPECT_EQ(lnFwd.numStages, 2);
  EXPECT_EQ(lnFwd.minBlocksPerSM, 2);
  // Budget 16: two chunks of 8 a thread, 512 threads.
  EXPECT_EQ(lnFwd.layout.threads, 512);
  // Entries of another class do not apply; the nearest N of the same class
  // does.
  EXPECT_EQ(planKernel({8192, 2, 2, 1, 1, false}, h200, &table).numStages, 0);
  EXPECT_EQ(planKernel({8192, 2, 1, 0, 1, false}, h200, &table).numStages, 3);
  // Rows over a cluster follow the rules even with an entry of their class.
  KernelPlan clustered = planKernel({65536, 2, 1, 0, 1, false}, h200, &table);
  EXPECT_EQ(clustered.kind, KernelPlan::Kind::Cluster);
  EXPECT_EQ(clustered.numStages, 0);
  // Persistent: one row at a time, strided by the grid; else the rule's 8.
  EXPECT_EQ(clustered.rowsPerBlock, 1);
  EXPECT_EQ(planKernel({65536, 2, 1, 0, 1, false}, h200, &table,
                       PlanRequest().setPersistent(false))
                .rowsPerBlock,
            8);
}

TEST(Tuning, PlanSkipsTableEntriesWhoseBudgetOverflowsTheRow) {
  // RMSNorm's backward (x and dy held, one column output): N = 8192's entry
  // (budget 16: one 8-element vector a thread, 1024 threads) cannot hold
  // N = 9216 (1152 vectors) in a block; the next nearest entry whose budget
  // holds the row applies (N = 16384's: budget 32, 576 threads of two
  // vectors, rows staged 3 deep).
  DeviceInfo h200;
  TuningTable table;
  TuningChoice short8192{16, 0, 2};
  short8192.sharedStages = 0;
  TuningChoice long16384{32, 0, 0};
  long16384.sharedStages = 3;
  table.add({8192, 2, 2, 1, 1}, short8192);
  table.add({16384, 2, 2, 1, 1}, long16384);
  KernelShape rmsBwd{9216, 2, 2, 1, 1, false};
  KernelPlan plan = planKernel(rmsBwd, h200, &table);
  EXPECT_EQ(plan.kind, KernelPlan::Kind::RowResident);
  EXPECT_EQ(plan.layout.threads, 576);
  EXPECT_EQ(plan.layout.sharedStages, 3);
  EXPECT_EQ(plan.numStages, 0);
  // At N = 8192 its own entry holds the row and applies.
  KernelPlan own = planKernel({8192, 2, 2, 1, 1, false}, h200, &table);
  EXPECT_EQ(own.layout.threads, 1024);
  EXPECT_EQ(own.layout.sharedStages, 0);
  EXPECT_EQ(own.numStages, 2);
  // With no entry that holds the row, the rule's plan (no staging past
  // 16 KB rows).
  TuningTable onlyShort;
  onlyShort.add({8192, 2, 2, 1, 1}, short8192);
  KernelPlan rule = planKernel(rmsBwd, h200, &onlyShort);
  EXPECT_EQ(rule.layout.threads, 576);
  EXPECT_EQ(rule.layout.sharedStages, 0);
}

TEST(Tuning, SharedStagesOnlyWhereTheProtocolHolds) {
  DeviceInfo h200;
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false};
  RowLayout block = chooseRowLayout(4096, 2, 1, h200);
  EXPECT_EQ(stagedBytes(rmsFwd, block, 3), 3 * 8192);
  EXPECT_EQ(chooseSharedStages(rmsFwd, block, h200, 3), 3);
  EXPECT_EQ(chooseSharedStages(rmsFwd, block, h200, 0), 0);
  // Dynamic shared memory holds 4 x 32 KB rows (N = 16384) but not 4 rows
  // of two inputs at N = 16384 (256 KB > 227 KB).
  KernelShape wide{16384, 2, 1, 0, 1, false};
  RowLayout wideBlock = chooseRowLayout(16384, 2, 1, h200);
  EXPECT_EQ(chooseSharedStages(wide, wideBlock, h200, 4), 4);
  KernelShape wideBwd{16384, 2, 2, 1, 1, false};
  RowLayout wideBwdBlock = chooseRowLayout(16384, 2, 2, h200);
  EXPECT_EQ(chooseSharedStages(wideBwd, wideBwdBlock, h200, 4), 0);
  EXPECT_EQ(chooseSharedStages(wideBwd, wideBwdBlock, h200, 3), 3);
  // A smaller device limit is respected.
  DeviceInfo small = h200;
  small.sharedMemoryPerBlock = 48 * 1024;
  EXPECT_EQ(chooseSharedStages(wide, wideBlock, small, 2), 0);
  // A warp per row has no block barrier to order the reuse of a stage.
  KernelShape shortRows{1024, 2, 1, 0, 1, false};
  EXPECT_EQ(chooseSharedStages(
                shortRows, chooseRowLayout(1024, 2, 1, h200, true), h200, 2),
            0);
  // Odd N: rows are not whole 16-byte vectors.
  KernelShape odd{4097, 2, 1, 0, 1, false};
  EXPECT_EQ(chooseSharedStages(odd, chooseRowLayout(4097, 2, 1, h200), h200, 2),
            0);
  // Mixed activations: f32 dy sets the vector width, but bf16 rows of N =
  // 1004 are not 16-byte multiples.
  KernelShape mixed{1004, 4, 2, 1, 1, false, /*narrowestInputBytes=*/2};
  EXPECT_EQ(
      chooseSharedStages(mixed, chooseRowLayout(1004, 4, 2, h200), h200, 2), 0);
  KernelShape f32{1004, 4, 2, 1, 1, false};
  EXPECT_EQ(chooseSharedStages(f32, chooseRowLayout(1004, 4, 2, h200), h200, 2),
            2);
}

// Staged backwards store dx through shared memory by one bulk copy a row
// (measured: LayerNorm +0-3% at every staged N, RMSNorm +1-2% from N = 2048
// but -0-2% at 1000-1024); forwards keep the threads' stores (-1-5%).
TEST(Tuning, BulkStoresForStagedBackwards) {
  DeviceInfo h200;
  // {n, bytes, full inputs, column outputs, reductions, only row outputs,
  //  narrowest input, column input bytes, full outputs}
  KernelShape lnBwd{1000, 2, 2, 2, 2, false, 0, 2, 1};
  KernelPlan ln = planKernel(lnBwd, h200, nullptr);
  ASSERT_GT(ln.layout.sharedStages, 0);
  EXPECT_TRUE(allowsBulkStores(lnBwd, ln, h200));
  EXPECT_TRUE(ln.layout.bulkStores);
  KernelShape rmsBwd{1024, 2, 2, 1, 1, false, 0, 2, 1};
  EXPECT_FALSE(planKernel(rmsBwd, h200, nullptr).layout.bulkStores);
  rmsBwd.n = 2048;
  EXPECT_TRUE(planKernel(rmsBwd, h200, nullptr).layout.bulkStores);
  // A forward with a block per row (the table's budget at N = 1024).
  DeviceInfo blockRows = h200;
  blockRows.registerBudget = 16;
  KernelShape lnFwd{1000, 2, 1, 0, 2, false, 0, 4, 1};
  KernelPlan fwd = planKernel(lnFwd, blockRows, nullptr);
  ASSERT_GT(fwd.layout.sharedStages, 0);
  EXPECT_TRUE(allowsBulkStores(lnFwd, fwd, blockRows));
  EXPECT_FALSE(fwd.layout.bulkStores);
  // The request wins where the kernel allows it.
  EXPECT_TRUE(
      planKernel(lnFwd, blockRows, nullptr, PlanRequest().setBulkStores(1))
          .layout.bulkStores);
  EXPECT_FALSE(planKernel(lnBwd, h200, nullptr, PlanRequest().setBulkStores(0))
                   .layout.bulkStores);
  // Not allowed: rows in registers (no stages), a warp per row (no block
  // barrier orders the writes before the copy), rows over a cluster, output
  // rows that are not 16-byte multiples (bf16 dx of N = 1004 beside f32
  // inputs), no full output.
  PlanRequest on = PlanRequest().setBulkStores(1);
  EXPECT_FALSE(planKernel(lnBwd, h200, nullptr,
                          PlanRequest().setSharedStages(0).setBulkStores(1))
                   .layout.bulkStores);
  KernelShape shortFwd{256, 2, 1, 0, 1, false, 0, 2, 1};
  KernelPlan warpRows = planKernel(shortFwd, h200, nullptr, on);
  ASSERT_GT(warpRows.layout.rowGroups, 1);
  EXPECT_FALSE(warpRows.layout.bulkStores);
  KernelShape longBwd{65536, 2, 2, 2, 2, false, 0, 4, 1};
  KernelPlan cluster = planKernel(longBwd, h200, nullptr, on);
  ASSERT_EQ(cluster.kind, KernelPlan::Kind::Cluster);
  EXPECT_FALSE(cluster.layout.bulkStores);
  KernelShape mixed{1004, 4, 2, 1, 1, false, 4, 4, 1, /*narrowestOutput=*/2};
  KernelPlan mixedPlan = planKernel(mixed, h200, nullptr, on);
  ASSERT_GT(mixedPlan.layout.sharedStages, 0);
  EXPECT_FALSE(mixedPlan.layout.bulkStores);
  mixed.narrowestOutputBytes = 4;
  EXPECT_TRUE(planKernel(mixed, h200, nullptr, on).layout.bulkStores);
  KernelShape stats{1000, 2, 1, 0, 2, true, 0, 0, 0};
  EXPECT_FALSE(allowsBulkStores(stats, fwd, blockRows));
  // The output slots must fit beside the stages: at N = 8192, two stages
  // of x and dy take 64 KB (plus 3 KB), two slots of dx 32 KB more.
  KernelShape wideBwd{8192, 2, 2, 2, 2, false, 0, 4, 1};
  DeviceInfo tight = h200;
  tight.sharedMemoryPerBlock = 80 * 1024;
  KernelPlan tightPlan = planKernel(wideBwd, tight, nullptr);
  ASSERT_EQ(tightPlan.layout.sharedStages, 2);
  EXPECT_FALSE(allowsBulkStores(wideBwd, tightPlan, tight));
  tight.sharedMemoryPerBlock = 100 * 1024;
  EXPECT_TRUE(allowsBulkStores(wideBwd, tightPlan, tight));
  // A table entry's measurement overrides the rule; the request overrides
  // the table.
  TuningTable measuredOff, measuredOn;
  TuningChoice slower, faster;
  slower.bulkStores = 0;
  faster.bulkStores = 1;
  measuredOff.add({1000, 2, 2, 2, 2}, slower);
  measuredOn.add({1024, 2, 2, 1, 1}, faster);
  EXPECT_FALSE(planKernel(lnBwd, h200, &measuredOff).layout.bulkStores);
  EXPECT_TRUE(planKernel(lnBwd, h200, &measuredOff, on).layout.bulkStores);
  KernelShape rmsBwd1024{1024, 2, 2, 1, 1, false, 0, 2, 1};
  EXPECT_TRUE(planKernel(rmsBwd1024, h200, &measuredOn).layout.bulkStores);
  // The rule keeps the threads' stores where the slots would cost a block
  // per SM: here shared memory holds two blocks' stages, not their slots.
  KernelShape lnBwd4096{4096, 2, 2, 2, 2, false, 0, 4, 1};
  KernelPlan roomy = planKernel(lnBwd4096, h200, nullptr);
  ASSERT_GT(roomy.layout.sharedStages, 0);
  EXPECT_TRUE(roomy.layout.bulkStores);
  DeviceInfo twoBlocks = h200;
  twoBlocks.sharedMemoryPerSM =
      2 * (stagedBytes(lnBwd4096, roomy.layout, roomy.layout.sharedStages) +
           3 * 1024);
  KernelPlan tightSM = planKernel(lnBwd4096, twoBlocks, nullptr);
  ASSERT_EQ(tightSM.layout.sharedStages, roomy.layout.sharedStages);
  ASSERT_EQ(estimateBlocksPerSM(lnBwd4096, tightSM.layout, twoBlocks), 2);
  EXPECT_FALSE(tightSM.layout.bulkStores);
  EXPECT_TRUE(planKernel(lnBwd4096, twoBlocks, nullptr, on).layout.bulkStores);
  EXPECT_TRUE(validateBulkStores(-1).empty());
  EXPECT_TRUE(validateBulkStores(1).empty());
  EXPECT_FALSE(validateBulkStores(2).empty());
  EXPECT_FALSE(validateBulkStores(-2).empty());
}

// Forwards whose blocks own several rows spread a short M over a block per
// row, up to 8 rows per SM (measured +4-24% at 16-1024 rows).
TEST(Tuning, ForwardsSpreadShortMOverBlocks) {
  DeviceInfo h200;
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false, 0, 2, 1};
  KernelPlan fwd = planKernel(rmsFwd, h200, nullptr);
  ASSERT_EQ(fwd.kind, KernelPlan::Kind::RowResident);
  ASSERT_GT(fwd.rowsPerBlock, 1);
  EXPECT_EQ(fwd.minBlocks, 8 * 132);
  DeviceInfo small = h200;
  small.numSMs = 16;
  EXPECT_EQ(planKernel(rmsFwd, small, nullptr).minBlocks, 8 * 16);
  // Backwards take theirs from the split; a warp per row, a block of one
  // row, persistent clusters and statistics kernels get none.
  KernelShape rmsBwd{4096, 2, 2, 1, 1, false, 0, 2, 1};
  EXPECT_EQ(planKernel(rmsBwd, h200, nullptr).minBlocks, 0);
  // A warp a row of two vectors a lane (N = 512 bf16) gets none.
  KernelShape shortFwd{512, 2, 1, 0, 1, false, 0, 2, 1};
  KernelPlan warpRows = planKernel(shortFwd, h200, nullptr);
  ASSERT_GT(warpRows.layout.rowGroups, 1);
  ASSERT_EQ(warpRows.layout.chunksPerThread, 2);
  EXPECT_EQ(warpRows.minBlocks, 0);
  // Row groups of one vector a lane (N = 128 and 256 bf16) spread M too.
  KernelShape warpFwd{256, 2, 1, 0, 1, false, 0, 2, 1};
  EXPECT_EQ(planKernel(warpFwd, h200, nullptr).minBlocks, 8 * 132);
  KernelShape headFwd{128, 2, 1, 0, 1, false, 0, 2, 1};
  EXPECT_EQ(planKernel(headFwd, h200, nullptr).minBlocks, 8 * 132);
  KernelPlan one = fwd;
  one.rowsPerBlock = 1;
  EXPECT_EQ(chooseMinBlocks(rmsFwd, one, h200), 0);
  KernelShape clusterFwd{131072, 2, 1, 0, 1, false, 0, 2, 1};
  KernelPlan cluster = planKernel(clusterFwd, h200, nullptr);
  ASSERT_TRUE(cluster.persistent);
  EXPECT_EQ(cluster.minBlocks, 0);
  KernelShape stats{4096, 2, 1, 0, 1, true};
  EXPECT_EQ(chooseMinBlocks(stats, fwd, h200), 0);
}

// Rows of one vector a lane (head rows, shorter than a warp or a warp a row)
// walk four rows a group with all four loads in flight, and their blocks
// spread M like the forwards' of a block a row; a table entry of another N
// (measured with a block a row) does not set their walk, one at their own N
// does.
TEST(Tuning, HeadRowGroupsWalkFourRows) {
  DeviceInfo h200;
  KernelShape heads{128, 2, 1, 0, 1, false, 0, 2, 1};
  KernelPlan plan = planKernel(heads, h200, nullptr);
  ASSERT_EQ(plan.kind, KernelPlan::Kind::RowResident);
  ASSERT_EQ(plan.layout.rowGroups, 8);
  EXPECT_EQ(plan.rowsPerBlock, 4);
  EXPECT_EQ(plan.numStages, 4);
  EXPECT_EQ(plan.minBlocks, 8 * 132);
  RowGroupWalk walk = chooseRowGroupWalk(plan.layout, 0, 0);
  EXPECT_EQ(walk.rowsPerBlock, 4);
  EXPECT_EQ(walk.numStages, 4);
  // A warp a row of one vector a lane (N = 100 bf16: 25 vectors of four)
  // walks the same; of two (N = 512), and groups sharing a partial row (a
  // backward's), keep their walk.
  KernelPlan ragged =
      planKernel({100, 2, 1, 0, 1, false, 0, 2, 1}, h200, nullptr);
  ASSERT_EQ(ragged.layout.threadsPerRow(), 32);
  EXPECT_EQ(ragged.rowsPerBlock, 4);
  EXPECT_EQ(ragged.numStages, 4);
  KernelPlan warpRow =
      planKernel({512, 2, 1, 0, 1, false, 0, 2, 1}, h200, nullptr);
  EXPECT_EQ(chooseRowGroupWalk(warpRow.layout, 0, 0).rowsPerBlock, 0);
  EXPECT_EQ(chooseRowGroupWalk(plan.layout, 1, 0).rowsPerBlock, 0);
  RowLayout blockRow;
  blockRow.threads = 128;
  EXPECT_EQ(chooseRowGroupWalk(blockRow, 0, 0).rowsPerBlock, 0);

  TuningTable table;
  table.add({1024, 2, 1, 0, 1}, {16, 2, 2, 2});
  KernelPlan borrowed = planKernel(heads, h200, &table);
  EXPECT_EQ(borrowed.rowsPerBlock, 4);
  EXPECT_EQ(borrowed.numStages, 4);
  EXPECT_EQ(borrowed.minBlocksPerSM, 0);
  table.add({128, 2, 1, 0, 1}, {16, 2, 3, 0});
  KernelPlan measured = planKernel(heads, h200, &table);
  EXPECT_EQ(measured.rowsPerBlock, 2);
  EXPECT_EQ(measured.numStages, 3);
}

TEST(Tuning, ClusterBlocksStageTheirSlice) {
  DeviceInfo h200;
  KernelShape longRow{131072, 2, 1, 0, 1, false};
  std::optional<RowLayout> cluster = chooseClusterLayout(131072, 2, 1, 0, h200);
  ASSERT_TRUE(cluster.has_value());
  EXPECT_EQ(stagedBytes(longRow, *cluster, 2), 2 * cluster->sliceWidth() * 2);
  EXPECT_EQ(chooseSharedStages(longRow, *cluster, h200, 2), 2);
}

TEST(Tuning, SharedStagesFromRequestTableOrRule) {
  DeviceInfo h200;
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false};
  // The request wins; -1 asks the table, then the rule (2 stages where two
  // blocks still fit an SM).
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr, PlanRequest().setSharedStages(3))
                .layout.sharedStages,
            3);
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr, PlanRequest().setSharedStages(0))
                .layout.sharedStages,
            0);
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr).layout.sharedStages, 2);
  TuningTable table;
  TuningChoice off;
  off.sharedStages = 0;
  table.add({4096, 2, 1, 0, 1}, off);
  EXPECT_EQ(planKernel(rmsFwd, h200, &table).layout.sharedStages, 0);
  TuningChoice deep;
  deep.sharedStages = 3;
  table.add({4096, 2, 1, 0, 1}, deep);
  EXPECT_EQ(planKernel(rmsFwd, h200, &table).layout.sharedStages, 3);
  // An entry without a depth leaves it to the rule.
  table.add({4096, 2, 1, 0, 1}, TuningChoice{});
  EXPECT_EQ(planKernel(rmsFwd, h200, &table).layout.sharedStages, 2);
  // The rule stages rows of up to 16 KB per input (measured slower above)
  // and keeps two blocks per SM.
  KernelShape wideFwd{16384, 2, 1, 0, 1, false};
  EXPECT_EQ(
      defaultSharedStages(wideFwd, chooseRowLayout(16384, 2, 1, h200), h200),
      0);
  KernelShape f32Fwd{4096, 4, 1, 0, 1, false};
  EXPECT_EQ(
      defaultSharedStages(f32Fwd, chooseRowLayout(4096, 4, 1, h200), h200), 2);
  DeviceInfo smallSM = h200;
  smallSM.sharedMemoryPerSM = 64 * 1024;
  KernelShape bwd8K{8192, 2, 2, 1, 1, false};
  EXPECT_EQ(
      defaultSharedStages(bwd8K, chooseRowLayout(8192, 2, 2, h200), smallSM),
      0);
  EXPECT_EQ(defaultSharedStages(bwd8K, chooseRowLayout(8192, 2, 2, h200), h200),
            2);
  // Rows over a cluster keep the register prefetch unless asked (or re-read,
  // see ClustersWithTwoColumnOutputsRereadStagedRows).
  KernelShape longRow{131072, 2, 1, 0, 1, false};
  RowLayout cluster = *chooseClusterLayout(131072, 2, 1, 0, h200);
  EXPECT_EQ(defaultSharedStages(longRow, cluster, h200), 0);
  EXPECT_EQ(planKernel(longRow, h200, nullptr, PlanRequest().setSharedStages(2))
                .layout.sharedStages,
            2);
}

TEST(Tuning, RaggedRowsTakeClustersOfAnyWarpCount) {
  DeviceInfo h200;
  // N = 40000 bf16 (5000 vectors): 256/512/1024-thread slices overshoot so
  // far that the last slice starts outside the row; 320 threads x 2
  // vectors a block (5120 columns) over 8 blocks cover it, within the
  // registers (with 32 spare) of a 320-thread block.
  for (int64_t columnOutputs : {1, 2}) {
    std::optional<RowLayout> layout =
        chooseClusterLayout(40000, 2, 2, columnOutputs, h200);
    ASSERT_TRUE(layout.has_value()) << columnOutputs;
    EXPECT_EQ(layout->clusterSize, 8);
    EXPECT_EQ(layout->threads, 320);
    EXPECT_EQ(layout->chunksPerThread, 2);
    EXPECT_LT(layout->sliceWidth() * 7, 40000);
    EXPECT_GE(layout->sliceWidth() * 8, 40000);
  }
  EXPECT_TRUE(rowsFitOnChip(40000, 2, 2, 1, h200));
  // Powers of two keep their layouts where one fits.
  EXPECT_EQ(chooseClusterLayout(65536, 2, 2, 2, h200)->threads, 256);
}

TEST(Tuning, OneReductionClustersTakeTwiceTheThreads) {
  DeviceInfo h200;
  // KernelShape: n, element bytes, full operands, column outputs, row
  // reductions, only row outputs.
  // RMSNorm (one row reduction) at N = 65536 bf16: the same clusters as
  // the shape-free rule (4 blocks forward, 8 backward), 512 threads a block
  // instead of 256 (32 elements a thread instead of 64).
  KernelShape rmsFwd{65536, 2, 1, 0, 1, false};
  KernelShape rmsBwd{65536, 2, 2, 1, 1, false};
  for (const KernelShape &shape : {rmsFwd, rmsBwd}) {
    std::optional<RowLayout> rule =
        chooseClusterLayout(shape.n, shape.elementBytes, shape.fullOperands,
                            shape.columnOutputs, h200);
    std::optional<RowLayout> layout = chooseClusterLayout(shape, h200);
    ASSERT_TRUE(rule && layout);
    EXPECT_EQ(rule->threads, 256);
    EXPECT_EQ(layout->threads, 512);
    EXPECT_EQ(layout->clusterSize, rule->clusterSize);
    EXPECT_EQ(layout->elementsPerThread() * 2, rule->elementsPerThread());
  }
  // Two reductions (LayerNorm) keep the fewest threads.
  KernelShape lnFwd{65536, 2, 1, 0, 2, false};
  EXPECT_EQ(chooseClusterLayout(lnFwd, h200)->threads, 256);
  // A ragged row keeps its balanced slices (40000 = 3 x 10240 + 9280 over
  // 256 threads, not 3 x 12288 + 3136 over 512).
  KernelShape rmsFwdRagged{40000, 2, 1, 0, 1, false};
  EXPECT_EQ(chooseClusterLayout(rmsFwdRagged, h200)->threads, 256);
  // f32 rows estimated at the 128-register limit of 512 threads (76 bytes
  // of spills in ptxas) keep 256 threads.
  KernelShape rmsBwdF32{32768, 4, 2, 1, 1, false};
  EXPECT_EQ(chooseClusterLayout(rmsBwdF32, h200)->threads, 256);
  // So does the f32 dx kernel of short M (x and dy, no column outputs) at
  // N = 20736-24576: 2 x 512 threads of 24 floats, estimated at exactly
  // the limit of 128, spilled 84-112 bytes; four blocks instead.
  for (int64_t rowReductions : {1, 2}) {
    for (int64_t n : {20736, 22528, 24576}) {
      SCOPED_TRACE(n);
      std::optional<RowLayout> dx = chooseClusterLayout(
          KernelShape{n, 4, 2, 0, rowReductions, false}, h200);
      ASSERT_TRUE(dx);
      EXPECT_EQ(dx->clusterSize, 4);
    }
  }
  // At N = 20480 (20 floats a thread, 112 estimated, 122 under ptxas) two
  // blocks stay.
  EXPECT_EQ(chooseClusterLayout(KernelShape{20480, 4, 2, 0, 1, false}, h200)
                ->clusterSize,
            2);
}

TEST(Tuning, RereadingClustersHoldRowsRegistersDoNot) {
  DeviceInfo h200;
  // LayerNorm backward at N = 131072: no cluster keeps the row in
  // registers, but 16 blocks of 256 threads that re-read 3 staged 8192-
  // column slices (96 KB + the weight's 16 KB) do, so the row is read once.
  KernelShape lnBwd{131072, 2, 2, 2, 2, false};
  lnBwd.columnInputBytes = 2;
  EXPECT_FALSE(chooseClusterLayout(131072, 2, 2, 2, h200).has_value());
  std::optional<RowLayout> layout = chooseClusterLayout(lnBwd, h200);
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(layout->clusterSize, 16);
  EXPECT_EQ(layout->threads, 256);
  EXPECT_EQ(layout->chunksPerThread, 4);
  EXPECT_TRUE(rowsFitOnChip(lnBwd, h200));
  KernelPlan plan = planKernel(lnBwd, h200, nullptr);
  EXPECT_EQ(plan.kind, KernelPlan::Kind::Cluster);
  EXPECT_EQ(plan.layout.sharedStages, 3);
  EXPECT_TRUE(plan.layout.rereadStaged);
  // Rows whose slices cannot be staged, and one column output (RMSNorm,
  // no re-read), keep the split-rows path.
  DeviceInfo smallShared = h200;
  smallShared.sharedMemoryPerBlock = 64 * 1024;
  EXPECT_FALSE(rowsFitOnChip(lnBwd, smallShared));
  KernelShape wider = lnBwd;
  wider.n = 262144;
  EXPECT_FALSE(rowsFitOnChip(wider, h200));
  // The rows that fit without re-reading keep their register layout.
  lnBwd.n = 65536;
  EXPECT_EQ(chooseClusterLayout(lnBwd, h200)->clusterSize,
            chooseClusterLayout(65536, 2, 2, 2, h200)->clusterSize);
}

TEST(Tuning, ClustersWithTwoColumnOutputsRereadStagedRows) {
  DeviceInfo h200;
  // LayerNorm backward at N = 32768: dy and x over a cluster, weight in,
  // dW and dB out. The rule stages three rows and re-reads them, with the
  // weight's slice copied to shared memory once.
  KernelShape lnBwd{32768, 2, 2, 2, 2, false};
  lnBwd.columnInputBytes = 2;
  KernelPlan plan = planKernel(lnBwd, h200, nullptr);
  ASSERT_EQ(plan.kind, KernelPlan::Kind::Cluster);
  EXPECT_EQ(plan.layout.sharedStages, 3);
  EXPECT_TRUE(plan.layout.rereadStaged);
  int64_t slice = plan.layout.sliceWidth();
  EXPECT_EQ(stagedBytes(lnBwd, plan.layout, 3), (3 * 2 * 2 + 2) * slice);
  // Asked not to stage, nothing is re-read.
  EXPECT_FALSE(
      planKernel(lnBwd, h200, nullptr, PlanRequest().setSharedStages(0))
          .layout.rereadStaged);
  // One column output (RMSNorm backward) keeps the register prefetch, and
  // rows a block keeps whole are never re-read (measured slower).
  KernelShape rmsBwd{32768, 2, 2, 1, 1, false};
  rmsBwd.columnInputBytes = 2;
  KernelPlan rms = planKernel(rmsBwd, h200, nullptr);
  EXPECT_EQ(rms.layout.sharedStages, 0);
  EXPECT_FALSE(rereadsStagedRows(rmsBwd, rms.layout));
  EXPECT_EQ(stagedBytes(rmsBwd, rms.layout, 2),
            2 * 2 * 2 * rms.layout.sliceWidth());
  KernelShape lnBwd4K{4096, 2, 2, 2, 2, false};
  KernelPlan whole =
      planKernel(lnBwd4K, h200, nullptr, PlanRequest().setSharedStages(3));
  EXPECT_EQ(whole.layout.sharedStages, 3);
  EXPECT_FALSE(whole.layout.rereadStaged);
}

TEST(Tuning, PersistentGridsForForwardsOverClusters) {
  DeviceInfo h200;
  // RMSNorm forward at N = 131072: a cluster kernel with a persistent grid
  // (one row at a time, strided by the grid).
  KernelShape rmsFwd{131072, 2, 1, 0, 1, false};
  KernelPlan plan = planKernel(rmsFwd, h200, nullptr);
  ASSERT_EQ(plan.kind, KernelPlan::Kind::Cluster);
  EXPECT_TRUE(plan.persistent);
  EXPECT_EQ(plan.rowsPerBlock, 1);
  // Not when asked not to, not with staged rows (issued by contiguous
  // index), not for a backward (its partial rows are contiguous), not for
  // rows a block keeps whole.
  EXPECT_FALSE(
      planKernel(rmsFwd, h200, nullptr, PlanRequest().setPersistent(false))
          .persistent);
  EXPECT_FALSE(
      planKernel(rmsFwd, h200, nullptr, PlanRequest().setSharedStages(2))
          .persistent);
  KernelShape rmsBwd{131072, 2, 2, 1, 1, false};
  EXPECT_FALSE(planKernel(rmsBwd, h200, nullptr).persistent);
  KernelShape whole{8192, 2, 1, 0, 1, false};
  EXPECT_FALSE(planKernel(whole, h200, nullptr).persistent);
}

TEST(Tuning, ForwardsPrefetchTheRows4MBAheadIntoL2) {
  DeviceInfo h200;
  // Staged forwards: 4 MB of input rows ahead (N = 4096 bf16: 512 rows,
  // N = 2048: 1024), at least one row.
  KernelShape rmsFwd{4096, 2, 1, 0, 1, false};
  KernelPlan staged =
      planKernel(rmsFwd, h200, nullptr, PlanRequest().setSharedStages(2));
  ASSERT_GT(staged.layout.sharedStages, 0);
  EXPECT_EQ(staged.layout.l2PrefetchRows, 512);
  EXPECT_EQ(chooseL2PrefetchRows(rmsFwd, staged, h200), 512);
  KernelShape shortFwd{2048, 2, 1, 0, 2, false};
  KernelPlan shortPlan =
      planKernel(shortFwd, h200, nullptr, PlanRequest().setSharedStages(2));
  ASSERT_GT(shortPlan.layout.sharedStages, 0);
  EXPECT_EQ(shortPlan.layout.l2PrefetchRows, 1024);
  KernelShape huge{1 << 22, 2, 1, 0, 1, false};
  KernelPlan hugePlan;
  EXPECT_EQ(chooseL2PrefetchRows(huge, hugePlan, h200), 1);
  // Streamed forwards (a row a block) too: N = 32768, 64 rows.
  KernelShape longFwd{32768, 2, 1, 0, 2, false};
  KernelPlan streamed = planKernel(longFwd, h200, nullptr);
  ASSERT_EQ(streamed.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(streamed.layout.l2PrefetchRows, 64);
  // A streamed forward prefetches only from three distances of rows: the
  // short rows norm-short-rows streams (N = 1000: 2098 rows ahead, from
  // 6294 rows) and the long ones (N = 32768: from 192 rows).
  EXPECT_EQ(streamed.layout.l2PrefetchMinRows, 192);
  KernelShape shortRows{1000, 2, 1, 0, 1, false};
  KernelPlan shortStreamed =
      planKernel(shortRows, h200, nullptr, PlanRequest().setStreamRows(true));
  ASSERT_EQ(shortStreamed.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(shortStreamed.layout.l2PrefetchRows, 2098);
  EXPECT_EQ(shortStreamed.layout.l2PrefetchMinRows, 6294);
  EXPECT_EQ(chooseL2PrefetchMinRows(shortStreamed), 6294);
  // A version that never has that many rows (norm.rows_below) issues none;
  // one that may keeps the prefetch and its bound.
  KernelPlan belowPrefetch =
      planKernel(shortRows, h200, nullptr,
                 PlanRequest().setStreamRows(true).setRowsBelow(6294));
  EXPECT_EQ(belowPrefetch.layout.l2PrefetchRows, 0);
  EXPECT_EQ(belowPrefetch.layout.l2PrefetchMinRows, 0);
  KernelPlan reachesPrefetch =
      planKernel(shortRows, h200, nullptr,
                 PlanRequest().setStreamRows(true).setRowsBelow(6295));
  EXPECT_EQ(reachesPrefetch.layout.l2PrefetchRows, 2098);
  EXPECT_EQ(reachesPrefetch.layout.l2PrefetchMinRows, 6294);
  // Staged kernels prefetch at every M (not measured otherwise).
  EXPECT_EQ(staged.layout.l2PrefetchMinRows, 0);
  // The request wins: 0 turns it off, a count is taken as given.
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr,
                       PlanRequest().setSharedStages(2).setL2PrefetchRows(0))
                .layout.l2PrefetchRows,
            0);
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr,
                       PlanRequest().setSharedStages(2).setL2PrefetchRows(7))
                .layout.l2PrefetchRows,
            7);
  // None for split kernels (measured slower), register-prefetching
  // kernels that are not persistent, or rows that are not whole 16-byte
  // multiples (the bulk prefetch's unit).
  KernelShape rmsBwd{4096, 2, 2, 1, 1, false};
  KernelPlan bwd =
      planKernel(rmsBwd, h200, nullptr, PlanRequest().setSharedStages(2));
  ASSERT_GT(bwd.layout.sharedStages, 0);
  EXPECT_EQ(bwd.layout.l2PrefetchRows, 0);
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr, PlanRequest().setSharedStages(0))
                .layout.l2PrefetchRows,
            0);
  // Persistent forwards over clusters count steps of their walk: two (G
  // rows, ~4 MB, past the row the registers prefetch), more where G rows
  // are fewer bytes (here: a 16-SM target's 2 clusters of 8).
  KernelShape clusterFwd{131072, 2, 1, 0, 1, false};
  KernelPlan cluster = planKernel(clusterFwd, h200, nullptr);
  ASSERT_TRUE(cluster.persistent);
  EXPECT_EQ(cluster.layout.l2PrefetchRows, 2);
  KernelShape clusterFwd64K{65536, 2, 1, 0, 2, false};
  EXPECT_EQ(planKernel(clusterFwd64K, h200, nullptr).layout.l2PrefetchRows, 2);
  DeviceInfo small;
  small.numSMs = 16;
  KernelPlan smallPlan = planKernel(clusterFwd, small, nullptr);
  ASSERT_TRUE(smallPlan.persistent);
  EXPECT_GT(smallPlan.layout.l2PrefetchRows, 2);
  // A staged cluster (a backward's, or on request) gets none.
  EXPECT_EQ(
      planKernel(clusterFwd, h200, nullptr, PlanRequest().setSharedStages(2))
          .layout.l2PrefetchRows,
      0);
  KernelShape odd{4097, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(odd, h200, nullptr,
                       PlanRequest().setStreamRows(true).setL2PrefetchRows(7))
                .layout.l2PrefetchRows,
            0);
  EXPECT_TRUE(validateL2PrefetchRows(-1).empty());
  EXPECT_TRUE(validateL2PrefetchRows(0).empty());
  EXPECT_FALSE(validateL2PrefetchRows(-2).empty());
  // Past 2^31 - 1 rows: an error, not an overflow of its three distances.
  EXPECT_TRUE(
      validateL2PrefetchRows(std::numeric_limits<int32_t>::max()).empty());
  EXPECT_FALSE(
      validateL2PrefetchRows(std::numeric_limits<int64_t>::max()).empty());
}

TEST(Tuning, SplitOptionsStayWithin32Bits) {
  // ceil(M / F) and its neighbours add the option to a row count.
  int64_t most = std::numeric_limits<int32_t>::max();
  for (auto validate :
       {validateMinPartials, validateMaxPartials, validateMinRowsPerPartial}) {
    EXPECT_TRUE(validate(most).empty());
    EXPECT_NE(validate(most + 1).find("up to 2147483647"), std::string::npos);
    EXPECT_FALSE(validate(std::numeric_limits<int64_t>::max()).empty());
  }
}

TEST(Tuning, DeviceResourcesHaveBounds) {
  DeviceInfo h100;
  auto check = [&](int64_t threadsPerSM, int64_t sharedPerSM,
                   int64_t registersPerSM) {
    return validateSMResources(h100.maxThreadsPerBlock,
                               h100.sharedMemoryPerBlock, sharedPerSM,
                               threadsPerSM, registersPerSM);
  };
  EXPECT_TRUE(
      check(h100.threadsPerSM, h100.sharedMemoryPerSM, h100.registersPerSM)
          .empty());
  EXPECT_TRUE(
      check(kMaxDeviceCount, kMaxDeviceAmount, kMaxDeviceAmount).empty());
  EXPECT_FALSE(
      check(kMaxDeviceCount + 32, h100.sharedMemoryPerSM, h100.registersPerSM)
          .empty());
  EXPECT_FALSE(check(h100.threadsPerSM, std::numeric_limits<int64_t>::max(),
                     h100.registersPerSM)
                   .empty());
  EXPECT_FALSE(
      check(h100.threadsPerSM, h100.sharedMemoryPerSM, kMaxDeviceAmount + 1)
          .empty());
}

TEST(Tuning, StreamRowsFromTheTable) {
  DeviceInfo h200;
  // A table entry that measured the streamed forward faster streams its
  // class (nearest N); other classes and backwards are unaffected.
  TuningTable table;
  TuningChoice streamed;
  streamed.streamRows = true;
  table.add({16384, 2, 1, 0, 1}, streamed);
  table.add({4096, 2, 1, 0, 1}, TuningChoice{});
  KernelShape rmsFwd{16384, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(rmsFwd, h200, &table).kind, KernelPlan::Kind::Streaming);
  rmsFwd.n = 4096;
  EXPECT_EQ(planKernel(rmsFwd, h200, &table).kind,
            KernelPlan::Kind::RowResident);
  KernelShape rmsBwd{16384, 2, 2, 1, 1, false};
  table.add({16384, 2, 2, 1, 1}, streamed);
  EXPECT_NE(planKernel(rmsBwd, h200, &table).kind, KernelPlan::Kind::Streaming);
}

TEST(Tuning, StreamRowsOnRequest) {
  DeviceInfo h200;
  // Forwards stream when asked, backwards (column outputs) never.
  KernelShape rmsFwd{8192, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr).kind,
            KernelPlan::Kind::RowResident);
  KernelPlan streamed =
      planKernel(rmsFwd, h200, nullptr, PlanRequest().setStreamRows(true));
  EXPECT_EQ(streamed.kind, KernelPlan::Kind::Streaming);
  // 1024 vectors a row: 512 threads with 2 vectors each per iteration.
  EXPECT_EQ(streamed.layout.threads, 512);
  EXPECT_EQ(streamed.layout.chunksPerThread, 2);
  KernelShape rmsBwd{8192, 2, 2, 1, 1, false};
  EXPECT_NE(
      planKernel(rmsBwd, h200, nullptr, PlanRequest().setStreamRows(true)).kind,
      KernelPlan::Kind::Streaming);
  // Short rows: one vector per thread, threads cut to the row.
  RowLayout shortRow = chooseStreamingLayout(1000, 2, h200);
  EXPECT_EQ(shortRow.vectorWidth, 8);
  EXPECT_EQ(shortRow.threads, 128);
  EXPECT_EQ(shortRow.chunksPerThread, 1);
  // Rows of 64 KB and more: 1024 threads x 1 vector; shorter keep 512 x 4.
  RowLayout longRow = chooseStreamingLayout(131072, 2, h200);
  EXPECT_EQ(longRow.threads, 1024);
  EXPECT_EQ(longRow.chunksPerThread, 1);
  EXPECT_EQ(chooseStreamingLayout(32768, 2, h200).threads, 1024);
  EXPECT_EQ(chooseStreamingLayout(16384, 4, h200).threads, 1024);
  RowLayout belowLong = chooseStreamingLayout(16384, 2, h200);
  EXPECT_EQ(belowLong.threads, 512);
  EXPECT_EQ(belowLong.chunksPerThread, 4);
  // Rows the block's vectors cover (up to four a thread) stay in
  // registers; rows of more than one sweep are re-read from L2.
  EXPECT_TRUE(shortRow.holdsRow);
  EXPECT_TRUE(chooseStreamingLayout(4096, 2, h200).holdsRow);
  EXPECT_TRUE(chooseStreamingLayout(8192, 2, h200).holdsRow);
  EXPECT_TRUE(chooseStreamingLayout(4096, 4, h200).holdsRow);
  EXPECT_TRUE(belowLong.holdsRow);
  EXPECT_FALSE(longRow.holdsRow);
  // Rows of two to four sweeps of 512 threads spread evenly over fewer
  // threads and stay held: N = 7168 is 448 threads of two vectors, 6144
  // 384 of two, 10240 (1280 vectors) 448 of three, the last predicated.
  RowLayout n7168 = chooseStreamingLayout(7168, 2, h200);
  EXPECT_EQ(n7168.threads, 448);
  EXPECT_EQ(n7168.chunksPerThread, 2);
  EXPECT_TRUE(n7168.holdsRow);
  EXPECT_EQ(chooseStreamingLayout(6144, 2, h200).threads, 384);
  RowLayout n10240 = chooseStreamingLayout(10240, 2, h200);
  EXPECT_EQ(n10240.threads, 448);
  EXPECT_EQ(n10240.chunksPerThread, 3);
  EXPECT_TRUE(n10240.holdsRow);
  // Two-byte rows of more than 512 x 4 vectors, short of 64 KB, take up to
  // 1024 threads of up to four vectors and stay held: N = 24576 (3072
  // vectors) 1024 threads of three, 20000 (2500) 864 of three (the
  // forwards: one full operand). Four-byte rows of that size keep 512 x 4
  // and re-read their row.
  RowLayout n24576 = chooseStreamingLayout(24576, 2, h200);
  EXPECT_EQ(n24576.threads, 1024);
  EXPECT_EQ(n24576.chunksPerThread, 3);
  EXPECT_TRUE(n24576.holdsRow);
  RowLayout n20000 = chooseStreamingLayout(20000, 2, h200);
  EXPECT_EQ(n20000.threads, 864);
  EXPECT_EQ(n20000.chunksPerThread, 3);
  EXPECT_TRUE(n20000.holdsRow);
  RowLayout f32n12288 = chooseStreamingLayout(12288, 4, h200);
  EXPECT_EQ(f32n12288.threads, 512);
  EXPECT_EQ(f32n12288.chunksPerThread, 4);
  EXPECT_FALSE(f32n12288.holdsRow);
  // Nor do kernels of two full operands (a backward's dx kernel: x and dy),
  // whose rows at 1024 threads spilled.
  RowLayout dx24576 = chooseStreamingLayout(24576, 2, h200, 0, 2);
  EXPECT_EQ(dx24576.threads, 512);
  EXPECT_EQ(dx24576.chunksPerThread, 4);
  EXPECT_FALSE(dx24576.holdsRow);
  KernelShape dxShape{24576, 2, 2, 0, 1, false};
  EXPECT_EQ(
      planKernel(dxShape, h200, nullptr, PlanRequest().setStreamRows(true))
          .layout.threads,
      512);
}

TEST(Tuning, LongForwardRowsUpTo64KBStream) {
  DeviceInfo h200;
  // N = 32768 bf16 forwards (one row does not fit a block's registers)
  // stream with 1024-thread blocks; twice as long goes to a cluster; a
  // backward (column outputs) of the same N keeps its cluster.
  KernelShape rmsFwd{32768, 2, 1, 0, 1, false};
  KernelShape lnFwd{32768, 2, 1, 0, 2, false};
  EXPECT_TRUE(streamsLongForwardRows(rmsFwd, DeviceInfo()));
  KernelPlan rms = planKernel(rmsFwd, h200, nullptr);
  EXPECT_EQ(rms.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(rms.layout.threads, 1024);
  EXPECT_FALSE(rms.persistent);
  EXPECT_EQ(planKernel(lnFwd, h200, nullptr).kind, KernelPlan::Kind::Streaming);
  rmsFwd.n = 65536;
  EXPECT_FALSE(streamsLongForwardRows(rmsFwd, DeviceInfo()));
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr).kind, KernelPlan::Kind::Cluster);
  KernelShape rmsBwd{32768, 2, 2, 1, 1, false};
  EXPECT_FALSE(streamsLongForwardRows(rmsBwd, DeviceInfo()));
  EXPECT_EQ(planKernel(rmsBwd, h200, nullptr).kind, KernelPlan::Kind::Cluster);
}

// Four-byte RMSNorm forwards stream rows up to 128 KB (N = 32768), loading
// all eight sweeps of a row before the output pass stores; LayerNorm's keep
// a cluster, and so do longer rows.
TEST(Tuning, FourByteRmsNormForwardsStreamUpTo128KB) {
  DeviceInfo h200;
  KernelShape rmsFwd{32768, 4, 1, 0, 1, false};
  EXPECT_TRUE(streamsLongForwardRows(rmsFwd, DeviceInfo()));
  KernelPlan rms = planKernel(rmsFwd, h200, nullptr);
  ASSERT_EQ(rms.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(rms.layout.threads, 1024);
  EXPECT_FALSE(rms.layout.holdsRow);
  EXPECT_EQ(rms.layout.sweepsPerStep, 8);
  KernelShape lnFwd{32768, 4, 1, 0, 2, false};
  EXPECT_FALSE(streamsLongForwardRows(lnFwd, DeviceInfo()));
  EXPECT_EQ(planKernel(lnFwd, h200, nullptr).kind, KernelPlan::Kind::Cluster);
  KernelShape longer{65536, 4, 1, 0, 1, false};
  EXPECT_FALSE(streamsLongForwardRows(longer, DeviceInfo()));
  KernelShape rmsBwd{32768, 4, 2, 1, 1, false};
  EXPECT_FALSE(streamsLongForwardRows(rmsBwd, DeviceInfo()));
}

TEST(Tuning, StreamSweepsLoadAheadOnlyInLongRmsNormRows) {
  DeviceInfo h200;
  // bf16 N = 32768: four sweeps of 1024 threads, all in one step.
  KernelShape rmsFwd{32768, 2, 1, 0, 1, false};
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr).layout.sweepsPerStep, 4);
  // Asked to stream N = 65536 (eight sweeps) and 131072 (sixteen): at most
  // eight a step, a divisor of the row's sweeps.
  rmsFwd.n = 65536;
  PlanRequest streamed;
  streamed.setStreamRows(true);
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr, streamed).layout.sweepsPerStep,
            8);
  rmsFwd.n = 131072;
  EXPECT_EQ(planKernel(rmsFwd, h200, nullptr, streamed).layout.sweepsPerStep,
            8);
  // A ragged row of five sweeps (N = 40000 bf16, the last one partial):
  // all five.
  KernelShape ragged{40000, 2, 1, 0, 1, false};
  RowLayout raggedLayout = chooseStreamingLayout(40000, 2, h200);
  ASSERT_EQ(raggedLayout.sliceWidth(), 8192);
  EXPECT_EQ(chooseStreamSweeps(ragged, raggedLayout), 5);
  // LayerNorm (its bias loaded in the output pass too) measured slower.
  KernelShape lnFwd{32768, 2, 1, 0, 2, false};
  EXPECT_EQ(planKernel(lnFwd, h200, nullptr).layout.sweepsPerStep, 1);
  // Rows under 64 KB re-read from L2 (four-byte N = 12288: 512 threads of
  // four vectors) and held rows: one.
  KernelShape shorter{12288, 4, 1, 0, 1, false};
  KernelPlan shorterPlan = planKernel(shorter, h200, nullptr, streamed);
  EXPECT_FALSE(shorterPlan.layout.holdsRow);
  EXPECT_EQ(shorterPlan.layout.sweepsPerStep, 1);
  KernelShape held{8192, 2, 1, 0, 1, false};
  KernelPlan heldPlan = planKernel(held, h200, nullptr, streamed);
  EXPECT_TRUE(heldPlan.layout.holdsRow);
  EXPECT_EQ(heldPlan.layout.sweepsPerStep, 1);
  // A backward's dx kernel (x and dy, no column outputs) was not measured.
  KernelShape dx{32768, 2, 2, 0, 1, false};
  EXPECT_EQ(planKernel(dx, h200, nullptr).layout.sweepsPerStep, 1);
  // Statistics kernels stream their rows one sweep a step.
  KernelShape stats{131072, 2, 1, 0, 2, true};
  EXPECT_EQ(planKernel(stats, h200, nullptr).layout.sweepsPerStep, 1);
}

// Four-byte LayerNorm forwards hold the weight and bias the register
// estimate leaves out: their clusters take the budget once, not twice.
TEST(Tuning, FourByteLayerNormForwardClustersAtTheBudget) {
  DeviceInfo h200;
  KernelShape lnFwd{32768, 4, 1, 0, 2, false};
  std::optional<RowLayout> f32 = chooseClusterLayout(lnFwd, h200);
  ASSERT_TRUE(f32.has_value());
  EXPECT_EQ(f32->clusterSize, 4);
  EXPECT_EQ(f32->threads, 256);
  EXPECT_EQ(f32->elementsPerThread(), 32);
  lnFwd.n = 131072;
  EXPECT_EQ(chooseClusterLayout(lnFwd, h200)->clusterSize, 16);
  // A backward's dx kernel keeps the rule's cluster (not measured).
  KernelShape dx{32768, 4, 2, 0, 2, false};
  EXPECT_EQ(chooseClusterLayout(dx, h200)->elementsPerThread(),
            chooseClusterLayout(32768, 4, 2, 0, h200)->elementsPerThread());
  // bf16 keeps twice the budget (255 registers, no spills, measured best).
  KernelShape bf16{65536, 2, 1, 0, 2, false};
  EXPECT_EQ(chooseClusterLayout(bf16, h200)->elementsPerThread(), 64);
}

// LayerNorm's mean and variance in one pass and one exchange where rows
// are streamed from L2 or held as one vector a thread, with the same count
// of elements in every thread; not where each thread holds several, nor for
// streamed rows of four-byte elements.
TEST(Tuning, RowMomentsFuseWhereMeasuredFaster) {
  DeviceInfo h200;
  KernelShape lnFwd{32768, 2, 1, 0, 2, false};
  KernelPlan streamed = planKernel(lnFwd, h200, nullptr);
  ASSERT_EQ(streamed.kind, KernelPlan::Kind::Streaming);
  EXPECT_FALSE(streamed.layout.holdsRow);
  EXPECT_TRUE(fusesRowMoments(streamed.layout, 32768, 2, 1));
  // Held as one vector a thread (512 threads of 8 at N = 4096).
  RowLayout held4096 = chooseStreamingLayout(4096, 2, h200);
  ASSERT_TRUE(held4096.holdsRow);
  ASSERT_EQ(held4096.chunksPerThread, 1);
  EXPECT_TRUE(fusesRowMoments(held4096, 4096, 2, 1));
  // Several rows a block, or a ragged row (threads with fewer elements).
  EXPECT_FALSE(fusesRowMoments(held4096, 4096, 2, 2));
  // N unknown at compile time (ShapedType::kDynamic): no count to merge.
  EXPECT_FALSE(fusesRowMoments(held4096, INT64_MIN, 2, 1));
  RowLayout ragged = chooseStreamingLayout(4000, 2, h200);
  EXPECT_FALSE(fusesRowMoments(ragged, 4000, 2, 1));
  // Held as four vectors a thread (N = 16384): two exchanges measured
  // faster.
  RowLayout held16384 = chooseStreamingLayout(16384, 2, h200);
  ASSERT_TRUE(held16384.holdsRow);
  ASSERT_EQ(held16384.chunksPerThread, 4);
  EXPECT_FALSE(fusesRowMoments(held16384, 16384, 2, 1));
  // Warp rows and 448 threads (14 warps, not a power of two) do not.
  std::optional<RowLayout> warps = warpRowsLayout(held4096);
  ASSERT_TRUE(warps.has_value());
  EXPECT_FALSE(fusesRowMoments(*warps, 4096, 2, 1));
  RowLayout n7168 = chooseStreamingLayout(7168, 2, h200);
  ASSERT_EQ(n7168.threads, 448);
  EXPECT_FALSE(fusesRowMoments(n7168, 7168, 2, 1));
  // Four-byte elements: rows held as one vector a thread fuse (f32 N =
  // 1024), streamed rows (f32 N = 16384) keep two passes.
  RowLayout f32Held = chooseStreamingLayout(1024, 4, h200);
  ASSERT_TRUE(f32Held.holdsRow);
  ASSERT_EQ(f32Held.chunksPerThread, 1);
  EXPECT_TRUE(fusesRowMoments(f32Held, 1024, 4, 1));
  KernelShape f32LnFwd{16384, 4, 1, 0, 2, false};
  KernelPlan f32Streamed = planKernel(f32LnFwd, h200, nullptr,
                                     PlanRequest().setStreamRows(true));
  ASSERT_EQ(f32Streamed.kind, KernelPlan::Kind::Streaming);
  ASSERT_FALSE(f32Streamed.layout.holdsRow);
  EXPECT_TRUE(fusesRowMoments(f32Streamed.layout, 16384, 2, 1));
  EXPECT_FALSE(fusesRowMoments(f32Streamed.layout, 16384, 4, 1));
}

TEST(Tuning, MinPartialsFillOneWave) {
  DeviceInfo h200;
  // RMSNorm backward, N = 4096: 512 threads of ~64 registers, two blocks
  // per SM -> 264 partial rows.
  KernelShape rms4K{4096, 2, 2, 1, 1, false};
  KernelPlan rms4KPlan = planKernel(rms4K, h200, nullptr);
  EXPECT_EQ(estimateBlocksPerSM(rms4K, rms4KPlan.layout, h200), 2);
  EXPECT_EQ(chooseMinPartials(rms4K, rms4KPlan, h200), 264);
  // N = 1024: 128-thread blocks (4 warps) -> four blocks per SM, 528
  // partial rows, so even M = 16384 keeps 16 warps on every SM.
  KernelShape rms1K{1024, 2, 2, 1, 1, false};
  KernelPlan rms1KPlan = planKernel(rms1K, h200, nullptr);
  ASSERT_EQ(rms1KPlan.layout.threads, 128);
  EXPECT_GE(estimateBlocksPerSM(rms1K, rms1KPlan.layout, h200), 4);
  EXPECT_EQ(chooseMinPartials(rms1K, rms1KPlan, h200), 528);
  // N = 8192: 1024 threads fill an SM alone -> one block per SM.
  KernelShape rms8K{8192, 2, 2, 1, 1, false};
  KernelPlan rms8KPlan = planKernel(rms8K, h200, nullptr);
  EXPECT_EQ(estimateBlocksPerSM(rms8K, rms8KPlan.layout, h200), 1);
  EXPECT_EQ(chooseMinPartials(rms8K, rms8KPlan, h200), 132);
  // A table entry that caps registers for two blocks per SM counts.
  rms8KPlan.minBlocksPerSM = 2;
  EXPECT_EQ(chooseMinPartials(rms8K, rms8KPlan, h200), 264);
  // Staged shared memory limits blocks too: a forward at N = 4096 (128
  // threads of ~112 registers: 4 blocks by registers) with 3 or 4 staged
  // 8 KB rows on an SM of 64 KB.
  KernelShape fwd4K{4096, 2, 1, 0, 1, false};
  RowLayout staged = chooseRowLayout(4096, 2, 1, h200);
  ASSERT_EQ(staged.threads, 128);
  EXPECT_EQ(estimateBlocksPerSM(fwd4K, staged, h200), 4);
  DeviceInfo smallSM = h200;
  smallSM.sharedMemoryPerSM = 64 * 1024;
  staged.sharedStages = 3;
  EXPECT_EQ(estimateBlocksPerSM(fwd4K, staged, smallSM), 2);
  staged.sharedStages = 4;
  EXPECT_EQ(estimateBlocksPerSM(fwd4K, staged, smallSM), 1);
  // Registers count whole warps in each quarter of the register file: six
  // warps a block at 48 registers (one bf16 operand in 4-element vectors,
  // 42 estimated) take 40 warps an SM, six blocks, not the seven 64K over
  // 48 x 192 would give.
  RowLayout sixWarps;
  sixWarps.threads = 192;
  sixWarps.vectorWidth = 4;
  KernelShape oneOperand{768, 2, 1, 0, 1, false};
  ASSERT_EQ(estimateRegisters(sixWarps, 2, 1, 0), 42);
  EXPECT_EQ(estimateBlocksPerSM(oneOperand, sixWarps, h200), 6);
  // Rows over clusters of one block per SM (RMSNorm backward, N = 65536:
  // clusters of 8) get one wave of the clusters that fit, with an uncapped
  // split; sliced rows keep theirs.
  KernelShape longRow{65536, 2, 2, 1, 1, false};
  KernelPlan cluster = planKernel(longRow, h200, nullptr);
  ASSERT_EQ(cluster.layout.clusterSize, 8);
  EXPECT_TRUE(splitsIntoOneWave(longRow, cluster));
  EXPECT_EQ(chooseMinPartials(longRow, cluster, h200), 15);
  EXPECT_EQ(chooseSplitSize(std::nullopt, 65536, h200, true), 32);
  // (The LayerNorm backward's re-reading clusters:
  // RereadClustersTakeThreeBlocksPerSM.)
  EXPECT_EQ(rereadClusterBlocksPerSM(longRow, cluster.layout, h200), 0);
  // Forwards have no split.
  KernelShape fwdLong{65536, 2, 1, 0, 1, false};
  EXPECT_FALSE(splitsIntoOneWave(fwdLong, planKernel(fwdLong, h200, nullptr)));
}

TEST(Tuning, SmallSplitBlocksFillSixteenWarps) {
  DeviceInfo h200;
  // RMSNorm and LayerNorm backwards (bf16): blocks of one, two and three
  // warps at N = 256, 512 and 768 get 16, 8 and 6 blocks per SM of partial
  // rows, each of at least four rows; 128-thread blocks (N = 1024) keep
  // four per SM and no floor.
  struct Case {
    int64_t n, threads, minPartials, floor;
  };
  for (int64_t columnOutputs : {1, 2}) {
    for (Case c : {Case{256, 32, 2112, 4}, Case{512, 64, 1056, 4},
                   Case{768, 96, 792, 4}, Case{1024, 128, 528, 0}}) {
      SCOPED_TRACE(c.n);
      KernelShape shape{c.n, 2, 2, columnOutputs, columnOutputs, false};
      KernelPlan plan = planKernel(shape, h200, nullptr);
      ASSERT_EQ(plan.layout.threads, c.threads);
      EXPECT_EQ(chooseMinPartials(shape, plan, h200), c.minPartials);
      EXPECT_EQ(chooseMinRowsPerPartial(shape, plan, h200), c.floor);
    }
  }
  // Forwards split nothing, so get no floor.
  KernelShape forward{256, 2, 1, 0, 1, false};
  EXPECT_EQ(
      chooseMinRowsPerPartial(forward, planKernel(forward, h200, nullptr), h200),
      0);
}

TEST(Tuning, SplitKernelsAskPtxasForTheWaveTheirEstimateFills) {
  // KernelShape: n, element bytes, full operands, column outputs, row
  // reductions, only row outputs. Where the estimated registers fill the
  // blocks per SM that the partial rows assume, ptxas is asked for them:
  // LayerNorm at N = 3500 with the table's budget of 16 (448 threads, 72
  // estimated: two blocks, 264 partial rows; ptxas took 96 unbounded, one
  // block an SM) and RMSNorm at N = 2500 (160 threads, 96 estimated: four
  // blocks, 528 partial rows; ptxas took 128, three).
  struct Case {
    KernelShape shape;
    int64_t budget, threads, blocks;
  };
  for (Case c : {Case{{3500, 2, 2, 2, 2, false}, 16, 448, 2},
                 Case{{2500, 2, 2, 1, 1, false}, 32, 160, 4}}) {
    SCOPED_TRACE(c.shape.n);
    DeviceInfo h200;
    h200.registerBudget = c.budget;
    KernelPlan plan = planKernel(c.shape, h200, nullptr);
    ASSERT_EQ(plan.layout.threads, c.threads);
    EXPECT_EQ(splitBlocksPerSM(c.shape, plan, h200), c.blocks);
    EXPECT_EQ(plan.minBlocksPerSM, c.blocks);
    EXPECT_EQ(chooseMinPartials(c.shape, plan, h200), 132 * c.blocks);
    // A one-row kernel (no split) gets none.
    EXPECT_EQ(planKernel(c.shape, h200, nullptr, PlanRequest().setOneRow(true))
                  .minBlocksPerSM,
              0);
  }
  // Where a unit of 8 registers more still fits the wave, no bound: the
  // one-warp blocks at N = 256 (16 an SM by the 16 warps, 72 estimated) and
  // LayerNorm at N = 3072 (two blocks of 384 threads, 72 estimated, still
  // two at 80). Bounded, ptxas took more registers than unbounded (N = 256:
  // 64 became 80-88) or about the same.
  DeviceInfo h200;
  h200.registerBudget = 16;
  for (KernelShape shape : {KernelShape{256, 2, 2, 2, 2, false},
                            KernelShape{3072, 2, 2, 2, 2, false}}) {
    SCOPED_TRACE(shape.n);
    KernelPlan plan = planKernel(shape, h200, nullptr);
    EXPECT_GE(splitBlocksPerSM(shape, plan, h200), 2);
    EXPECT_EQ(plan.minBlocksPerSM, 0);
  }
  // Forwards split nothing.
  KernelShape forward{3500, 2, 1, 0, 2, false};
  EXPECT_EQ(chooseSplitMinBlocksPerSM(forward,
                                      planKernel(forward, h200, nullptr), h200),
            0);
}

TEST(Tuning, RowGroupSplitKernelsFillEveryResidentBlock) {
  // Rows of 64 and 128 bf16 share warps (row groups) in the split kernel:
  // its partial rows fill every block the estimate (with the next row's
  // slices) lets an SM hold, as ptxas made them: RMSNorm's backward 72
  // registers (ptxas 70), seven blocks of four warps; LayerNorm's 80 (80),
  // six. The gated backward (three full inputs, ptxas 108-112 against an
  // estimate of 80) keeps two blocks or 16 warps an SM.
  struct Case {
    KernelShape shape;
    int64_t blocks;
  };
  DeviceInfo h200;
  for (Case c :
       {Case{{128, 2, 2, 1, 1, false}, 7}, Case{{64, 2, 2, 1, 1, false}, 7},
        Case{{128, 2, 2, 2, 2, false}, 6}, Case{{64, 2, 2, 2, 2, false}, 6},
        Case{{128, 2, 3, 1, 1, false}, 4}}) {
    SCOPED_TRACE(testing::Message()
                 << c.shape.n << " x " << c.shape.fullOperands << " inputs, "
                 << c.shape.columnOutputs << " column outputs");
    KernelPlan plan = planKernel(c.shape, h200, nullptr);
    ASSERT_GT(plan.layout.rowGroups, 1);
    EXPECT_EQ(splitBlocksPerSM(c.shape, plan, h200), c.blocks);
    EXPECT_EQ(chooseMinPartials(c.shape, plan, h200), 132 * c.blocks);
    // The estimate fills the wave as it is: no bound for ptxas.
    EXPECT_EQ(plan.minBlocksPerSM, 0);
  }
  // Without the next row in registers (one stage), one unit of 8 fewer.
  KernelShape rms{128, 2, 2, 1, 1, false};
  KernelPlan oneStage = planKernel(rms, h200, nullptr);
  oneStage.numStages = 1;
  EXPECT_EQ(splitBlocksPerSM(rms, oneStage, h200), 8);
}

TEST(Tuning, OneWarpSplitKernelsCapTheirPartialsAtOneResidentWave) {
  DeviceInfo h200;
  // N = 256 bf16 backwards: one-warp blocks, as many resident an SM as
  // their estimated registers allow (RMSNorm 32, 4224 partial rows;
  // LayerNorm 28, 3696), with split 16 (the waves of min_partials give way
  // to the cap from 16 x min_partials rows). Blocks of two warps and more,
  // and forwards, get no cap; without one the split stays 256.
  for (int64_t columnOutputs : {1, 2}) {
    KernelShape one{256, 2, 2, columnOutputs, columnOutputs, false};
    KernelPlan plan = planKernel(one, h200, nullptr);
    ASSERT_EQ(plan.layout.threads, 32);
    EXPECT_EQ(chooseMaxPartials(one, plan, h200),
              columnOutputs == 1 ? 4224 : 3696);
    EXPECT_EQ(chooseSplitSize(std::nullopt, 256, h200, false, 2112, 4224), 16);
    for (int64_t n : {512, 768, 1024}) {
      KernelShape wider{n, 2, 2, columnOutputs, columnOutputs, false};
      EXPECT_EQ(
          chooseMaxPartials(wider, planKernel(wider, h200, nullptr), h200), 0)
          << n;
    }
  }
  EXPECT_EQ(chooseSplitSize(std::nullopt, 256, h200, false, 2112), 256);
  KernelShape forward{256, 2, 1, 0, 1, false};
  EXPECT_EQ(
      chooseMaxPartials(forward, planKernel(forward, h200, nullptr), h200), 0);
  // Fewer SMs, fewer partial rows.
  DeviceInfo small = h200;
  small.numSMs = 100;
  KernelShape one{256, 2, 2, 1, 1, false};
  EXPECT_EQ(chooseMaxPartials(one, planKernel(one, small, nullptr), small),
            3200);
  EXPECT_TRUE(validateMaxPartials(-1).empty());
  EXPECT_TRUE(validateMaxPartials(4224).empty());
  EXPECT_NE(validateMaxPartials(-3).find("got -3"), std::string::npos);
}

TEST(Tuning, RereadClustersTakeThreeBlocksPerSM) {
  DeviceInfo h200;
  // LayerNorm backward (bf16 dy, x; weight; dW, dB) over re-reading
  // clusters: N, cluster size, threads, blocks per SM, register bound and
  // one wave of partial rows. Clusters of 4 fit three blocks without the
  // bound (with it ptxas spilled); the 320-thread ragged N = 40000 (80
  // registers) fits two. N = 65536 and 131072 take fewer blocks of 512
  // threads instead of 16 (chooseWideRereadCluster), one per SM: their
  // 224 KB of slices fill a block's shared memory.
  struct Case {
    int64_t n, clusterSize, threads, blocks, bound, minPartials;
  };
  for (Case c : {Case{16384, 4, 256, 3, 0, 90}, Case{32768, 8, 256, 3, 3, 45},
                 Case{65536, 4, 512, 1, 0, 30}, Case{131072, 8, 512, 1, 0, 15},
                 Case{40000, 8, 320, 2, 0, 15}}) {
    SCOPED_TRACE(c.n);
    KernelShape shape{c.n, 2, 2, 2, 2, false};
    shape.columnInputBytes = 2;
    KernelPlan plan = planKernel(shape, h200, nullptr);
    ASSERT_EQ(plan.kind, KernelPlan::Kind::Cluster);
    ASSERT_TRUE(plan.layout.rereadStaged);
    EXPECT_EQ(plan.layout.clusterSize, c.clusterSize);
    EXPECT_EQ(plan.layout.threads, c.threads);
    EXPECT_EQ(rereadClusterBlocksPerSM(shape, plan.layout, h200), c.blocks);
    EXPECT_EQ(plan.minBlocksPerSM, c.bound);
    EXPECT_EQ(chooseMinPartials(shape, plan, h200), c.minPartials);
  }
}

TEST(Tuning, WideRereadClustersReplaceClustersOfSixteen) {
  DeviceInfo h200;
  KernelShape lnBwd{131072, 2, 2, 2, 2, false};
  lnBwd.columnInputBytes = 2;
  // The re-reading cluster of 16 (chooseClusterLayout) gives way to 8
  // blocks of 512 threads, 32 elements a thread, 3 stages in 224 KB.
  RowLayout sixteen = *chooseClusterLayout(lnBwd, h200);
  ASSERT_EQ(sixteen.clusterSize, 16);
  std::optional<RowLayout> wide = chooseWideRereadCluster(lnBwd, sixteen, h200);
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->clusterSize, 8);
  EXPECT_EQ(wide->threads, 512);
  EXPECT_EQ(wide->elementsPerThread(), 32);
  EXPECT_EQ(stagedBytes(lnBwd, *wide, 3), 224 * 1024);
  EXPECT_TRUE(wide->rereadStaged);
  // Clusters of 8 or fewer stay; so do forwards (no column outputs).
  EXPECT_FALSE(chooseWideRereadCluster(lnBwd, *wide, h200).has_value());
  KernelShape lnFwd{131072, 2, 1, 0, 2, false};
  EXPECT_FALSE(chooseWideRereadCluster(lnFwd, sixteen, h200).has_value());
  // The RMSNorm backward (one column output), whose rows a cluster of 16
  // keeps in registers, re-reads over 8 as well, with the weight's copy;
  // asked not to stage, it keeps the 16.
  KernelShape rmsBwd{131072, 2, 2, 1, 1, false};
  rmsBwd.columnInputBytes = 2;
  KernelPlan rms = planKernel(rmsBwd, h200, nullptr);
  EXPECT_EQ(rms.layout.clusterSize, 8);
  EXPECT_EQ(rms.layout.threads, 512);
  EXPECT_TRUE(rms.layout.rereadStaged);
  EXPECT_EQ(rms.layout.sharedStages, 3);
  EXPECT_EQ(stagedBytes(rmsBwd, rms.layout, 3), (3 * 2 * 2 + 2) * 16384);
  KernelPlan unstaged =
      planKernel(rmsBwd, h200, nullptr, PlanRequest().setSharedStages(0));
  EXPECT_EQ(unstaged.layout.clusterSize, 16);
  EXPECT_FALSE(unstaged.layout.rereadStaged);
  // Without 224 KB of shared memory a block no wider slice stages (1024
  // threads would hold 16 elements, but their accumulators not fit 64
  // registers), and the plan keeps the cluster of 16.
  DeviceInfo smaller = h200;
  smaller.sharedMemoryPerBlock = 160 * 1024;
  EXPECT_FALSE(chooseWideRereadCluster(lnBwd, sixteen, smaller).has_value());
  KernelPlan plan = planKernel(lnBwd, smaller, nullptr);
  EXPECT_EQ(plan.layout.clusterSize, 16);
  EXPECT_TRUE(plan.layout.rereadStaged);
  // Asked for two stages, the wide cluster stages two as well.
  KernelPlan two =
      planKernel(lnBwd, h200, nullptr, PlanRequest().setSharedStages(2));
  EXPECT_EQ(two.layout.clusterSize, 8);
  EXPECT_EQ(two.layout.sharedStages, 2);
}

// With clusters limited to 8 blocks, rows no cluster keeps in registers
// (RMSNorm and LayerNorm backward at N = 131072) still fit on chip over 8
// re-reading blocks, the layout the default plan takes anyway, so
// --norm-split-rows leaves them one kernel; asked not to stage, or with 4
// blocks at most (384 KB of slices), they do not fit.
TEST(Tuning, WideRereadLayoutServesWhereNoClusterWithinTheLimitFits) {
  DeviceInfo eight;
  eight.maxClusterSize = 8;
  KernelShape rmsBwd{131072, 2, 2, 1, 1, false};
  rmsBwd.columnInputBytes = 2;
  KernelShape lnBwd{131072, 2, 2, 2, 2, false};
  lnBwd.columnInputBytes = 2;
  for (const KernelShape &shape : {rmsBwd, lnBwd}) {
    EXPECT_FALSE(chooseClusterLayout(shape, eight).has_value());
    EXPECT_TRUE(rowsFitOnChip(shape, eight));
    EXPECT_TRUE(rowsFitOnChip(shape, eight, 2));
    EXPECT_FALSE(rowsFitOnChip(shape, eight, 0));
    KernelPlan plan = planKernel(shape, eight, nullptr);
    EXPECT_EQ(plan.kind, KernelPlan::Kind::Cluster);
    EXPECT_EQ(plan.layout.clusterSize, 8);
    EXPECT_EQ(plan.layout.threads, 512);
    EXPECT_TRUE(plan.layout.rereadStaged);
    EXPECT_EQ(plan.layout.sharedStages, 3);
    // The same kernel as with clusters of up to 16.
    KernelPlan wide = planKernel(shape, DeviceInfo(), nullptr);
    EXPECT_EQ(wide.layout.clusterSize, plan.layout.clusterSize);
    EXPECT_EQ(wide.layout.threads, plan.layout.threads);
    EXPECT_EQ(wide.layout.sharedStages, plan.layout.sharedStages);
  }
  DeviceInfo four;
  four.maxClusterSize = 4;
  EXPECT_FALSE(rowsFitOnChip(rmsBwd, four));
  EXPECT_FALSE(rowsFitOnChip(lnBwd, four));
  // Forwards have no re-reading layout.
  KernelShape rmsFwd{262144, 2, 1, 0, 1, false};
  EXPECT_FALSE(chooseWideRereadLayout(rmsFwd, eight).has_value());
}

TEST(Tuning, ResidentClusters) {
  // Measured on the H200 (cuOccupancyMaxActiveClusters, one block per SM).
  DeviceInfo h200;
  EXPECT_EQ(h200.residentClusters(2), 66);
  EXPECT_EQ(h200.residentClusters(4), 30);
  EXPECT_EQ(h200.residentClusters(8), 15);
  EXPECT_EQ(h200.residentClusters(16), 7);
  // Other SM counts: 85% of SMs / cluster size, at least one.
  DeviceInfo other;
  other.numSMs = 114;
  EXPECT_EQ(other.residentClusters(8), 12);
  EXPECT_EQ(other.residentClusters(16), 6);
  other.numSMs = 8;
  EXPECT_EQ(other.residentClusters(16), 1);
}

TEST(Tuning, CombineBlocksGrowForNarrowRows) {
  DeviceInfo h200;
  // LayerNorm N = 1024 (dW and dB: 2048 columns): 64 blocks of 32 scalar
  // columns; 32 row groups of 8 loads in flight take 512 partials in 2
  // rounds instead of 8.
  CombineLayout narrow = chooseCombineLayout(2048, 4, h200);
  EXPECT_EQ(narrow.threads, 1024);
  EXPECT_EQ(narrow.lanes, 32);
  EXPECT_EQ(narrow.vectorWidth, 1);
  EXPECT_EQ(narrow.blockColumns(), 32);
  EXPECT_EQ(narrow.groups(), 32);
  EXPECT_EQ(chooseCombineLayout(8192, 4, h200).threads, 1024); // 256 blocks
  // Narrower rows halve the lanes (down to 8) for the largest grid within
  // half the SMs (66 of 132): RMSNorm N = 1024 and 768 take 16 lanes (64 and
  // 48 blocks), N = 512 and 256 take 8 (64 and 32 blocks), LayerNorm's two
  // combines at N = 512 (1024 columns) 16 and at N = 768 (1536) stay at 32.
  EXPECT_EQ(chooseCombineLayout(1024, 4, h200).lanes, 16);
  EXPECT_EQ(chooseCombineLayout(768, 4, h200).lanes, 16);
  EXPECT_EQ(chooseCombineLayout(512, 4, h200).lanes, 8);
  CombineLayout n256 = chooseCombineLayout(256, 4, h200);
  EXPECT_EQ(n256.lanes, 8);
  EXPECT_EQ(n256.threads, 1024);
  EXPECT_EQ(n256.groups(), 128);
  EXPECT_EQ(chooseCombineLayout(1536, 4, h200).lanes, 32);
  EXPECT_EQ(chooseCombineLayout(2048, 4, h200).lanes, 32);
  EXPECT_EQ(chooseCombineLayout(64, 1, h200).lanes, 8);
  // Below 32 lanes of 16-byte loads per SM: still scalar lanes.
  CombineLayout rms16k = chooseCombineLayout(16384, 4, h200);
  EXPECT_EQ(rms16k.vectorWidth, 1);
  EXPECT_EQ(rms16k.threads, 512); // 512 blocks
  // Unknown N, and a device with smaller blocks.
  EXPECT_EQ(chooseCombineLayout(-1, 1, h200).threads, 256);
  EXPECT_EQ(chooseCombineLayout(-1, 1, h200).vectorWidth, 1);
  DeviceInfo small = h200;
  small.maxThreadsPerBlock = 128;
  EXPECT_EQ(chooseCombineLayout(1024, 4, small).threads, 128);
  EXPECT_EQ(chooseCombineLayout(-1, 1, small).threads, 128);
}

TEST(Tuning, CombineWideRowsTakeFewFatBlocks) {
  DeviceInfo h200;
  // LayerNorm N = 131072 (dW and dB: 262144 columns, 7-14 partial rows):
  // 256 lanes of 16-byte loads, one group, 256 blocks.
  CombineLayout ln = chooseCombineLayout(2 * 131072, 4, h200);
  EXPECT_EQ(ln.vectorWidth, 4);
  EXPECT_EQ(ln.threads, 256);
  EXPECT_EQ(ln.lanes, 256);
  EXPECT_EQ(ln.groups(), 1);
  EXPECT_EQ(ln.blockColumns(), 1024);
  // RMSNorm N = 131072: 128 lanes keep 256 blocks (256 lanes: 128 < 132).
  EXPECT_EQ(chooseCombineLayout(131072, 4, h200).lanes, 128);
  // LayerNorm N = 16384 (32768 columns): 32 lanes, 8 groups, 256 blocks.
  CombineLayout ln16k = chooseCombineLayout(2 * 16384, 4, h200);
  EXPECT_EQ(ln16k.vectorWidth, 4);
  EXPECT_EQ(ln16k.lanes, 32);
  EXPECT_EQ(ln16k.groups(), 8);
  // Rows that are not whole vectors of 4 keep scalar lanes.
  EXPECT_EQ(chooseCombineLayout(2 * 131072, 1, h200).vectorWidth, 1);
  // Overrides, and their validation.
  CombineLayout forced = chooseCombineLayout(1024, 4, h200, 8, 256);
  EXPECT_EQ(forced.lanes, 8);
  EXPECT_EQ(forced.threads, 256);
  // Threads alone below the rule's lanes: the lanes follow.
  CombineLayout fewThreads = chooseCombineLayout(2 * 131072, 4, h200, 0, 64);
  EXPECT_EQ(fewThreads.threads, 64);
  EXPECT_EQ(fewThreads.lanes, 64);
  // Lanes alone above the rule's threads: the threads follow.
  EXPECT_EQ(chooseCombineLayout(1024, 4, h200, 512, 0).threads, 1024);
  EXPECT_EQ(chooseCombineLayout(131072, 4, h200, 512, 0).threads, 512);
  EXPECT_TRUE(validateCombineLayout(0, 0, h200).empty());
  EXPECT_TRUE(validateCombineLayout(64, 256, h200).empty());
  EXPECT_FALSE(validateCombineLayout(3, 0, h200).empty());
  EXPECT_FALSE(validateCombineLayout(0, 2048, h200).empty());
  EXPECT_FALSE(validateCombineLayout(0, 16, h200).empty());
  EXPECT_FALSE(validateCombineLayout(512, 256, h200).empty());
  EXPECT_FALSE(validateCombineLayout(-1, 0, h200).empty());
}

TEST(Tuning, RegisterEstimate) {
  DeviceInfo h200;
  // RMSNorm forward, N = 4096 bf16: ptxas -v reported 93 registers.
  RowLayout fwd = chooseRowLayout(4096, 2, 1, h200);
  EXPECT_NEAR(estimateRegisters(fwd, 2, 1, 0), 93, 40);
  // RMSNorm backward, N = 4096 bf16: ptxas -v reported 104.
  RowLayout bwd = chooseRowLayout(4096, 2, 2, h200);
  EXPECT_NEAR(estimateRegisters(bwd, 2, 2, 1), 104, 40);
  // 2-byte vectors (N odd) fill a register each: 32 elements a thread in
  // 16-byte vectors take 16 registers an operand, in 2-byte ones 32.
  RowLayout packed;
  packed.vectorWidth = 8;
  packed.chunksPerThread = 4;
  RowLayout scalar;
  scalar.vectorWidth = 1;
  scalar.chunksPerThread = 32;
  EXPECT_EQ(estimateRegisters(scalar, 2, 1, 0) -
                estimateRegisters(packed, 2, 1, 0),
            16);
  // So the forwards at N = 32771 take clusters of 4 (ptxas: no spills)
  // instead of 2 x 512 threads x 32 elements (200-340 bytes of spills).
  KernelShape odd{32771, 2, 1, 0, 1, false};
  std::optional<RowLayout> cluster = chooseClusterLayout(odd, h200);
  ASSERT_TRUE(cluster);
  EXPECT_EQ(cluster->vectorWidth, 1);
  EXPECT_EQ(cluster->clusterSize, 4);
}

TEST(Tuning, RowsPerBlock) {
  DeviceInfo h200;
  EXPECT_EQ(chooseRowsPerBlock(1024, 2, h200), 8);
  EXPECT_EQ(chooseRowsPerBlock(8192, 2, h200), 4);
  EXPECT_EQ(chooseRowsPerBlock(16384, 2, h200), 2);
  // Rows over clusters walk more rows (measured).
  EXPECT_EQ(chooseRowsPerBlock(32768, 2, h200), 16);
  EXPECT_EQ(chooseRowsPerBlock(131072, 2, h200), 8);
}

TEST(Tuning, RowLayoutCoversLongRows) {
  DeviceInfo h200;
  for (int64_t n : {1024, 7168, 8192, 32768, 131072}) {
    RowLayout layout = chooseRowLayout(n, 2, 2, h200);
    EXPECT_GE(layout.threads * layout.elementsPerThread(), n) << n;
    EXPECT_LE(layout.threads, h200.maxThreadsPerBlock) << n;
  }
}
} // namespace

namespace {
TEST(TuningTable, NearestEntryOfTheSameClass) {
  TuningTable table;
  table.add({4096, 2, 1, 0, 1}, {16, 8, 3});
  table.add({16384, 2, 1, 0, 1}, {32, 2, 2});
  table.add({4096, 2, 2, 1, 1}, {24, 0, 2});
  auto near = table.lookup({5120, 2, 1, 0, 1});
  ASSERT_TRUE(near);
  EXPECT_EQ(near->rowsPerBlock, 8);
  EXPECT_EQ(table.lookup({12000, 2, 1, 0, 1})->numStages, 2);
  EXPECT_EQ(table.lookup({4096, 2, 2, 1, 1})->registerBudget, 24);
  EXPECT_FALSE(table.lookup({4096, 4, 1, 0, 1}));
  table.add({4096, 2, 1, 0, 1}, {16, 4, 3});
  EXPECT_EQ(table.lookup({4096, 2, 1, 0, 1})->rowsPerBlock, 4);
  // A filter passes over the entries it rejects: the nearest it accepts.
  auto wideBudget = [](const TuningChoice &c) {
    return c.registerBudget >= 32;
  };
  EXPECT_EQ(table.lookup({5120, 2, 1, 0, 1}, wideBudget)->numStages, 2);
  EXPECT_FALSE(table.lookup({4096, 2, 2, 1, 1}, wideBudget));
}

/// Replaces the file at `path` with `text`.
void writeFile(const std::string &path, const char *text) {
  std::FILE *f = std::fopen(path.c_str(), "w");
  std::fputs(text, f);
  std::fclose(f);
}

TEST(TuningTable, LoadsAndRejects) {
  std::string path = testing::TempDir() + "/tuning_test.json";
  std::string error;
  writeFile(path,
            R"({"device": "test", "entries": [{"n": 1024, "element_bytes": 2,
      "full_operands": 1, "column_outputs": 0, "row_reductions": 1,
      "register_budget": 32, "rows_per_block": 8, "num_stages": 3,
      "min_blocks_per_sm": 2, "shared_stages": 0,
      "measured_tbps_by_m": {"32768": 3.1}, "kind": "rms_fwd"},
      {"n": 2048, "element_bytes": 2, "full_operands": 1, "column_outputs": 0,
      "row_reductions": 1}]})");
  TuningTable table;
  ASSERT_TRUE(table.load(path, error)) << error;
  EXPECT_EQ(table.lookup({1024, 2, 1, 0, 1})->numStages, 3);
  EXPECT_EQ(table.lookup({1024, 2, 1, 0, 1})->minBlocksPerSM, 2);
  // 0 (measured: no staging) differs from an absent depth (the rule).
  EXPECT_EQ(table.lookup({1024, 2, 1, 0, 1})->sharedStages, 0);
  EXPECT_EQ(table.lookup({2048, 2, 1, 0, 1})->sharedStages, -1);
  EXPECT_FALSE(table.load(path + ".missing", error));
  EXPECT_NE(error.find("cannot read"), std::string::npos);
  writeFile(path, R"({"entries": [{"n": 0}]})");
  EXPECT_FALSE(TuningTable().load(path, error));
  EXPECT_NE(error.find("positive n"), std::string::npos) << error;
  writeFile(path, R"({"entries": [{"n": 1024, "element_bytes": 2,
      "shared_stages": 9}]})");
  EXPECT_FALSE(TuningTable().load(path, error));
  EXPECT_NE(error.find("shared_stages"), std::string::npos) << error;
  writeFile(path, R"({"entries": [{"n": 1024, "element_bytes": 2,
      "stream_rows": true}, {"n": 2048, "element_bytes": 2}]})");
  TuningTable streamed;
  ASSERT_TRUE(streamed.load(path, error)) << error;
  EXPECT_TRUE(streamed.lookup({1024, 2, 0, 0, 0})->streamRows);
  EXPECT_FALSE(streamed.lookup({2048, 2, 0, 0, 0})->streamRows);
  writeFile(path, R"({"entries": [{"n": 1024, "element_bytes": 2,
      "stream_rows": 1}]})");
  EXPECT_FALSE(TuningTable().load(path, error));
  EXPECT_NE(error.find("stream_rows"), std::string::npos) << error;
  // Bulk stores: measured on (true) or off (false), else absent (-1).
  writeFile(path, R"({"entries": [{"n": 1024, "element_bytes": 2,
      "bulk_stores": true}, {"n": 2048, "element_bytes": 2,
      "bulk_stores": false}, {"n": 4096, "element_bytes": 2}]})");
  TuningTable bulk;
  ASSERT_TRUE(bulk.load(path, error)) << error;
  EXPECT_EQ(bulk.lookup({1024, 2, 0, 0, 0})->bulkStores, 1);
  EXPECT_EQ(bulk.lookup({2048, 2, 0, 0, 0})->bulkStores, 0);
  EXPECT_EQ(bulk.lookup({4096, 2, 0, 0, 0})->bulkStores, -1);
  writeFile(path, R"({"entries": [{"n": 1024, "element_bytes": 2,
      "bulk_stores": 1}]})");
  EXPECT_FALSE(TuningTable().load(path, error));
  EXPECT_NE(error.find("bulk_stores"), std::string::npos) << error;
}
} // namespace

/// The LayerNorm backward's kernel at `n` (bf16): dy and x read, dx written,
/// two row reductions and two column outputs (dW, dB).
static KernelShape layerNormBackward(int64_t n) {
  KernelShape ln;
  ln.n = n;
  ln.fullOperands = 2;
  ln.columnOutputs = 2;
  ln.rowReductions = 2;
  ln.fullOutputs = 1;
  return ln;
}

TEST(Tuning, BlockGroupsShareLongBackwardRowsWithoutClusters) {
  // Without clusters (an A100), the RMSNorm backward's rows no block holds
  // go to a block group with the layout Hopper's cluster has: 8 blocks of
  // 512 threads at N = 65536, 16 at 131072, 2 at 16384.
  DeviceInfo ampere = deviceOfCapability(80);
  DeviceInfo hopper = deviceOfCapability(90);
  KernelShape rms = layerNormBackward(65536);
  rms.columnOutputs = 1;
  rms.rowReductions = 1;
  for (int64_t n : {16384, 65536, 131072}) {
    rms.n = n;
    std::optional<RowLayout> group = chooseClusterLayout(rms, ampere);
    std::optional<RowLayout> cluster = chooseClusterLayout(rms, hopper);
    ASSERT_TRUE(group && cluster) << n;
    EXPECT_TRUE(group->globalExchange) << n;
    EXPECT_FALSE(cluster->globalExchange) << n;
    EXPECT_EQ(group->clusterSize, cluster->clusterSize) << n;
    EXPECT_EQ(group->threads, cluster->threads) << n;
    EXPECT_TRUE(rowsFitOnChip(rms, ampere, -1)) << n;
  }
  // Their partial rows: one wave of groups, every SM counted (no GPC places
  // them): 108 / 8 = 13 groups on the A100, 114 / 8 = 14 on an H100 PCIe.
  rms.n = 65536;
  KernelPlan plan = planKernel(rms, ampere, nullptr);
  ASSERT_TRUE(plan.layout.globalExchange);
  EXPECT_EQ(plan.layout.clusterSize, 8);
  EXPECT_EQ(chooseMinPartials(rms, plan, ampere), 13);
  DeviceInfo pcie = ampere;
  pcie.numSMs = 114;
  EXPECT_EQ(chooseMinPartials(rms, plan, pcie), 14);
  EXPECT_EQ(ampere.residentBlockGroups(8, 1), 13);
  EXPECT_EQ(ampere.residentBlockGroups(16, 2), 13);
  // A group fits the GPU at one block an SM: at most 8 blocks on an A100's
  // 14-SM MIG slice, which then holds N = 131072 in no group of 8 (where
  // the A100 takes 16).
  DeviceInfo slice = ampere;
  slice.numSMs = 14;
  rms.n = 131072;
  std::optional<RowLayout> whole = chooseClusterLayout(rms, ampere);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->clusterSize, 16);
  EXPECT_FALSE(chooseClusterLayout(rms, slice));
  rms.n = 65536;
  std::optional<RowLayout> sliced = chooseClusterLayout(rms, slice);
  ASSERT_TRUE(sliced);
  EXPECT_EQ(sliced->clusterSize, 8);
  // The LayerNorm backward (two reductions) and forwards get none: the
  // first is split, the second streams.
  EXPECT_FALSE(chooseClusterLayout(layerNormBackward(65536), ampere));
  KernelShape forward{65536, 2, 1, 0, 1, false};
  EXPECT_FALSE(chooseClusterLayout(forward, ampere));
  // A group's plan is valid on any chip, up to 16 blocks and unstaged; a
  // hardware cluster's is not on Ampere.
  EXPECT_EQ(validatePlan(rms, plan, ampere), "");
  EXPECT_EQ(validatePlan(rms, plan, hopper), "");
  KernelPlan hardware = plan;
  hardware.layout.globalExchange = false;
  EXPECT_NE(validatePlan(rms, hardware, ampere).find("within the target's 1"),
            std::string::npos);
  KernelPlan staged = plan;
  staged.layout.sharedStages = 2;
  EXPECT_NE(validatePlan(rms, staged, hopper).find("block group of 8"),
            std::string::npos);
  // Warp 0 has a lane for each block's total of each reduction: 16 blocks
  // of three reductions do not fit.
  KernelShape three = rms;
  three.rowReductions = 3;
  KernelPlan wide = plan;
  wide.layout.clusterSize = 16;
  wide.layout.columnSlices = 16;
  EXPECT_NE(validatePlan(three, wide, ampere).find("more totals than a warp"),
            std::string::npos);
  three.rowReductions = 2;
  EXPECT_EQ(validatePlan(three, wide, ampere), "");
}

TEST(Tuning, ClustersHoldingRowsCountTheNextRowsRegisters) {
  DeviceInfo h200;
  // The RMSNorm backward's clusters hold their slices in registers and load
  // the next row's while they exchange the current row's sums. At N = 12288
  // (clusters of 2 x 256 threads, 24 elements a thread) one row's estimate
  // is 128 registers, two blocks an SM; with the next row's 24 more ptxas's
  // 192 leave one, so one wave is the 66 cluster slots, not 132. N = 32771
  // (clusters of 8, 213 registers under ptxas): 15, not 30. N = 16384 was
  // one block an SM either way (66).
  KernelShape rms = layerNormBackward(12288);
  rms.columnOutputs = 1;
  rms.rowReductions = 1;
  rms.columnInputBytes = 2;
  rms.columnInputs = 1;
  struct Case {
    int64_t n, clusterSize, blocks, minPartials;
  };
  for (Case c :
       {Case{12288, 2, 1, 66}, Case{32771, 8, 1, 15}, Case{16384, 2, 1, 66}}) {
    SCOPED_TRACE(c.n);
    rms.n = c.n;
    KernelPlan plan = planKernel(rms, h200, nullptr);
    ASSERT_EQ(plan.kind, KernelPlan::Kind::Cluster);
    ASSERT_EQ(plan.layout.sharedStages, 0);
    EXPECT_EQ(plan.layout.clusterSize, c.clusterSize);
    EXPECT_EQ(estimateBlocksPerSM(rms, plan.layout, h200), c.blocks);
    EXPECT_EQ(chooseMinPartials(rms, plan, h200), c.minPartials);
  }
}

TEST(Tuning, PartialRowsOfThreeBlockWavesSumSeveralRows) {
  DeviceInfo h200;
  // The LayerNorm backward at N = 16384: one wave of 90 partial rows
  // (clusters of 4, three blocks per SM). From the short-rows limit, 192
  // rows, the 30 cluster slots take at most one cluster each: 7 rows a
  // partial row (28 partial rows at 192 rows instead of 64 of 3).
  KernelShape ln = layerNormBackward(16384);
  ln.columnInputBytes = 2;
  ln.columnInputs = 1;
  KernelPlan plan = planKernel(ln, h200, nullptr);
  ASSERT_EQ(plan.layout.clusterSize, 4);
  ASSERT_EQ(chooseMinPartials(ln, plan, h200), 90);
  ASSERT_EQ(chooseShortRowsLimit(ln, h200), 192);
  EXPECT_EQ(chooseMinRowsPerPartial(ln, plan, h200), 7);
  // Clusters of 8 at N = 32768 (three blocks per SM, F = 45), clusters of
  // 4 at two blocks per SM (N = 24576), RMSNorm's one block per SM (N =
  // 16384) and rows past the short-rows range (N = 65536): no floor.
  for (int64_t n : {32768, 24576, 65536}) {
    KernelShape wide = ln;
    wide.n = n;
    EXPECT_EQ(
        chooseMinRowsPerPartial(wide, planKernel(wide, h200, nullptr), h200), 0)
        << n;
  }
  KernelShape rms = ln;
  rms.columnOutputs = 1;
  rms.rowReductions = 1;
  EXPECT_EQ(chooseMinRowsPerPartial(rms, planKernel(rms, h200, nullptr), h200),
            0);
  // Kernels whose rows fit a block are not given one wave of clusters.
  KernelShape narrow = ln;
  narrow.n = 4096;
  EXPECT_EQ(
      chooseMinRowsPerPartial(narrow, planKernel(narrow, h200, nullptr), h200),
      0);
  EXPECT_TRUE(validateMinRowsPerPartial(-1).empty());
  EXPECT_TRUE(validateMinRowsPerPartial(8).empty());
  EXPECT_NE(validateMinRowsPerPartial(-2).find("got -2"), std::string::npos);
}

TEST(Tuning, OneRowRunsAsOneBlock) {
  DeviceInfo h200;
  KernelShape ln = layerNormBackward(4096);
  // Below 2 rows (one row), inside every short version (its limit is far
  // higher).
  for (int64_t n : {1000, 1024, 4096, 8192, 12288, 32768, 65536, 131072}) {
    ln.n = n;
    EXPECT_EQ(chooseSingleBlockRows(ln, h200), 2) << n;
    EXPECT_LT(chooseSingleBlockRows(ln, h200), chooseShortRowsLimit(ln, h200));
  }
  // No short version, no single block: wider rows than measured, forwards.
  ln.n = 262144;
  EXPECT_EQ(chooseSingleBlockRows(ln, h200), 0);
  KernelShape forward = ln;
  forward.n = 4096;
  forward.columnOutputs = 0;
  EXPECT_EQ(chooseSingleBlockRows(forward, h200), 0);
}

TEST(Tuning, SingleBlockKernelsHoldTheirRowInRegisters) {
  DeviceInfo h200;
  KernelShape ln = layerNormBackward(4096);
  // The LayerNorm backward stages its rows and stores dx by bulk copies...
  KernelPlan staged = planKernel(ln, h200, nullptr);
  EXPECT_GT(staged.layout.sharedStages, 0);
  // ...but not as one block over every row, even when asked to stage.
  KernelPlan single = planKernel(
      ln, h200, nullptr,
      PlanRequest().setSharedStages(2).setBulkStores(1).setSingleBlock(true));
  EXPECT_EQ(single.layout.sharedStages, 0);
  EXPECT_FALSE(single.layout.bulkStores);
  EXPECT_EQ(single.layout.threads, staged.layout.threads);
}

TEST(Tuning, ShortRowsSplitMixedOrderKernels) {
  DeviceInfo h200;
  // The LayerNorm backward (dx and two column outputs) and RMSNorm's (one).
  KernelShape ln = layerNormBackward(4096);
  // Rows a block holds: twice the rounds of the column kernel's 32 groups x
  // 4 rows, three with two column outputs, two with one.
  EXPECT_EQ(chooseShortRowsLimit(ln, h200), 768);
  KernelShape rms = ln;
  rms.columnOutputs = 1;
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 512);
  rms.n = 2048; // 64 groups, 64 column blocks
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 1024);
  rms.n = 8192; // 16 groups
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 256);
  // 32 column blocks at N = 1024, under a quarter of the SMs: the rounds
  // once (64 groups).
  rms.n = 1024;
  EXPECT_EQ(columnKernelBlocks(rms, h200), 32);
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 512);
  KernelShape ln1024 = ln;
  ln1024.n = 1024;
  EXPECT_EQ(chooseShortRowsLimit(ln1024, h200), 768);
  // Rows over clusters up to N = 32768, at 64 rows a round or more: below
  // 128 rows (RMSNorm) and 192 (LayerNorm); wider rows, up to the widest
  // measured, the rounds of 32 rows alone: below 64 and 96.
  struct WideLimits {
    int64_t n, rmsLimit, lnLimit;
  };
  for (WideLimits c : {WideLimits{16384, 128, 192}, WideLimits{32768, 128, 192},
                       WideLimits{65536, 64, 96}, WideLimits{131072, 64, 96}}) {
    rms.n = c.n;
    EXPECT_EQ(chooseShortRowsLimit(rms, h200), c.rmsLimit) << c.n;
    KernelShape wideLn = ln;
    wideLn.n = c.n;
    EXPECT_EQ(chooseShortRowsLimit(wideLn, h200), c.lnLimit) << c.n;
  }
  // At N = 12288 the row kernel's blocks (768 threads) shut the column
  // blocks out of their SMs and spread over the rest: below 288 rows.
  rms.n = 12288;
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 288);
  KernelShape ln12288 = ln;
  ln12288.n = 12288;
  EXPECT_EQ(chooseShortRowsLimit(ln12288, h200), 288);
  // Wider rows than measured, and kernels with no mix of orders.
  rms.n = 262144;
  EXPECT_EQ(chooseShortRowsLimit(rms, h200), 0);
  KernelShape forward = ln;
  forward.columnOutputs = 0;
  EXPECT_EQ(chooseShortRowsLimit(forward, h200), 0);
  KernelShape columnsOnly = ln;
  columnsOnly.fullOutputs = 0;
  columnsOnly.rowReductions = 0;
  EXPECT_EQ(chooseShortRowsLimit(columnsOnly, h200), 0);
  EXPECT_TRUE(validateShortRowsLimit(-1).empty());
  EXPECT_TRUE(validateShortRowsLimit(0).empty());
  EXPECT_TRUE(validateShortRowsLimit(96).empty());
  EXPECT_NE(validateShortRowsLimit(-2).find("short-rows"), std::string::npos);
}

/// A whole-column kernel of a backward at row length `n`: x and dy in,
/// `columnOutputs` column sums out (1: RMSNorm's dW; 2: LayerNorm's dW, dB).
static KernelShape wholeColumnsShape(int64_t n, int64_t columnOutputs) {
  KernelShape columns;
  columns.n = n;
  columns.fullOperands = 2;
  columns.columnOutputs = columnOutputs;
  columns.rowReductions = 0;
  return columns;
}

TEST(Tuning, ColumnKernelsSpreadFewRowsOverBlocks) {
  DeviceInfo h200;
  KernelShape columns = wholeColumnsShape(4096, 2);
  // bf16: 8 elements a 16-byte load; 8 lanes give 64 blocks (>= 33).
  CombineLayout layout = chooseColumnKernelLayout(columns, h200);
  EXPECT_EQ(layout.vectorWidth, 8);
  EXPECT_EQ(layout.threads, 256);
  EXPECT_EQ(layout.lanes, 8);
  EXPECT_EQ(layout.groups(), 32);
  EXPECT_EQ(layout.blockColumns(), 64);
  // Narrow rows stop at 4 lanes (64-byte runs of a row): 32 blocks.
  columns.n = 1024;
  EXPECT_EQ(chooseColumnKernelLayout(columns, h200).lanes, 4);
  // N = 1000 is whole vectors of 8; N = 1001 of none but 1.
  columns.n = 1000;
  EXPECT_EQ(chooseColumnKernelLayout(columns, h200).vectorWidth, 8);
  columns.n = 1001;
  EXPECT_EQ(chooseColumnKernelLayout(columns, h200).vectorWidth, 1);
  // f32 inputs: 4 a load; wide rows keep 32 lanes.
  columns.n = 8192;
  columns.elementBytes = 4;
  columns.narrowestInputBytes = 4;
  layout = chooseColumnKernelLayout(columns, h200);
  EXPECT_EQ(layout.vectorWidth, 4);
  EXPECT_EQ(layout.lanes, 32); // 64 blocks
  DeviceInfo small = h200;
  small.maxThreadsPerBlock = 128;
  EXPECT_EQ(chooseColumnKernelLayout(columns, small).threads, 128);
}

// The row half of norm-short-rows' pair leaves the column half SMs where
// one row block fills an SM's registers (bf16 N = 12288: 768 threads of
// about 80 registers), and spreads its rows over the SMs that leaves.
TEST(Tuning, ShortRowsRowKernelLeavesSMsToColumnKernel) {
  DeviceInfo h200;
  // RMSNorm's backward split in two: dx from x and dy (a row reduction),
  // and dW summed over whole columns.
  KernelShape rows;
  rows.n = 12288;
  rows.fullOperands = 2;
  rows.fullOutputs = 1;
  rows.rowReductions = 1;
  rows.columnInputs = 1;
  KernelShape columns = wholeColumnsShape(12288, 1);
  // 32 lanes of 8 columns: 48 blocks.
  EXPECT_EQ(columnKernelBlocks(columns, h200), 48);
  KernelPlan alone = planKernel(rows, h200, nullptr);
  ASSERT_EQ(alone.kind, KernelPlan::Kind::RowResident);
  ASSERT_EQ(alone.layout.threads, 768);
  ASSERT_EQ(alone.rowsPerBlock, 2);
  EXPECT_EQ(alone.minBlocks, 8 * 132);
  EXPECT_TRUE(shutsOutColumnBlocks(rows, alone, columns, h200));
  // Up to 4 rows a block over the 84 SMs the column blocks leave: 336 rows,
  // past the short-rows limit of 288.
  KernelPlan beside =
      planKernel(rows, h200, nullptr, PlanRequest().setBesideColumns(columns));
  EXPECT_EQ(beside.rowsPerBlock, 4);
  EXPECT_EQ(beside.minBlocks, 132 - 48);
  EXPECT_EQ(chooseMinBlocks(rows, alone, h200, &columns), 132 - 48);
  // Every M below the limit of the fused kernel the two come from (RMSNorm:
  // one column output; LayerNorm: two) fits those blocks.
  for (int64_t outputs : {1, 2}) {
    KernelShape fused = rows;
    fused.columnOutputs = outputs;
    EXPECT_LE(chooseShortRowsLimit(fused, h200),
              beside.rowsPerBlock * beside.minBlocks)
        << outputs;
  }
  // Rows of N = 8192 (512 threads) leave a column block room: unchanged.
  rows.n = columns.n = 8192;
  KernelPlan room =
      planKernel(rows, h200, nullptr, PlanRequest().setBesideColumns(columns));
  ASSERT_EQ(room.layout.threads, 512);
  EXPECT_FALSE(shutsOutColumnBlocks(rows, room, columns, h200));
  EXPECT_EQ(room.rowsPerBlock, chooseRowsPerBlock(8192, 2, h200));
  EXPECT_EQ(room.minBlocks, 8 * 132);
  EXPECT_EQ(columnKernelBlocks(columns, h200), 64);
  // A device with fewer SMs than column blocks still runs a row block.
  DeviceInfo few = h200;
  few.numSMs = 16;
  rows.n = columns.n = 12288;
  EXPECT_EQ(chooseMinBlocks(rows, alone, few, &columns), 1);
}

/// A forward at row length `n` with `rowReductions` row reductions (1:
/// RMSNorm, 2: LayerNorm).
static KernelShape forwardShape(int64_t n, int64_t rowReductions) {
  KernelShape shape;
  shape.n = n;
  shape.fullOperands = 1;
  shape.rowReductions = rowReductions;
  shape.fullOutputs = 1;
  return shape;
}

/// The streamed forward's rows, [begin, end).
static std::pair<int64_t, int64_t> streamedRows(const KernelShape &shape) {
  RowRange rows = chooseStreamedRows(shape, DeviceInfo());
  return {rows.begin, rows.end};
}

/// A forward with a prologue (the residual add: x and the residual in, y
/// and their sum h out) streams at every M where its block holds the row,
/// RMSNorm and LayerNorm alike, with a row a block; where it does not, it
/// keeps the row kernel, with the register prefetch below rows of 16 KB.
/// A backward's row kernel (it reads rstd) with as many full operands is
/// not a forward.
TEST(Tuning, ForwardsWithAResidualAddStreamWhereTheyHoldTheRow) {
  for (int64_t reductions : {1, 2}) {
    KernelShape add = forwardShape(2048, reductions);
    add.fullOperands = 2;
    add.fullOutputs = 2;
    EXPECT_TRUE(isForward(add));
    EXPECT_TRUE(chooseStreamedRows(add, DeviceInfo()).coversAll());
    EXPECT_TRUE(chooseHeldRows(add, DeviceInfo()).empty());
    add.n = 4096;
    EXPECT_TRUE(chooseStreamedRows(add, DeviceInfo()).coversAll());
    add.n = 7168;
    EXPECT_TRUE(chooseStreamedRows(add, DeviceInfo()).empty());
    KernelPlan plan = planKernel(add, DeviceInfo(), nullptr);
    EXPECT_EQ(plan.kind, KernelPlan::Kind::RowResident);
    EXPECT_EQ(plan.layout.sharedStages, 0);
    add.n = 8192;
    EXPECT_GT(planKernel(add, DeviceInfo(), nullptr).layout.sharedStages, 0);
  }
  KernelShape dx = forwardShape(2048, 1);
  dx.fullOperands = 2;
  dx.rowInputs = 1;
  EXPECT_FALSE(isForward(dx));
  EXPECT_TRUE(chooseStreamedRows(dx, DeviceInfo()).empty());
}

/// A forward of two full inputs (the gated norm's x and z) whose block is one
/// warp (N = 256 bf16) holds four rows, the warp's own, from 64 rows per SM;
/// wider blocks (N = 2048), a residual add's forward (h an early output) and
/// the warp-rows option's 0 hold a row a block.
TEST(Tuning, TwoInputForwardsOfOneWarpHoldFourRows) {
  DeviceInfo h200;
  for (int64_t reductions : {1, 2}) {
    KernelShape gated = forwardShape(256, reductions);
    gated.fullOperands = 2;
    ASSERT_EQ(chooseStreamingLayout(256, 2, h200, 0, 2).threads, 32);
    std::vector<HeldRows> bands = chooseHeldRows(gated, h200);
    ASSERT_EQ(bands.size(), 1u);
    EXPECT_EQ(bands[0].rowsPerBlock, 4);
    EXPECT_TRUE(bands[0].warpRows);
    EXPECT_EQ(bands[0].minBlocksPerSM, 0);
    EXPECT_EQ(bands[0].rows.begin, 64 * h200.numSMs);
    EXPECT_EQ(bands[0].rows.end, chooseStreamedRows(gated, h200).end);
    EXPECT_TRUE(chooseHeldRows(gated, h200, /*warpRows=*/0).empty());
    KernelShape add = gated;
    add.fullOutputs = 2;
    add.earlyOutputs = 1;
    EXPECT_TRUE(chooseHeldRows(add, h200).empty());
    gated.n = 2048;
    EXPECT_TRUE(chooseHeldRows(gated, h200).empty());
  }
}

/// A forward with a residual add whose rows are streamed from L2 stores h in
/// its first pass and reads it back (every pass loading all of the row's
/// sweeps, up to kMaxStreamSweepsPerStep); where the block holds the row, or
/// nothing is computed from the elements alone, it does not.
TEST(Tuning, StreamedResidualAddsStoreHFirst) {
  DeviceInfo h200;
  for (int64_t reductions : {1, 2}) {
    KernelShape add = forwardShape(32768, reductions);
    add.fullOperands = 2;
    add.fullOutputs = 2;
    add.earlyOutputs = 1;
    KernelPlan plan = planKernel(add, h200, nullptr);
    ASSERT_EQ(plan.kind, KernelPlan::Kind::Streaming);
    EXPECT_FALSE(plan.layout.holdsRow);
    EXPECT_TRUE(plan.layout.storesEarlyOutputs);
    EXPECT_EQ(plan.layout.sweepsPerStep, 4);
    // No L2 prefetch: it evicted h before the later passes read it back;
    // the plain forward keeps its prefetch.
    EXPECT_EQ(plan.layout.l2PrefetchRows, 0);
    EXPECT_GT(planKernel(forwardShape(32768, reductions), h200, nullptr)
                  .layout.l2PrefetchRows,
              0);
    EXPECT_EQ(validatePlan(add, plan, h200), "");
    // Twelve sweeps of 1024 threads: the largest divisor up to eight.
    add.n = 98304;
    plan = planKernel(add, h200, nullptr, PlanRequest().setStreamRows(true));
    EXPECT_TRUE(plan.layout.storesEarlyOutputs);
    EXPECT_EQ(plan.layout.sweepsPerStep, 6);
    // A held row reads its inputs once already.
    add.n = 2048;
    plan = planKernel(add, h200, nullptr, PlanRequest().setStreamRows(true));
    EXPECT_EQ(plan.kind, KernelPlan::Kind::Streaming);
    EXPECT_TRUE(plan.layout.holdsRow);
    EXPECT_FALSE(plan.layout.storesEarlyOutputs);
    // Nothing computed from the elements alone: the plain forward's sweeps.
    add.n = 32768;
    add.earlyOutputs = 0;
    plan = planKernel(add, h200, nullptr);
    EXPECT_FALSE(plan.layout.storesEarlyOutputs);
    EXPECT_EQ(plan.layout.sweepsPerStep, 1);
    // FP8 outputs (y quantized) were not measured: no early stores.
    KernelShape quant = add;
    quant.earlyOutputs = 1;
    quant.narrowestOutputBytes = 1;
    KernelPlan quantPlan = planKernel(quant, h200, nullptr);
    ASSERT_EQ(quantPlan.kind, KernelPlan::Kind::Streaming);
    EXPECT_FALSE(quantPlan.layout.storesEarlyOutputs);
    // A plan that stores early outputs the kernel does not have is refused.
    plan.layout.storesEarlyOutputs = true;
    EXPECT_NE(validatePlan(add, plan, h200), "");
  }
}

/// A forward with a residual add walks half the rows of the plain forward's
/// entry; with FP8 outputs or column groups, and backwards, it keeps them.
TEST(Tuning, ResidualAddForwardsWalkHalfTheRows) {
  KernelShape add = forwardShape(8192, 1);
  add.fullOperands = 2;
  add.fullOutputs = 2;
  add.earlyOutputs = 1;
  EXPECT_EQ(chooseResidualAddRows(add, 4), 2);
  EXPECT_EQ(chooseResidualAddRows(add, 1), 1);
  KernelPlan plan = planKernel(add, DeviceInfo(), nullptr);
  ASSERT_EQ(plan.kind, KernelPlan::Kind::RowResident);
  EXPECT_EQ(plan.rowsPerBlock, chooseRowsPerBlock(8192, 2, DeviceInfo()) / 2);
  KernelShape quant = add;
  quant.narrowestOutputBytes = 1;
  EXPECT_EQ(chooseResidualAddRows(quant, 4), 4);
  KernelShape groups = add;
  groups.groupSize = 128;
  EXPECT_EQ(chooseResidualAddRows(groups, 4), 4);
  KernelShape plain = forwardShape(8192, 1);
  EXPECT_EQ(chooseResidualAddRows(plain, 4), 4);
  KernelShape backward = add;
  backward.rowInputs = 1;
  EXPECT_EQ(chooseResidualAddRows(backward, 4), 4);
}

TEST(Tuning, RmsNormForwardsStreamAtEveryM) {
  KernelShape rms = forwardShape(4096, 1);
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).coversAll());
  rms.n = 1000;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).coversAll());
  // f32 rows of 4096 take two vectors a thread: measured when the streamed
  // kernel re-read them, they keep that limit (6M elements).
  KernelShape f32 = rms;
  f32.n = 4096;
  f32.elementBytes = 4;
  using Rows = std::pair<int64_t, int64_t>;
  EXPECT_EQ(streamedRows(f32), Rows(0, 1536));
  f32.n = 2048;
  EXPECT_TRUE(chooseStreamedRows(f32, DeviceInfo()).coversAll());
  // Rows a block's one sweep does not cover, shorter rows than measured,
  // and backwards: never.
  rms.n = 4097;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).empty());
  rms.n = 8192;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).empty());
  rms.n = 768;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).coversAll());
  // The forward that writes rstd too.
  KernelShape stats = rms;
  stats.rowOutputs = 1;
  EXPECT_TRUE(chooseStreamedRows(stats, DeviceInfo()).coversAll());
  stats.n = 256;
  EXPECT_TRUE(chooseStreamedRows(stats, DeviceInfo()).coversAll());
  stats.n = 255;
  EXPECT_TRUE(chooseStreamedRows(stats, DeviceInfo()).empty());
  rms.n = 640;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).coversAll());
  rms.n = 128;
  EXPECT_TRUE(chooseStreamedRows(rms, DeviceInfo()).empty());
  KernelShape ln = forwardShape(384, 2);
  EXPECT_TRUE(chooseStreamedRows(ln, DeviceInfo()).coversAll());
  // A backward's row kernel reads dy, x and the saved rstd.
  KernelShape backward = rms;
  backward.n = 4096;
  backward.fullOperands = 2;
  backward.rowInputs = 1;
  EXPECT_TRUE(chooseStreamedRows(backward, DeviceInfo()).empty());
}

TEST(Tuning, HeldRowsStayWithinAThreadsRegisters) {
  DeviceInfo h200;
  // N = 1000 bf16: 125 vectors of 8 over 128 threads, a vector each.
  RowLayout held = chooseStreamingLayout(1000, 2, h200);
  ASSERT_TRUE(held.holdsRow);
  EXPECT_EQ(held.elementsPerThread(), 8);
  EXPECT_EQ(maxHeldRows(held, 1), 31);
  EXPECT_EQ(maxHeldRows(held, 2), 15);
  // A row re-read from L2 is not held: one row a block.
  RowLayout streamed = held;
  streamed.holdsRow = false;
  EXPECT_EQ(maxHeldRows(streamed, 1), 1);
  // The rules' bands of rows a block (not warp rows, whose blocks share
  // their rows out) stay within it at every N they hold rows at.
  for (int64_t reductions : {1, 2})
    for (int64_t n = 128; n <= 8192; n += 128) {
      KernelShape shape = forwardShape(n, reductions);
      for (const HeldRows &band : chooseHeldRows(shape, h200)) {
        if (band.warpRows)
          continue;
        RowLayout layout =
            chooseStreamingLayout(n, 2, h200, band.vectorWidth, 1);
        EXPECT_LE(band.rowsPerBlock, maxHeldRows(layout, 1)) << "N = " << n;
      }
    }
}

TEST(Tuning, StreamedForwardsOf128ThreadBlocksHoldFourRowsAtManyRows) {
  using Rows = std::pair<int64_t, int64_t>;
  // Rows a block and where the first band starts (-1: none).
  auto heldFrom = [](const KernelShape &shape, const DeviceInfo &device) {
    std::vector<HeldRows> bands = chooseHeldRows(shape, device);
    if (bands.empty())
      return Rows(1, -1);
    return Rows(bands.front().rowsPerBlock, bands.front().rows.begin);
  };
  // N = 1000-1024 bf16: 128 threads, one vector each; four rows a block
  // from 24 rows per SM (16 where the row leaves threads without a
  // vector: N = 1000, 125 vectors; from three quarters of a row per SM
  // where RMSNorm's warps own them, N = 1024), the last band with no end.
  for (int64_t reductions : {1, 2})
    for (int64_t n : {1000, 1024}) {
      KernelShape shape = forwardShape(n, reductions);
      int64_t from = n == 1000 ? 16 * 132 : reductions == 1 ? 99 : 24 * 132;
      EXPECT_EQ(heldFrom(shape, DeviceInfo()), Rows(4, from));
      EXPECT_EQ(chooseHeldRows(shape, DeviceInfo()).back().rows.end,
                RowRange::all().end);
    }
  // The threshold follows the SM count.
  DeviceInfo small;
  small.numSMs = 100;
  EXPECT_EQ(heldFrom(forwardShape(1024, 2), small), Rows(4, 2400));
  EXPECT_EQ(heldFrom(forwardShape(1024, 1), small), Rows(4, 75));
  // f16 like bf16; f32 rows of 1024 take 256 threads: one row a block.
  KernelShape f16 = forwardShape(1024, 2);
  EXPECT_EQ(heldFrom(f16, DeviceInfo()), Rows(4, 3168));
  KernelShape f32 = forwardShape(1024, 1);
  f32.elementBytes = 4;
  EXPECT_EQ(heldFrom(f32, DeviceInfo()).first, 1);
  // The wider blocks of N = 2048-4096 bf16 (256-512 threads of one vector):
  // the inference forwards hold two rows a block from where a row a block
  // takes a second wave (8 or 4 blocks an SM; RMSNorm's a quarter of a row
  // per SM later where those blocks are eight or more an SM), to the last
  // streamed row (LayerNorm's end at 5M elements); for the forwards that
  // write their statistics see WideHeldRowsOfStatisticsForwards.
  EXPECT_EQ(heldFrom(forwardShape(2048, 1), DeviceInfo()), Rows(2, 1090));
  EXPECT_EQ(heldFrom(forwardShape(1536, 1), DeviceInfo()), Rows(2, 1354));
  EXPECT_EQ(heldFrom(forwardShape(2048, 2), DeviceInfo()), Rows(2, 1057));
  EXPECT_EQ(heldFrom(forwardShape(4096, 1), DeviceInfo()), Rows(2, 529));
  EXPECT_EQ(heldFrom(forwardShape(4096, 1), small), Rows(2, 401));
  EXPECT_EQ(
      chooseHeldRows(forwardShape(4096, 1), DeviceInfo()).front().rows.end,
      RowRange::all().end);
  EXPECT_EQ(heldFrom(forwardShape(4096, 2), DeviceInfo()), Rows(2, 529));
  EXPECT_EQ(chooseHeldRows(forwardShape(4096, 2), DeviceInfo()).back().rows.end,
            1280);
  // Two vectors a thread (N = 8192) spilled with two rows: one.
  EXPECT_EQ(heldFrom(forwardShape(8192, 1), DeviceInfo()).first, 1);
  // The warp-rows option leaves these blocks a row each.
  EXPECT_TRUE(chooseHeldRows(forwardShape(4096, 1), DeviceInfo(), 0).empty());
  // Kernels that do not stream (rows shorter than measured, backwards):
  // one row.
  EXPECT_EQ(heldFrom(forwardShape(128, 1), DeviceInfo()).first, 1);
  KernelShape backward = forwardShape(1024, 1);
  backward.fullOperands = 2;
  EXPECT_EQ(heldFrom(backward, DeviceInfo()).first, 1);
}

/// The bands of chooseHeldRows (with the warp-rows option `warpRows`) as
/// (rows a block, begin, end, warp rows, blocks per SM asked of ptxas).
using Band = std::tuple<int64_t, int64_t, int64_t, bool, int64_t>;
static std::vector<Band> heldBands(const KernelShape &shape,
                                   const DeviceInfo &device,
                                   int64_t warpRows = -1) {
  std::vector<Band> out;
  for (const HeldRows &band : chooseHeldRows(shape, device, warpRows))
    out.emplace_back(band.rowsPerBlock, band.rows.begin, band.rows.end,
                     band.warpRows, band.minBlocksPerSM);
  return out;
}

/// Expects chooseHeldRows to give `shape` bands, none of them with `flag`
/// (a HeldRows member) set.
static void expectNoBandWith(const KernelShape &shape, bool HeldRows::*flag) {
  std::vector<HeldRows> bands = chooseHeldRows(shape, DeviceInfo());
  ASSERT_FALSE(bands.empty()) << shape.n << " " << shape.elementBytes;
  for (const HeldRows &band : bands)
    EXPECT_FALSE(band.*flag) << shape.n << " " << shape.rowReductions << " "
                             << shape.rowOutputs << " " << band.rows.begin;
}

TEST(Tuning, WholeBlockVersionsOfOneWarpBlocks) {
  // The blocks of one warp (N = 256 two-byte) get a version of every band
  // for M a multiple of the block's rows: RMSNorm's forwards, with or
  // without statistics, and LayerNorm's inference forward.
  KernelShape rms256 = forwardShape(256, 1);
  KernelShape rmsStats256 = rms256;
  rmsStats256.rowOutputs = 1;
  KernelShape ln256 = forwardShape(256, 2);
  for (const KernelShape &shape : {rms256, rmsStats256, ln256}) {
    std::vector<HeldRows> bands = chooseHeldRows(shape, DeviceInfo());
    ASSERT_FALSE(bands.empty());
    for (const HeldRows &band : bands) {
      EXPECT_EQ(band.rowsPerBlock, 4);
      EXPECT_TRUE(band.wholeBlocksVersion)
          << shape.rowReductions << " " << shape.rowOutputs << " "
          << band.rows.begin;
    }
  }
  // Not LayerNorm's statistics forward (it lost without bounds), nor
  // RMSNorm's wider blocks (N = 512 two-byte, N = 256 four-byte: two
  // warps; LayerNorm's inference forward there below).
  KernelShape lnStats256 = ln256;
  lnStats256.rowOutputs = 2;
  KernelShape rms512 = forwardShape(512, 1);
  KernelShape rmsF32 = forwardShape(256, 1);
  rmsF32.elementBytes = 4;
  for (const KernelShape &shape : {lnStats256, rms512, rmsF32})
    expectNoBandWith(shape, &HeldRows::wholeBlocksVersion);
}

TEST(Tuning, WholeBlockBranchesOfLayerNormInference) {
  // The bands of LayerNorm's inference forward at N = 256 two-byte (weight
  // and bias, whose whole blocks fence their loads) branch in the kernel
  // for the M their whole-block versions do not take; RMSNorm's (one
  // weight) and LayerNorm's statistics forward (no whole-block versions)
  // do not, at N = 256 or 512.
  KernelShape ln256 = forwardShape(256, 2);
  ln256.columnInputs = 2;
  std::vector<HeldRows> bands = chooseHeldRows(ln256, DeviceInfo());
  ASSERT_FALSE(bands.empty());
  for (const HeldRows &band : bands)
    EXPECT_TRUE(band.wholeBlocksBranch) << band.rows.begin;
  // At N = 512 (blocks of two warps) its bands whose warps hold rows of
  // their own take both, its bands of rows both warps share neither.
  KernelShape ln512 = forwardShape(512, 2);
  ln512.columnInputs = 2;
  bool warpBands = false, sharedBands = false;
  for (const HeldRows &band : chooseHeldRows(ln512, DeviceInfo())) {
    EXPECT_EQ(band.wholeBlocksVersion, band.warpRows) << band.rows.begin;
    EXPECT_EQ(band.wholeBlocksBranch, band.warpRows) << band.rows.begin;
    (band.warpRows ? warpBands : sharedBands) = true;
  }
  EXPECT_TRUE(warpBands && sharedBands);
  KernelShape rms256 = forwardShape(256, 1);
  rms256.columnInputs = 1;
  KernelShape lnStats256 = ln256;
  lnStats256.rowOutputs = 2;
  KernelShape lnStats512 = ln512;
  lnStats512.rowOutputs = 2;
  KernelShape rms512 = forwardShape(512, 1);
  rms512.columnInputs = 1;
  for (const KernelShape &shape : {rms256, lnStats256, lnStats512, rms512})
    expectNoBandWith(shape, &HeldRows::wholeBlocksBranch);
}

TEST(Tuning, FencedColumnLoads) {
  // Whole blocks that preload two column inputs (LayerNorm's weight and
  // bias) fence them; one column input (RMSNorm's weight) or blocks with
  // row bounds do not.
  KernelShape ln256 = forwardShape(256, 2);
  ln256.columnInputs = 2;
  KernelShape rms256 = forwardShape(256, 1);
  rms256.columnInputs = 1;
  EXPECT_TRUE(fencesColumnLoads(ln256, /*wholeBlocks=*/true));
  EXPECT_FALSE(fencesColumnLoads(ln256, /*wholeBlocks=*/false));
  EXPECT_FALSE(fencesColumnLoads(rms256, /*wholeBlocks=*/true));
}

TEST(Tuning, WideHeldRowsOfStatisticsForwards) {
  const int64_t kAll = RowRange::all().end;
  // RMSNorm's statistics forward holds two rows a block over the inference
  // forward's band (from 1056 + 132 / 4 + 1 rows at N = 2048, whose eight
  // one-row blocks an SM leave a short second wave) and asks ptxas for a
  // row a block's blocks an SM (8 of 256 threads at N = 2048, 4 of 512 at
  // N = 4096); the inference forward leaves its registers to ptxas.
  KernelShape rms2048 = forwardShape(2048, 1);
  rms2048.rowOutputs = 1;
  EXPECT_EQ(heldBands(rms2048, DeviceInfo()),
            (std::vector<Band>{Band(2, 1090, kAll, false, 8)}));
  KernelShape rms4096 = forwardShape(4096, 1);
  rms4096.rowOutputs = 1;
  EXPECT_EQ(heldBands(rms4096, DeviceInfo()),
            (std::vector<Band>{Band(2, 529, kAll, false, 4)}));
  EXPECT_EQ(heldBands(forwardShape(4096, 1), DeviceInfo()),
            (std::vector<Band>{Band(2, 529, kAll, false, 0)}));
  // LayerNorm's asks for the blocks an SM 40 registers allow, counted in
  // whole warps per quarter of the register file (12 a quarter), and holds
  // two rows a block only while they take one wave and a row a block two:
  // N = 1536 eight blocks of six warps (two-row wave 2112 rows, one-row
  // 1320), N = 2048 six of eight, N = 3072 four of twelve, N = 4096 three of
  // sixteen. Past that, four rows a block (64 registers) up to one wave of
  // them: N = 1536 five blocks an SM (2640 rows), N = 2048 four (2112),
  // N = 4096 two (1056); N = 3072's two four-row blocks hold no more rows
  // than its four two-row blocks, so no four-row band.
  auto lnStats = [](int64_t n) {
    KernelShape shape = forwardShape(n, 2);
    shape.rowOutputs = 2;
    return heldBands(shape, DeviceInfo());
  };
  EXPECT_EQ(lnStats(1536), (std::vector<Band>{Band(2, 1321, 2113, false, 8),
                                              Band(4, 2113, 2641, false, 5)}));
  EXPECT_EQ(lnStats(2048), (std::vector<Band>{Band(2, 1057, 1585, false, 6),
                                              Band(4, 1585, 2113, false, 4)}));
  EXPECT_EQ(lnStats(3072), (std::vector<Band>{Band(2, 661, 1057, false, 4)}));
  EXPECT_EQ(lnStats(4096), (std::vector<Band>{Band(2, 529, 793, false, 3),
                                              Band(4, 793, 1057, false, 2)}));
  // Where two-row blocks hold no more rows than one-row blocks, only the
  // four-row band (a smaller register file: 32K registers leave N = 4096
  // one block of 512 threads at 40 registers, two rows an SM against two
  // of one row; one block at 64 registers holds four).
  DeviceInfo halfRegisters;
  halfRegisters.registersPerSM = 32768;
  halfRegisters.threadsPerSM = 1024;
  KernelShape ln4096 = forwardShape(4096, 2);
  ln4096.rowOutputs = 2;
  EXPECT_EQ(heldBands(ln4096, halfRegisters),
            (std::vector<Band>{Band(4, 265, 529, false, 1)}));
}

TEST(Tuning, LayerNormInferenceForwardHoldsFourRowsWhereTheyTakeOneWave) {
  const int64_t kAll = RowRange::all().end;
  // Two rows a block (40 registers) from one wave of one-row blocks; where
  // those take two waves, four rows a block at 64 registers (asked of
  // ptxas) while they take one; two rows again past it, to the end of the
  // streamed rows. N = 4096 (16 warps a block): three two-row blocks an SM
  // (792 rows a wave), two four-row blocks (1056); N = 2048 (8 warps): six
  // and four (1584, 2112); N = 3072 (12 warps): four and two, the same 1056
  // rows a wave, so no four-row band.
  EXPECT_EQ(heldBands(forwardShape(4096, 2), DeviceInfo()),
            (std::vector<Band>{Band(2, 529, 793, false, 0),
                               Band(4, 793, 1057, false, 2),
                               Band(2, 1057, 1280, false, 0)}));
  EXPECT_EQ(heldBands(forwardShape(2048, 2), DeviceInfo()),
            (std::vector<Band>{Band(2, 1057, 1585, false, 0),
                               Band(4, 1585, 2113, false, 4),
                               Band(2, 2113, 2560, false, 0)}));
  EXPECT_EQ(heldBands(forwardShape(3072, 2), DeviceInfo()),
            (std::vector<Band>{Band(2, 661, 1706, false, 0)}));
  // RMSNorm's inference forward keeps two rows (four take two blocks an SM
  // at 62-63 registers: no more rows a wave).
  EXPECT_EQ(heldBands(forwardShape(4096, 1), DeviceInfo()),
            (std::vector<Band>{Band(2, 529, kAll, false, 0)}));
}

TEST(Tuning, HeldRowsFillOneWaveThenThreeABlock) {
  const int64_t kAll = RowRange::all().end;
  // RMSNorm at N = 1024 bf16: warp rows from three quarters of a row per
  // SM (99 rows) up to and including one wave of four-row blocks (32 rows
  // per SM: 4224 rows on 132 SMs), except a row a block from 3 to 5 rows
  // per SM (396-660 rows), then up to 36 rows per SM at nine blocks an SM
  // (still one wave), three rows a block up to 128 rows per SM, then four.
  EXPECT_EQ(heldBands(forwardShape(1024, 1), DeviceInfo()),
            (std::vector<Band>{
                Band(4, 99, 396, true, 0), Band(4, 661, 4225, true, 0),
                Band(4, 4225, 4753, true, 9), Band(3, 4753, 16896, false, 0),
                Band(4, 16896, kAll, false, 0)}));
  // LayerNorm the same without warp rows, from 24 rows per SM.
  EXPECT_EQ(heldBands(forwardShape(1024, 2), DeviceInfo()),
            (std::vector<Band>{Band(4, 3168, 4225, false, 0),
                               Band(4, 4225, 4753, false, 9),
                               Band(3, 4753, 16896, false, 0),
                               Band(4, 16896, kAll, false, 0)}));
  // A forward that writes its statistics (rstd; mean and rstd) does not
  // ask for nine blocks an SM: three rows a block past one wave.
  // LayerNorm's (72 registers, seven blocks of 128 threads an SM) asks for
  // eight from 28 rows per SM (3696 rows), where its grid needs them.
  for (int64_t reductions : {1, 2}) {
    KernelShape stats = forwardShape(1024, reductions);
    stats.rowOutputs = reductions;
    bool warps = reductions == 1;
    std::vector<Band> expected =
        warps ? std::vector<Band>{Band(4, 99, 396, true, 0),
                                  Band(4, 661, 4225, true, 0),
                                  Band(3, 4225, 16896, false, 0),
                                  Band(4, 16896, kAll, false, 0)}
              : std::vector<Band>{Band(4, 3168, 3697, false, 0),
                                  Band(4, 3697, 4225, false, 8),
                                  Band(3, 4225, 16896, false, 0),
                                  Band(4, 16896, kAll, false, 0)};
    EXPECT_EQ(heldBands(stats, DeviceInfo()), expected);
  }
  // The bound follows the device: from 28 rows per SM on 100 SMs, none
  // where twice the registers hold the wave's eight blocks unbounded.
  KernelShape lnStats = forwardShape(1024, 2);
  lnStats.rowOutputs = 2;
  DeviceInfo fewerSMs;
  fewerSMs.numSMs = 100;
  EXPECT_EQ(std::get<1>(heldBands(lnStats, fewerSMs)[1]), 2801);
  EXPECT_EQ(std::get<4>(heldBands(lnStats, fewerSMs)[1]), 8);
  DeviceInfo moreRegisters;
  moreRegisters.registersPerSM = 2 * 65536;
  for (const Band &band : heldBands(lnStats, moreRegisters))
    EXPECT_EQ(std::get<4>(band), 0);
  // The warp-rows option's 1 keeps the band whole (no row a block in it).
  EXPECT_EQ(std::get<2>(heldBands(forwardShape(1024, 1), DeviceInfo(),
                                  /*warpRows=*/1)[0]),
            4225);
  // The bands follow the SM count.
  DeviceInfo small;
  small.numSMs = 100;
  EXPECT_EQ(heldBands(forwardShape(1024, 1), small),
            (std::vector<Band>{
                Band(4, 75, 300, true, 0), Band(4, 501, 3201, true, 0),
                Band(4, 3201, 3601, true, 9), Band(3, 3601, 12800, false, 0),
                Band(4, 12800, kAll, false, 0)}));
  // Ragged rows (N = 1000) lost with both: four rows a block throughout.
  EXPECT_EQ(heldBands(forwardShape(1000, 1), DeviceInfo()),
            (std::vector<Band>{Band(4, 2112, kAll, false, 0)}));
  // N = 768 (96 threads, three warps): four rows do not divide among the
  // three warps, so RMSNorm's blocks share their rows and take them from
  // 24 rows per SM; LayerNorm's warps own a row each below that, three a
  // block from three quarters of a row per SM, and its blocks keep four
  // rows past the capped wave. Blocks of one warp and one row take
  // RMSNorm's rows past one wave of its 96-thread blocks of a row (21 an
  // SM: 2773 rows) and both norms' past one wave of ten four-row blocks an
  // SM (RMSNorm's 5281-10560 rows, LayerNorm's 5809-8448).
  EXPECT_EQ(heldBands(forwardShape(768, 1), DeviceInfo()),
            (std::vector<Band>{
                Band(1, 2773, 3168, true, 0), Band(4, 3168, 4225, false, 0),
                Band(4, 4225, 4753, false, 9), Band(3, 4753, 5281, false, 0),
                Band(1, 5281, 10561, true, 0), Band(3, 10561, 16896, false, 0),
                Band(4, 16896, kAll, false, 0)}));
  EXPECT_EQ(heldBands(forwardShape(768, 2), DeviceInfo()),
            (std::vector<Band>{
                Band(3, 99, 3168, true, 0), Band(4, 3168, 4225, false, 0),
                Band(4, 4225, 4753, false, 9), Band(4, 4753, 5809, false, 0),
                Band(1, 5809, 8449, true, 0), Band(4, 8449, kAll, false, 0)}));
  // Their statistics forwards keep four rows a block past one wave (three
  // spill at 96 threads), and LayerNorm's 96-thread blocks fit eight an SM
  // without a bound: four rows a block from 24 rows per SM around the
  // one-warp band.
  KernelShape rmsStats = forwardShape(768, 1);
  rmsStats.rowOutputs = 1;
  EXPECT_EQ(heldBands(rmsStats, DeviceInfo()),
            (std::vector<Band>{Band(1, 2773, 3168, true, 0),
                               Band(4, 3168, 5281, false, 0),
                               Band(1, 5281, 10561, true, 0),
                               Band(4, 10561, kAll, false, 0)}));
  KernelShape lnStats768 = forwardShape(768, 2);
  lnStats768.rowOutputs = 2;
  EXPECT_EQ(heldBands(lnStats768, DeviceInfo()),
            (std::vector<Band>{
                Band(3, 99, 3168, true, 0), Band(4, 3168, 5809, false, 0),
                Band(1, 5809, 8449, true, 0), Band(4, 8449, kAll, false, 0)}));
  // N = 256 (one-warp blocks): LayerNorm's four-row blocks within the wave
  // (from 24 rows per SM) ask ptxas for the eight blocks an SM they launch,
  // with or without statistics; RMSNorm's do not.
  for (int64_t reductions : {1, 2}) {
    for (int64_t rowOutputs : {int64_t(0), reductions}) {
      KernelShape shape = forwardShape(256, reductions);
      shape.rowOutputs = rowOutputs;
      std::vector<Band> bands = heldBands(shape, DeviceInfo());
      auto wave = std::find_if(bands.begin(), bands.end(), [](const Band &b) {
        return std::get<1>(b) <= 4096 && 4096 < std::get<2>(b);
      });
      ASSERT_NE(wave, bands.end()) << reductions << " " << rowOutputs;
      EXPECT_EQ(std::get<0>(*wave), 4);
      EXPECT_EQ(std::get<2>(*wave), 4225);
      EXPECT_EQ(std::get<4>(*wave), reductions == 2 ? 8 : 0)
          << reductions << " " << rowOutputs;
    }
  }
  // Below the wave, LayerNorm's one-warp blocks hold four rows of their
  // own from 12 rows per SM (1584 rows), with or without statistics.
  for (int64_t rowOutputs : {0, 2}) {
    KernelShape ln256 = forwardShape(256, 2);
    ln256.rowOutputs = rowOutputs;
    std::vector<Band> bands = heldBands(ln256, DeviceInfo());
    ASSERT_FALSE(bands.empty());
    EXPECT_EQ(bands.front(), Band(4, 1584, 3168, true, 0)) << rowOutputs;
    // Without warp rows (the option's 0) a row a block there.
    EXPECT_EQ(std::get<1>(heldBands(ln256, DeviceInfo(), 0).front()), 3168);
  }
  // LayerNorm's blocks of two warps (N = 512) take RMSNorm's warp-row
  // bands below 24 rows per SM; the wave's bands share the block's rows.
  std::vector<Band> ln512 = heldBands(forwardShape(512, 2), DeviceInfo());
  ASSERT_GE(ln512.size(), 3u);
  EXPECT_EQ(ln512[0], Band(4, 99, 396, true, 0));
  EXPECT_EQ(ln512[1], Band(4, 661, 3168, true, 0));
  EXPECT_EQ(std::get<1>(ln512[2]), 3168);
  EXPECT_FALSE(std::get<3>(ln512[2]));
  // Ragged rows in blocks of two warps hold rows from fewer rows per SM
  // (N = 448: LayerNorm's statistics forward from 8 rows per SM, RMSNorm's
  // forwards from 12); wider blocks (N = 1000) from 16.
  KernelShape lnStats448 = forwardShape(448, 2);
  lnStats448.rowOutputs = 2;
  EXPECT_EQ(std::get<1>(heldBands(lnStats448, DeviceInfo())[0]), 1056);
  EXPECT_EQ(std::get<1>(heldBands(forwardShape(448, 1), DeviceInfo())[0]),
            1584);
  // Every bf16 forward at N = 384 gives each of three warps a row in
  // vectors of half the width (4 bf16: 96 vectors fill the warps) from 99
  // rows up to 24 rows per SM, and shares four rows among the two warps of
  // the widest vectors from there; the option's warp rows keep the widest
  // vectors.
  KernelShape lnStats384 = forwardShape(384, 2);
  lnStats384.rowOutputs = 2;
  KernelShape rmsStats384 = forwardShape(384, 1);
  rmsStats384.rowOutputs = 1;
  for (const KernelShape &shape :
       {forwardShape(384, 2), lnStats384, forwardShape(384, 1), rmsStats384}) {
    std::vector<HeldRows> bands = chooseHeldRows(shape, DeviceInfo());
    ASSERT_EQ(bands.size(), 2u);
    EXPECT_EQ(bands[0].rowsPerBlock, 3);
    EXPECT_EQ(bands[0].rows.begin, 99);
    EXPECT_EQ(bands[0].rows.end, 3168);
    EXPECT_TRUE(bands[0].warpRows);
    EXPECT_EQ(bands[0].vectorWidth, 4);
    EXPECT_EQ(bands[1].rowsPerBlock, 4);
    EXPECT_EQ(bands[1].rows.begin, 3168);
    EXPECT_EQ(bands[1].vectorWidth, 0);
    for (const HeldRows &band : chooseHeldRows(shape, DeviceInfo(), 1))
      EXPECT_EQ(band.vectorWidth, 0);
  }
  // Rows the widest vectors cover exactly keep them (N = 512).
  for (const HeldRows &band :
       chooseHeldRows(forwardShape(512, 1), DeviceInfo()))
    EXPECT_EQ(band.vectorWidth, 0);
  // The half-width layout itself: 96 threads of one 8-byte vector.
  RowLayout half = chooseStreamingLayout(384, 2, DeviceInfo(), 4);
  EXPECT_EQ(half.vectorWidth, 4);
  EXPECT_EQ(half.threads, 96);
  EXPECT_TRUE(half.holdsRow);
  EXPECT_EQ(std::get<1>(heldBands(forwardShape(1000, 1), DeviceInfo())[0]),
            2112);
  // No held rows, no bands (two vectors a thread).
  EXPECT_TRUE(chooseHeldRows(forwardShape(8192, 1), DeviceInfo()).empty());
}

TEST(Tuning, WarpRowsOptionReplacesTheRuleWhereTheRowsDivide) {
  const int64_t kAll = RowRange::all().end;
  auto bandsWith = [](int64_t reductions, int64_t mode) {
    return heldBands(forwardShape(1024, reductions), DeviceInfo(), mode);
  };
  // 1: every band of four rows (the four warps take one each), LayerNorm
  // too; the three-row band does not divide among four warps. A band whose
  // layout the option changes asks for no blocks per SM, and neighbours
  // that then build the same kernel are one band.
  EXPECT_EQ(bandsWith(2, 1),
            (std::vector<Band>{Band(4, 3168, 4753, true, 0),
                               Band(3, 4753, 16896, false, 0),
                               Band(4, 16896, kAll, true, 0)}));
  EXPECT_EQ(bandsWith(1, 1),
            (std::vector<Band>{Band(4, 99, 4225, true, 0),
                               Band(4, 4225, 4753, true, 9),
                               Band(3, 4753, 16896, false, 0),
                               Band(4, 16896, kAll, true, 0)}));
  // Ragged rows (N = 1000) too: their one band is of four rows.
  EXPECT_EQ(heldBands(forwardShape(1000, 1), DeviceInfo(), 1),
            (std::vector<Band>{Band(4, 2112, kAll, true, 0)}));
  // 0: none; RMSNorm's rows below 24 per SM, which hold several a block
  // for warp rows alone, take one a block again.
  EXPECT_EQ(bandsWith(1, 0),
            (std::vector<Band>{Band(4, 3168, 4753, false, 0),
                               Band(3, 4753, 16896, false, 0),
                               Band(4, 16896, kAll, false, 0)}));
  EXPECT_TRUE(validateWarpRows(-1).empty());
  EXPECT_TRUE(validateWarpRows(1).empty());
  EXPECT_EQ(validateWarpRows(2),
            "warp-rows must be -1 (the tuning rule), 0 or 1, got 2");
}

TEST(Tuning, WarpRowsLayoutGivesEachWarpTheBlocksRow) {
  // 128 threads x one 8-wide vector of a 1024-wide row: four warps, each
  // 32 lanes x 4 vectors of a row of its own.
  RowLayout block = chooseStreamingLayout(1024, 2, DeviceInfo());
  ASSERT_TRUE(block.holdsRow);
  std::optional<RowLayout> warps = warpRowsLayout(block);
  ASSERT_TRUE(warps.has_value());
  EXPECT_EQ(warps->threads, 128);
  EXPECT_EQ(warps->rowGroups, 4);
  EXPECT_EQ(warps->chunksPerThread, 4);
  EXPECT_EQ(warps->threadsPerRow(), 32);
  EXPECT_EQ(warps->sliceWidth(), 1024);
  EXPECT_TRUE(warps->holdsRow);
  // A row of two vectors a thread (f32 at N = 4096) has no warp-rows
  // layout; planKernel leaves the request unmet there.
  RowLayout reread = chooseStreamingLayout(4096, 4, DeviceInfo());
  EXPECT_FALSE(warpRowsLayout(reread).has_value());
  KernelShape f32 = forwardShape(4096, 1);
  f32.elementBytes = 4;
  KernelPlan plan =
      planKernel(f32, DeviceInfo(), nullptr,
                 PlanRequest().setStreamRows(true).setWarpRows(true));
  EXPECT_EQ(plan.layout.rowGroups, 1);
  EXPECT_FALSE(plan.layout.warpRows);
  KernelPlan held =
      planKernel(forwardShape(1024, 1), DeviceInfo(), nullptr,
                 PlanRequest().setStreamRows(true).setWarpRows(true));
  EXPECT_EQ(held.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(held.layout.rowGroups, 4);
  EXPECT_TRUE(held.layout.warpRows);
}

TEST(Tuning, WarpRowsBlocksOfFewerRowsHaveAWarpARow) {
  // N = 768 bf16: 96 threads of one vector; a warp's row is three vectors
  // a lane.
  RowLayout block = chooseStreamingLayout(768, 2, DeviceInfo());
  ASSERT_EQ(block.threads, 96);
  // One row a block: a single warp.
  std::optional<RowLayout> one = warpRowsLayout(block, /*rowsPerBlock=*/1);
  ASSERT_TRUE(one.has_value());
  EXPECT_EQ(one->threads, 32);
  EXPECT_EQ(one->rowGroups, 1);
  EXPECT_EQ(one->chunksPerThread, 3);
  EXPECT_TRUE(one->warpRows);
  EXPECT_EQ(one->sliceWidth(), 768);
  // Two rows: two warps; as many rows as warps or more: all three.
  EXPECT_EQ(warpRowsLayout(block, 2)->threads, 64);
  EXPECT_EQ(warpRowsLayout(block, 3)->threads, 96);
  EXPECT_EQ(warpRowsLayout(block, 6)->rowGroups, 3);
  EXPECT_EQ(warpRowsLayout(block)->rowGroups, 3);
  // planKernel takes the rows from the request.
  KernelPlan plan = planKernel(
      forwardShape(768, 2), DeviceInfo(), nullptr,
      PlanRequest().setStreamRows(true).setWarpRows(true, /*rowsPerBlock=*/1));
  EXPECT_EQ(plan.layout.threads, 32);
  EXPECT_TRUE(plan.layout.warpRows);
  // A one-warp block of LayerNorm preloads its weight and bias, as every
  // warp-rows block does; its block of a row shared by 96 threads does not.
  KernelShape ln = forwardShape(768, 2);
  ln.columnInputs = 2;
  EXPECT_TRUE(preloadsColumns(ln, *one, 1));
  EXPECT_FALSE(preloadsColumns(ln, block, 1));
}

TEST(Tuning, SingleWarpBlocksKeepFourRowsPastTheWave) {
  // N = 256 bf16: the streamed block is one warp; RMSNorm's inference
  // forward keeps four rows a block past the capped wave as the others do
  // (three at N = 768, whose blocks have three warps).
  for (int64_t n : {256, 768}) {
    std::vector<Band> bands = heldBands(forwardShape(n, 1), DeviceInfo());
    auto past = std::find_if(bands.begin(), bands.end(), [](const Band &b) {
      return std::get<1>(b) == 4753;
    });
    ASSERT_NE(past, bands.end()) << n;
    EXPECT_EQ(std::get<0>(*past), n == 256 ? 4 : 3) << n;
  }
}

TEST(Tuning, OneWarpBlocksFollowTheDevice) {
  // The one-warp bands at N = 768 scale with the SMs and the threads an SM
  // holds (RMSNorm's first band starts past a wave of 96-thread blocks).
  DeviceInfo small;
  small.numSMs = 100;
  std::vector<Band> bands = heldBands(forwardShape(768, 1), small);
  ASSERT_FALSE(bands.empty());
  EXPECT_EQ(bands.front(), Band(1, 2101, 2400, true, 0));
  EXPECT_NE(std::find(bands.begin(), bands.end(), Band(1, 4001, 8001, true, 0)),
            bands.end());
  DeviceInfo fewerThreads;
  fewerThreads.threadsPerSM = 1536;
  EXPECT_EQ(heldBands(forwardShape(768, 1), fewerThreads).front(),
            Band(1, 16 * 132 + 1, 3168, true, 0));
  // N = 1024 (four warps share four rows evenly): no one-warp blocks.
  for (const Band &band : heldBands(forwardShape(1024, 1), DeviceInfo()))
    EXPECT_GT(std::get<0>(band), 1);
  // The warp-rows option's 0: the rows around take the band.
  std::vector<Band> none = heldBands(forwardShape(768, 1), DeviceInfo(), 0);
  for (const Band &band : none)
    EXPECT_GT(std::get<0>(band), 1);
  EXPECT_NE(std::find(none.begin(), none.end(), Band(3, 4753, 16896, false, 0)),
            none.end());
}

TEST(Tuning, HeldRowsPreloadTheWeightOrEveryColumnInputOfSeveralRows) {
  KernelShape rms = forwardShape(1024, 1);
  rms.columnInputs = 1;
  KernelShape ln = forwardShape(1024, 2);
  ln.columnInputs = 2;
  RowLayout block = chooseStreamingLayout(1024, 2, DeviceInfo());
  RowLayout warps = *warpRowsLayout(block);
  // Several rows a block (or warp rows): both.
  for (const KernelShape &shape : {rms, ln}) {
    EXPECT_TRUE(preloadsColumns(shape, block, 4));
    EXPECT_TRUE(preloadsColumns(shape, warps, 1));
  }
  // A row a block: RMSNorm's one weight, not LayerNorm's weight and bias.
  EXPECT_TRUE(preloadsColumns(rms, block, 1));
  EXPECT_FALSE(preloadsColumns(ln, block, 1));
  // Rows of up to four vectors a thread are held too (N = 16384 bf16).
  RowLayout longRow = chooseStreamingLayout(16384, 2, DeviceInfo());
  EXPECT_TRUE(preloadsColumns(rms, longRow, 1));
  // A row re-read from L2 loads its columns in each pass.
  RowLayout reread = chooseStreamingLayout(131072, 2, DeviceInfo());
  ASSERT_FALSE(reread.holdsRow);
  EXPECT_FALSE(preloadsColumns(rms, reread, 1));
}

TEST(Tuning, LayerNormForwardsOfABlockAnSMPreloadTheirColumns) {
  DeviceInfo h200;
  KernelShape ln = forwardShape(1000, 2);
  ln.columnInputs = 2;
  // Up to one block an SM (132 rows on an H200) LayerNorm's streamed rows
  // load the weight and bias with the row, at N = 768-4096 alike.
  using Rows = std::pair<int64_t, int64_t>;
  auto preloaded = [&](const KernelShape &shape, const DeviceInfo &device) {
    RowRange rows = choosePreloadedColumnsRows(shape, device);
    return Rows(rows.begin, rows.end);
  };
  for (int64_t n : {1000, 1024, 2048, 4096}) {
    ln.n = n;
    EXPECT_EQ(preloaded(ln, h200), Rows(0, 133)) << n;
  }
  DeviceInfo small;
  small.numSMs = 16;
  EXPECT_EQ(preloaded(ln, small), Rows(0, 17));
  // Rows that do not stream (N = 5120), and RMSNorm's one weight, which a
  // row a block preloads at every M: none.
  ln.n = 5120;
  EXPECT_TRUE(choosePreloadedColumnsRows(ln, h200).empty());
  KernelShape rms = forwardShape(1024, 1);
  rms.columnInputs = 1;
  EXPECT_TRUE(choosePreloadedColumnsRows(rms, h200).empty());
}

TEST(Tuning, HeldRowsOfTwoVectorsKeepTheirThreadsBlocksPerSM) {
  DeviceInfo h200;
  KernelShape rms = forwardShape(8192, 1);
  rms.columnInputs = 1;
  // N = 8192 bf16: 512 threads of two vectors, four blocks an SM.
  RowLayout layout = chooseStreamingLayout(8192, 2, h200);
  ASSERT_EQ(layout.threads, 512);
  ASSERT_EQ(layout.chunksPerThread, 2);
  EXPECT_EQ(chooseStreamingMinBlocksPerSM(rms, layout, h200), 4);
  // What the streaming plan carries where the table sets none.
  KernelPlan plan =
      planKernel(rms, h200, nullptr, PlanRequest().setStreamRows(true));
  EXPECT_EQ(plan.kind, KernelPlan::Kind::Streaming);
  EXPECT_EQ(plan.minBlocksPerSM, 4);
  // Four vectors a thread (N = 16384) would spill at that bound; LayerNorm
  // does not preload its columns; one vector a thread needs no bound.
  KernelShape rms16K = forwardShape(16384, 1);
  rms16K.columnInputs = 1;
  EXPECT_EQ(chooseStreamingMinBlocksPerSM(
                rms16K, chooseStreamingLayout(16384, 2, h200), h200),
            0);
  KernelShape ln = forwardShape(8192, 2);
  ln.columnInputs = 2;
  EXPECT_EQ(chooseStreamingMinBlocksPerSM(ln, layout, h200), 0);
  EXPECT_EQ(chooseStreamingMinBlocksPerSM(
                rms, chooseStreamingLayout(4096, 2, h200), h200),
            0);
}

TEST(Tuning, LayerNormForwardsStreamShortRowsOrFewElements) {
  KernelShape ln = forwardShape(1024, 2);
  EXPECT_TRUE(chooseStreamedRows(ln, DeviceInfo()).coversAll());
  ln.n = 1000;
  EXPECT_TRUE(chooseStreamedRows(ln, DeviceInfo()).coversAll());
  // Longer rows below 5M elements: their second pass over the row loses to
  // the staged kernel at many rows.
  using Rows = std::pair<int64_t, int64_t>;
  ln.n = 2048;
  EXPECT_EQ(streamedRows(ln), Rows(0, 2560));
  ln.n = 4096;
  EXPECT_EQ(streamedRows(ln), Rows(0, 1280));
  ln.n = 999;
  EXPECT_TRUE(chooseStreamedRows(ln, DeviceInfo()).empty());
  ln.n = 5120;
  EXPECT_TRUE(chooseStreamedRows(ln, DeviceInfo()).empty());
}

TEST(Tuning, OneRowSpreadsOverMoreThreads) {
  DeviceInfo h200;
  // N = 1000 bf16: 125 threads of 8 elements for a grid of blocks, 250 of 4
  // (256 threads) for the one block of one row.
  RowLayout rows = chooseStreamingLayout(1000, 2, h200);
  ASSERT_EQ(rows.threads, 128);
  ASSERT_EQ(rows.vectorWidth, 8);
  RowLayout one = chooseOneRowLayout(rows, 1000, h200);
  EXPECT_EQ(one.threads, 256);
  EXPECT_EQ(one.vectorWidth, 4);
  EXPECT_EQ(one.sliceWidth(), 1024);
  EXPECT_TRUE(one.holdsRow);
  // N = 768: 96 threads become 192; rows of 256 threads or more (N = 2048)
  // keep theirs, as do short rows whose narrower vectors would fill the same
  // warp (N = 24) and f32 at N = 1000 (250 threads of 4 already).
  EXPECT_EQ(chooseOneRowLayout(chooseStreamingLayout(768, 2, h200), 768, h200)
                .threads,
            192);
  for (auto [n, bytes] :
       {std::pair<int64_t, int64_t>{2048, 2}, {24, 2}, {1000, 4}, {4096, 2}}) {
    RowLayout layout = chooseRowLayout(n, bytes, 1, h200);
    RowLayout same = chooseOneRowLayout(layout, n, h200);
    EXPECT_EQ(same.threads, layout.threads) << n;
    EXPECT_EQ(same.vectorWidth, layout.vectorWidth) << n;
  }
  // Rows over several chunks or a streamed row re-read from L2 (1024 threads
  // of one vector over N = 65536) are left alone.
  RowLayout streamed = chooseStreamingLayout(65536, 2, h200);
  EXPECT_EQ(chooseOneRowLayout(streamed, 65536, h200).vectorWidth,
            streamed.vectorWidth);
  // What planKernel makes of a static M = 1: the single block of the
  // LayerNorm backward at N = 1000 (3 full operands) widens too...
  KernelShape ln = layerNormBackward(1000);
  KernelPlan many =
      planKernel(ln, h200, nullptr, PlanRequest().setSingleBlock(true));
  KernelPlan single = planKernel(
      ln, h200, nullptr, PlanRequest().setSingleBlock(true).setOneRow(true));
  EXPECT_EQ(many.layout.threads, 128);
  EXPECT_EQ(single.layout.threads, 256);
  EXPECT_EQ(single.layout.vectorWidth, 4);
  // ...and one row never stages (nothing to overlap its copies with).
  KernelShape wide = layerNormBackward(4096);
  EXPECT_EQ(planKernel(wide, h200, nullptr, PlanRequest().setOneRow(true))
                .layout.sharedStages,
            0);
}

TEST(Tuning, OneRowReductionsBuiltForLatency) {
  DeviceInfo h200;
  // The single block of one row reads every warp total in every thread
  // (up to 8 warps a row) and sums each thread's elements as a tree...
  RowLayout streamed = chooseStreamingLayout(1000, 2, h200);
  EXPECT_FALSE(streamed.latencyBoundReductions);
  RowLayout one = chooseOneRowLayout(streamed, 1000, h200);
  EXPECT_EQ(one.threads, 256);
  EXPECT_TRUE(one.latencyBoundReductions);
  // ...also where the layout keeps its threads (N = 2048: 256 already)...
  EXPECT_TRUE(
      chooseOneRowLayout(chooseStreamingLayout(2048, 2, h200), 2048, h200)
          .latencyBoundReductions);
  // ...but not over more than 8 warps, nor for layouts it leaves alone (a
  // row streamed from L2 in several chunks).
  RowLayout wide = chooseStreamingLayout(8192, 2, h200);
  ASSERT_GT(wide.threadsPerRow(), 32 * kMaxWarpTotalsReadByEveryThread);
  EXPECT_FALSE(chooseOneRowLayout(wide, 8192, h200).latencyBoundReductions);
  EXPECT_FALSE(
      chooseOneRowLayout(chooseStreamingLayout(65536, 2, h200), 65536, h200)
          .latencyBoundReductions);
  // planKernel asks for it only where M is statically one row.
  KernelShape ln = layerNormBackward(1000);
  EXPECT_FALSE(planKernel(ln, h200, nullptr, PlanRequest().setSingleBlock(true))
                   .layout.latencyBoundReductions);
  EXPECT_TRUE(planKernel(ln, h200, nullptr,
                         PlanRequest().setSingleBlock(true).setOneRow(true))
                  .layout.latencyBoundReductions);
}

TEST(Tuning, PredicatedRowStoresUpToOneKiBRows) {
  DeviceInfo h200;
  // The measured rows (bf16, N = 256 and 512) and f32 rows as long in bytes
  // store predicated; longer rows keep their branches.
  for (int64_t n : {256, 512})
    EXPECT_TRUE(predicatesRowStores(n, chooseStreamingLayout(n, 2, h200), 2));
  EXPECT_TRUE(predicatesRowStores(256, chooseStreamingLayout(256, 4, h200), 4));
  for (int64_t n : {640, 1024, 1536, 4096})
    EXPECT_FALSE(predicatesRowStores(n, chooseStreamingLayout(n, 2, h200), 2));
  EXPECT_FALSE(
      predicatesRowStores(512, chooseStreamingLayout(512, 4, h200), 4));
  // Only 16-byte vectors: a narrower one (N = 260: 4 bf16) keeps
  // vector.store.
  RowLayout ragged = chooseStreamingLayout(260, 2, h200);
  ASSERT_LT(ragged.vectorWidth * 2, 16);
  EXPECT_FALSE(predicatesRowStores(260, ragged, 2));
}

TEST(Tuning, RowABlockReducesForLatencyWhereItPreloadsColumns) {
  DeviceInfo h200;
  // A row a block of 4 warps that loads its columns with the row (RMSNorm's
  // weight, or a few-rows version asking for it) reads its warp totals...
  RowLayout block = chooseStreamingLayout(1024, 2, h200);
  ASSERT_TRUE(block.holdsRow);
  EXPECT_EQ(block.threadsPerRow(), 128);
  EXPECT_TRUE(rowABlockReducesForLatency(block, 1, /*columnsPreloaded=*/true));
  // ...one that loads them after its reductions keeps the shuffles, as do
  // blocks of several rows, warp rows, and rows over more than 8 warps.
  EXPECT_FALSE(rowABlockReducesForLatency(block, 1, false));
  EXPECT_FALSE(rowABlockReducesForLatency(block, 4, true));
  std::optional<RowLayout> warps = warpRowsLayout(block);
  ASSERT_TRUE(warps.has_value());
  EXPECT_FALSE(rowABlockReducesForLatency(*warps, 1, true));
  RowLayout wide = chooseStreamingLayout(8192, 2, h200);
  EXPECT_FALSE(rowABlockReducesForLatency(wide, 1, true));
  // Whether the columns are preloaded is preloadsColumns' call: RMSNorm's
  // one weight yes, LayerNorm's weight and bias at a row a block no.
  KernelShape rms = forwardShape(1024, 1);
  rms.columnInputs = 1;
  KernelShape ln = forwardShape(1024, 2);
  ln.columnInputs = 2;
  EXPECT_TRUE(preloadsColumns(rms, block, 1));
  EXPECT_FALSE(preloadsColumns(ln, block, 1));
}

TEST(Tuning, OneRowPrefetchesTwoColumnsToL1) {
  // LayerNorm's one row (weight and bias) prefetches them; RMSNorm's one
  // weight, and any kernel of more rows, does not.
  KernelShape ln = forwardShape(1000, 2);
  ln.columnInputs = 2;
  KernelShape rms = forwardShape(1000, 1);
  rms.columnInputs = 1;
  EXPECT_TRUE(prefetchesColumnsToL1(ln, /*oneRow=*/true));
  EXPECT_FALSE(prefetchesColumnsToL1(ln, /*oneRow=*/false));
  EXPECT_FALSE(prefetchesColumnsToL1(rms, /*oneRow=*/true));
}

TEST(Tuning, StreamedForwardsVersionTheirOneRow) {
  DeviceInfo h200;
  using Rows = std::pair<int64_t, int64_t>;
  auto oneRow = [&](const KernelShape &shape) {
    RowRange rows = chooseOneRowForwardRows(shape, h200);
    return rows.empty() ? Rows(0, 0) : Rows(rows.begin, rows.end);
  };
  for (int64_t reductions : {1, 2}) {
    KernelShape forward = forwardShape(1000, reductions);
    forward.columnInputs = reductions;
    EXPECT_EQ(oneRow(forward), Rows(1, 2)) << reductions;
    forward.n = 1024;
    EXPECT_EQ(oneRow(forward), Rows(1, 2)) << reductions;
    // 256 threads and more already (N = 2048-4096): no version.
    forward.n = 2048;
    EXPECT_EQ(oneRow(forward), Rows(0, 0)) << reductions;
    forward.n = 4096;
    EXPECT_EQ(oneRow(forward), Rows(0, 0)) << reductions;
    // Rows that do not stream (N = 8192 LayerNorm; N = 128 below the
    // streamed forwards' shortest) have none either.
    forward.n = 128;
    EXPECT_EQ(oneRow(forward), Rows(0, 0)) << reductions;
  }
  // f32 at N = 1000: 250 threads of 4 already.
  KernelShape f32 = forwardShape(1000, 2);
  f32.elementBytes = 4;
  EXPECT_EQ(oneRow(f32), Rows(0, 0));
}

/// Every plan planKernel makes is one the kernel generators lower
/// (validatePlan) and whose block fits an SM, and a split kernel's partial
/// rows fill at most one wave of the blocks the GPU holds, below its
/// max_partials: over rows of 32 to 262144 elements, bf16 and f32, the
/// kernel forms the decomposition produces, the requests the passes make,
/// three devices and the measured table. These are the invariants the
/// lowering and the split rely on, stated over the whole space rather than
/// at sampled shapes.
TEST(Tuning, EveryPlanLowers) {
  TuningTable table;
  std::string error;
  table.load(NORM_SOURCE_DIR "/tuning/h200.json", error);
  ASSERT_EQ(error, "");
  DeviceInfo h200, pcie, noClusters;
  pcie.numSMs = 114;
  noClusters.maxClusterSize = 1;
  // Forwards (RMS, Layer, statistics only), backwards (RMS, Layer, no
  // weight), a kernel without row reductions.
  std::vector<KernelShape> forms = {
      {0, 2, 1, 0, 1, false}, {0, 2, 1, 0, 2, false}, {0, 2, 1, 0, 2, true},
      {0, 2, 2, 1, 1, false}, {0, 2, 2, 2, 2, false}, {0, 2, 2, 0, 1, false},
      {0, 2, 2, 1, 0, false}};
  // The residual add's forwards (x and the residual in, y and h out) and
  // backwards (dy, dh and h in).
  for (int64_t reductions : {1, 2}) {
    KernelShape forward{0, 2, 2, 0, reductions, false};
    forward.fullOutputs = 2;
    forward.earlyOutputs = 1;
    forms.push_back(forward);
    forms.push_back({0, 2, 3, reductions, reductions, false});
  }
  std::vector<PlanRequest> requests = {PlanRequest(),
                                       PlanRequest().setStreamRows(true),
                                       PlanRequest().setOneRow(true),
                                       PlanRequest().setSingleBlock(true),
                                       PlanRequest().setSharedStages(0),
                                       PlanRequest().setBulkStores(1)};
  int64_t planned = 0;
  for (int64_t n = 32; n <= 262144; n += n < 4096 ? 32 : n / 8)
    for (int64_t bytes : {2, 4})
      for (KernelShape shape : forms)
        for (const DeviceInfo *device : {&h200, &pcie, &noClusters})
          for (const TuningTable *measured : {&table, (TuningTable *)nullptr})
            for (const PlanRequest &request : requests) {
              shape.n = n;
              shape.elementBytes = bytes;
              KernelPlan plan = planKernel(shape, *device, measured, request);
              if (plan.kind == KernelPlan::Kind::OffChip)
                continue;
              ++planned;
              std::string where =
                  "N = " + std::to_string(n) + ", " + std::to_string(bytes) +
                  " bytes, " + std::to_string(shape.fullOperands) +
                  " full operands, " + std::to_string(shape.columnOutputs) +
                  " column outputs, " + std::to_string(shape.rowReductions) +
                  " row reductions, " + std::to_string(device->numSMs) +
                  " SMs, cluster " + std::to_string(device->maxClusterSize);
              EXPECT_EQ(validatePlan(shape, plan, *device), "") << where;
              // A block fits an SM.
              int64_t blocks = estimateBlocksPerSM(shape, plan.layout, *device);
              EXPECT_GE(blocks, 1) << where;
              if (shape.columnOutputs == 0 || request.oneRow ||
                  request.singleBlock)
                continue;
              // A split kernel's fewest partial rows are one wave of the
              // blocks (clusters) the GPU holds at once, and its most
              // partial rows bound them from above.
              int64_t fill = chooseMinPartials(shape, plan, *device);
              int64_t perSM =
                  std::max<int64_t>({blocks, plan.minBlocksPerSM, 3});
              EXPECT_LE(fill * plan.layout.clusterSize, device->numSMs * perSM)
                  << where;
              int64_t cap = chooseMaxPartials(shape, plan, *device);
              if (cap > 0 && fill > 0) {
                EXPECT_GE(cap, fill) << where;
              }
            }
  EXPECT_GT(planned, 10000);
}

/// validatePlan refuses plans the generators cannot lower.
TEST(Tuning, ValidatePlanRefusesWhatCannotLower) {
  DeviceInfo h200;
  KernelShape rmsFwd{2048, 2, 1, 0, 1, false};
  KernelPlan plan = planKernel(rmsFwd, h200, nullptr);
  ASSERT_EQ(validatePlan(rmsFwd, plan, h200), "");
  KernelPlan narrow = plan;
  narrow.layout.threads = 64;
  narrow.layout.chunksPerThread = 1;
  EXPECT_NE(validatePlan(rmsFwd, narrow, h200).find("cover"),
            std::string::npos);
  KernelPlan wide = plan;
  wide.layout.vectorWidth = 16;
  EXPECT_NE(validatePlan(rmsFwd, wide, h200).find("16 bytes"),
            std::string::npos);
  KernelPlan odd = plan;
  odd.layout.threads = 100;
  EXPECT_NE(validatePlan(rmsFwd, odd, h200), "");
  KernelPlan cluster = plan;
  cluster.layout.clusterSize = 4;
  EXPECT_NE(validatePlan(rmsFwd, cluster, h200).find("cluster"),
            std::string::npos);
  KernelPlan offChip;
  offChip.kind = KernelPlan::Kind::OffChip;
  EXPECT_NE(validatePlan(rmsFwd, offChip, h200), "");
}
