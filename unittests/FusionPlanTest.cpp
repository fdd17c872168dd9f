//===- FusionPlanTest.cpp - the mixed-order fusion decision ---------------===//

#include "NormDialect/Tuning/FusionPlan.h"

#include "gtest/gtest.h"

using namespace mlir::norm;

namespace {
constexpr int64_t kDy = 0, kX = 1, kOther = 2;

TEST(FusionPlan, RMSNormBackwardIsOneKernel) {
  // sum(g * xhat) per row; dx reads it; dw is a column reduction.
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kDy, kX}, {}},
      {NodeKind::FullMap, {kDy, kX}, {0}},
      {NodeKind::ColReduce, {kDy, kX}, {}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 1u);
  EXPECT_EQ(plan.kernelOf, (llvm::SmallVector<unsigned>{0, 0, 0}));
}

TEST(FusionPlan, FusionCanBeTurnedOff) {
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kDy, kX}, {}},
      {NodeKind::FullMap, {kDy, kX}, {0}},
      {NodeKind::ColReduce, {kDy, kX}, {}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes, /*allowFusion=*/false);
  EXPECT_EQ(plan.numKernels, 3u);
  // A row map still follows its producer.
  std::vector<FusionNode> forward = {
      {NodeKind::RowReduce, {kX}, {}},
      {NodeKind::RowMap, {}, {0}},
      {NodeKind::FullMap, {kX}, {1}},
  };
  FusionPlan unfused = planMixedOrderFusion(forward, /*allowFusion=*/false);
  EXPECT_EQ(unfused.numKernels, 2u);
  EXPECT_EQ(unfused.kernelOf[1], unfused.kernelOf[0]);
}

TEST(FusionPlan, LayerNormBackwardIsOneKernel) {
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kDy}, {}},
      {NodeKind::RowReduce, {kDy, kX}, {}},
      {NodeKind::FullMap, {kDy, kX}, {0, 1}},
      {NodeKind::ColReduce, {kDy, kX}, {}},
      {NodeKind::ColReduce, {kDy}, {}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 1u);
}

TEST(FusionPlan, ForwardStatisticsJoinThroughRowValues) {
  // sum(x^2) -> rstd (row map, no full input) -> y.
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kX}, {}},
      {NodeKind::RowMap, {}, {0}},
      {NodeKind::FullMap, {kX}, {1}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 1u);
}

TEST(FusionPlan, ReadingAColumnReductionSplitsTheKernel) {
  std::vector<FusionNode> nodes = {
      {NodeKind::ColReduce, {kX}, {}},
      {NodeKind::FullMap, {kX}, {0}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 2u);
  EXPECT_NE(plan.kernelOf[0], plan.kernelOf[1]);
  EXPECT_NE(plan.notFusedBecause[1].find("column reduction"),
            std::string::npos)
      << plan.notFusedBecause[1];
}

TEST(FusionPlan, UnrelatedOpsStayApart) {
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kX}, {}},
      {NodeKind::RowReduce, {kOther}, {}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 2u);
  // Nothing connected them, so there is nothing to report.
  EXPECT_TRUE(plan.notFusedBecause[1].empty());
}

TEST(FusionPlan, NoCycleBetweenKernels) {
  // Kernel A = {0: col reduce over x}. Node 1 reads node 0 (so it cannot join
  // A) and starts kernel B. Node 2 shares x with A but reads node 1 of B:
  // joining A would make A depend on B, which depends on A.
  std::vector<FusionNode> nodes = {
      {NodeKind::ColReduce, {kX}, {}},
      {NodeKind::FullMap, {kOther}, {0}},
      {NodeKind::FullMap, {kX}, {1}},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_NE(plan.kernelOf[2], plan.kernelOf[0]);
  EXPECT_EQ(plan.kernelOf[2], plan.kernelOf[1]);
}
TEST(FusionPlan, GroupOpsJoinKernelsOfTheirGroupSize) {
  // FP8 group scales after a norm: row reduction, rstd, y, group amax,
  // group scale, q: one kernel.
  std::vector<FusionNode> nodes = {
      {NodeKind::RowReduce, {kX}, {}},    {NodeKind::RowMap, {}, {0}},
      {NodeKind::FullMap, {kX}, {1}},     {NodeKind::GroupReduce, {}, {2}, 128},
      {NodeKind::GroupMap, {}, {3}, 128}, {NodeKind::FullMap, {}, {2, 4}, 128},
  };
  FusionPlan plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 1u);
  // A group reduction of another size starts its own kernel, and says why.
  nodes.push_back({NodeKind::GroupReduce, {}, {2}, 64});
  plan = planMixedOrderFusion(nodes);
  EXPECT_EQ(plan.numKernels, 2u);
  EXPECT_EQ(plan.kernelOf.back(), 1u);
  EXPECT_NE(plan.notFusedBecause.back().find("groups of 64 columns are not "
                                             "the kernel's groups of 128"),
            std::string::npos);
  // Without fusion a group map still follows its producer.
  FusionPlan unfused = planMixedOrderFusion(nodes, /*allowFusion=*/false);
  EXPECT_EQ(unfused.kernelOf[4], unfused.kernelOf[3]);
}

} // namespace
