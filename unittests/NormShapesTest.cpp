//===- NormShapesTest.cpp - shape and type rules --------------------------===//

#include "NormDialect/IR/NormShapes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace mlir::norm;

namespace {
constexpr int64_t kDyn = ShapedType::kDynamic;

TEST(NormShapes, RoleShapes) {
  EXPECT_EQ(shapeForRole(Role::full, 4, 8), (SmallVector<int64_t>{4, 8}));
  EXPECT_EQ(shapeForRole(Role::row, 4, 8), (SmallVector<int64_t>{4}));
  EXPECT_EQ(shapeForRole(Role::col, 4, 8), (SmallVector<int64_t>{8}));
  // A group value: one per row and group of 4 columns.
  EXPECT_EQ(shapeForRole(Role::group, 4, 8, 4), (SmallVector<int64_t>{4, 2}));
  EXPECT_EQ(shapeForRole(Role::group, 4, ShapedType::kDynamic, 4),
            (SmallVector<int64_t>{4, ShapedType::kDynamic}));
  EXPECT_TRUE(
      checkRoleShape(Role::group, {ShapedType::kDynamic, 2}, 4, 8, 4).empty());
  EXPECT_NE(checkRoleShape(Role::group, {4, 4}, 4, 8, 4), "");
}

TEST(NormShapes, CheckRoleShapeAcceptsDynamic) {
  EXPECT_TRUE(checkRoleShape(Role::full, {kDyn, 8}, 4, 8).empty());
  EXPECT_TRUE(checkRoleShape(Role::row, {4}, kDyn, 8).empty());
  EXPECT_TRUE(checkRoleShape(Role::col, {kDyn}, 4, 8).empty());
}

TEST(NormShapes, CheckRoleShapeRejectsMismatch) {
  // M == N: the role, not the size, decides which dimension is compared.
  EXPECT_TRUE(checkRoleShape(Role::row, {8}, 8, 8).empty());
  EXPECT_NE(checkRoleShape(Role::col, {4}, 4, 8), "");
  EXPECT_NE(checkRoleShape(Role::row, {8}, 4, 8), "");
  std::string rank = checkRoleShape(Role::full, {4}, 4, 8);
  EXPECT_NE(rank.find("rank 2"), std::string::npos) << rank;
}

TEST(NormShapes, RowsAndStats) {
  EXPECT_EQ(flattenedRows({2, 3, 8}), 6);
  EXPECT_EQ(flattenedRows({kDyn, 3, 8}), kDyn);
  EXPECT_EQ(statsShape({2, 3, 8}), (SmallVector<int64_t>{2, 3}));
}

TEST(NormShapes, ElementTypes) {
  MLIRContext ctx;
  Builder b(&ctx);
  EXPECT_TRUE(isSupportedFloatType(b.getBF16Type()));
  EXPECT_TRUE(isSupportedFloatType(b.getF16Type()));
  EXPECT_TRUE(isSupportedFloatType(b.getF32Type()));
  EXPECT_FALSE(isSupportedFloatType(b.getF64Type()));
  EXPECT_FALSE(isSupportedFloatType(b.getI32Type()));
}

TEST(NormShapes, ActivationParamAndStats) {
  MLIRContext ctx;
  Builder b(&ctx);
  auto x = RankedTensorType::get({kDyn, 16}, b.getBF16Type());
  EXPECT_TRUE(checkActivationType(x).empty());
  EXPECT_NE(checkActivationType(RankedTensorType::get({16}, b.getBF16Type())),
            "");
  EXPECT_NE(checkActivationType(RankedTensorType::get({4, 16}, b.getI8Type())),
            "");
  // 2^62 rows of 4 bf16 are 2^65 bytes: an error, not wrapped offsets; the
  // same rows with M dynamic are left to the tensors that arrive.
  std::string huge = checkActivationType(
      RankedTensorType::get({int64_t{1} << 62, 4}, b.getBF16Type()));
  EXPECT_NE(huge.find("past 2^63 bytes"), std::string::npos) << huge;
  EXPECT_TRUE(
      checkActivationType(
          RankedTensorType::get({kDyn, int64_t{1} << 39}, b.getBF16Type()))
          .empty());
  // Rows past kMaxRowBytes (2^40 bytes), and rows of no elements, are
  // refused before any tuning rule multiplies their bytes.
  std::string longRows = checkActivationType(
      RankedTensorType::get({kDyn, int64_t{1} << 40}, b.getBF16Type()));
  EXPECT_NE(longRows.find("longer than 2^40 bytes"), std::string::npos)
      << longRows;
  std::string noColumns =
      checkActivationType(RankedTensorType::get({kDyn, 0}, b.getBF16Type()));
  EXPECT_NE(noColumns.find("must be positive"), std::string::npos) << noColumns;
  EXPECT_TRUE(checkRowWidth(ShapedType::kDynamic, 2).empty());
  EXPECT_TRUE(checkRowWidth(int64_t{1} << 38, 4).empty());
  EXPECT_NE(checkRowWidth((int64_t{1} << 38) + 1, 4), "");
  EXPECT_NE(checkRowWidth(-3, 2), "");
  EXPECT_TRUE(
      checkParamType(RankedTensorType::get({16}, b.getF32Type()), x.getShape())
          .empty());
  std::string wrongLength =
      checkParamType(RankedTensorType::get({15}, b.getF32Type()), x.getShape());
  EXPECT_NE(wrongLength.find("15"), std::string::npos) << wrongLength;
  EXPECT_TRUE(
      checkStatsType(RankedTensorType::get({7}, b.getF32Type()), x.getShape())
          .empty());
  EXPECT_NE(
      checkStatsType(RankedTensorType::get({7}, b.getBF16Type()), x.getShape()),
      "");
  EXPECT_NE(checkStatsType(RankedTensorType::get({7, 1}, b.getF32Type()),
                           x.getShape()),
            "");
}
} // namespace
