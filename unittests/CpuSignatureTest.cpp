//===- CpuSignatureTest.cpp - what a CPU program's caller must pass -------===//
//
// The size classes cpuSignatures derives from a program's ops, and the
// messages checkDescriptors gives for descriptors that do not fit them; then
// CpuJit refusing such descriptors instead of calling compiled code.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Target/CpuSignature.h"
#include "NormDialect/Target/CpuJit.h"

#include "NormDialect/InitAllNorm.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

#include <cstdint>
#include <vector>

using namespace mlir;
using namespace mlir::norm;

namespace {

/// A memref descriptor of rank R, laid out as MLIR's C interface takes it.
template <int R> struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizes[R];
  int64_t strides[R];
};

/// A contiguous row-major descriptor over `data`.
template <int R>
Descriptor<R> contiguous(float *data, std::vector<int64_t> sizes) {
  Descriptor<R> d{data, data, 0, {}, {}};
  int64_t stride = 1;
  for (int i = R - 1; i >= 0; --i) {
    d.sizes[i] = sizes[i];
    d.strides[i] = stride;
    stride *= sizes[i];
  }
  return d;
}

// The forward with a dynamic N: the weight shares x's last dimension, the
// statistic its first, y and the output buffer all of x's.
constexpr const char *kForward = R"mlir(
func.func @rms(%x_m: memref<?x?xf32>, %w_m: memref<?xf32>,
               %y_m: memref<?x?xf32>, %r_m: memref<?xf32>) {
  %x = bufferization.to_tensor %x_m restrict : memref<?x?xf32> to tensor<?x?xf32>
  %w = bufferization.to_tensor %w_m restrict : memref<?xf32> to tensor<?xf32>
  %y, %r = norm.rms_norm %x weight(%w : tensor<?xf32>) {epsilon = 1.0e-6 : f64}
      : tensor<?x?xf32> -> tensor<?x?xf32>, tensor<?xf32>
  bufferization.materialize_in_destination %y in restrict writable %y_m
      : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  bufferization.materialize_in_destination %r in restrict writable %r_m
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
func.func @returns(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  return %x : tensor<?x8xf32>
}
func.func @scalar(%e: f32) {
  return
}
func.func private @hidden(%x: memref<?x8xf32>) {
  return
}
)mlir";

class CpuSignatureTest : public ::testing::Test {
protected:
  CpuSignatureTest() {
    DialectRegistry registry;
    registry.insert<bufferization::BufferizationDialect, func::FuncDialect,
                    memref::MemRefDialect, tensor::TensorDialect>();
    registerAllNorm(registry);
    context.appendDialectRegistry(registry);
  }

  std::map<std::string, CpuSignature> parse(const char *text) {
    module = parseSourceString<ModuleOp>(text, &context);
    EXPECT_TRUE(module);
    return module ? cpuSignatures(*module)
                  : std::map<std::string, CpuSignature>();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(CpuSignatureTest, SizeClassesFollowTheNormOp) {
  auto signatures = parse(kForward);
  ASSERT_EQ(signatures.count("rms"), 1u);
  const CpuSignature &rms = signatures["rms"];
  ASSERT_TRUE(rms.notCallable.empty()) << rms.notCallable;
  ASSERT_EQ(rms.arguments.size(), 4u);
  const auto &x = rms.arguments[0], &w = rms.arguments[1],
             &y = rms.arguments[2], &r = rms.arguments[3];
  EXPECT_EQ(x.type, "memref<?x?xf32>");
  // Rows: x, y, rstd. Columns: x, y, weight. The two are different classes.
  EXPECT_EQ(x.sizeClass[0], y.sizeClass[0]);
  EXPECT_EQ(x.sizeClass[0], r.sizeClass[0]);
  EXPECT_EQ(x.sizeClass[1], y.sizeClass[1]);
  EXPECT_EQ(x.sizeClass[1], w.sizeClass[0]);
  EXPECT_NE(x.sizeClass[0], x.sizeClass[1]);
}

// A group reduction (scales per group of 4 columns): its result has x's
// rows and its own count of groups, not x's columns.
constexpr const char *kGroups = R"mlir(
func.func @scales(%y_m: memref<?x?xf32>, %s_m: memref<?x?xf32>) {
  %y = bufferization.to_tensor %y_m restrict : memref<?x?xf32> to tensor<?x?xf32>
  %s = norm.reduce <group> <max> ins(%y : full tensor<?x?xf32>) {group_size = 4 : i64} -> tensor<?x?xf32> {
  ^bb0(%v: f32):
    norm.yield %v : f32
  }
  bufferization.materialize_in_destination %s in restrict writable %s_m
      : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
)mlir";

TEST_F(CpuSignatureTest, GroupValuesShareTheRowsOnly) {
  auto signatures = parse(kGroups);
  const CpuSignature &scales = signatures["scales"];
  ASSERT_TRUE(scales.notCallable.empty()) << scales.notCallable;
  const auto &y = scales.arguments[0], &s = scales.arguments[1];
  EXPECT_EQ(y.sizeClass[0], s.sizeClass[0]);
  EXPECT_NE(y.sizeClass[1], s.sizeClass[1]);
}

TEST_F(CpuSignatureTest, OnlyMemrefFunctionsWithoutResultsAreCallable) {
  auto signatures = parse(kForward);
  EXPECT_EQ(signatures.count("hidden"), 0u);
  EXPECT_NE(signatures["returns"].notCallable.find("returns values"),
            std::string::npos);
  EXPECT_NE(signatures["scalar"].notCallable.find(
                "argument #0 is f32; CPU programs take ranked memref"),
            std::string::npos);
  EXPECT_NE(checkDescriptors("scalar", signatures["scalar"], {})
                .find("@scalar cannot be called"),
            std::string::npos);
}

/// Buffers of kForward's @rms at 3 rows of 4, and descriptors that fit them.
struct ForwardBuffers {
  std::vector<float> x = std::vector<float>(12), w = std::vector<float>(4),
                     y = std::vector<float>(12), r = std::vector<float>(3);
  Descriptor<2> dx = contiguous<2>(x.data(), {3, 4});
  Descriptor<1> dw = contiguous<1>(w.data(), {4});
  Descriptor<2> dy = contiguous<2>(y.data(), {3, 4});
  Descriptor<1> dr = contiguous<1>(r.data(), {3});
};

TEST_F(CpuSignatureTest, DescriptorsThatFitPass) {
  const CpuSignature rms = parse(kForward)["rms"];
  ForwardBuffers b;
  auto &[x, w, y, r, dx, dw, dy, dr] = b;
  EXPECT_EQ(checkDescriptors("rms", rms, {&dx, &dw, &dy, &dr}), "");
  // No rows: no data is needed, and strides of empty dimensions are free.
  auto ex = contiguous<2>(nullptr, {0, 4});
  auto ey = contiguous<2>(nullptr, {0, 4});
  auto er = contiguous<1>(nullptr, {0});
  ex.strides[0] = 77;
  ex.strides[1] = 0;
  EXPECT_EQ(checkDescriptors("rms", rms, {&ex, &dw, &ey, &er}), "");
}

TEST_F(CpuSignatureTest, DescriptorsThatDoNotFitAreNamed) {
  const CpuSignature rms = parse(kForward)["rms"];
  ForwardBuffers b;
  auto &[x, w, y, r, dx, dw, dy, dr] = b;
  auto check = [&](std::vector<void *> descriptors) {
    return checkDescriptors("rms", rms, descriptors);
  };

  EXPECT_EQ(check({&dx, &dw, &dy}), "@rms takes 4 memref arguments, got 3");
  EXPECT_EQ(check({&dx, &dw, nullptr, &dr}),
            "@rms: argument #2 (memref<?x?xf32>) is a null descriptor pointer");

  auto shortStats = contiguous<1>(r.data(), {2});
  EXPECT_EQ(check({&dx, &dw, &dy, &shortStats}),
            "@rms: argument #3 (memref<?xf32>): dimension 0 is 2 but must "
            "equal dimension 0 of argument #0 (memref<?x?xf32>), which is 3");
  auto longWeight = contiguous<1>(w.data(), {5});
  EXPECT_EQ(check({&dx, &longWeight, &dy, &dr}),
            "@rms: argument #1 (memref<?xf32>): dimension 0 is 5 but must "
            "equal dimension 1 of argument #0 (memref<?x?xf32>), which is 4");

  auto negative = contiguous<2>(x.data(), {-3, 4});
  EXPECT_NE(check({&negative, &dw, &dy, &dr}).find("negative size -3"),
            std::string::npos);
  auto null = contiguous<2>(nullptr, {3, 4});
  EXPECT_NE(check({&null, &dw, &dy, &dr}).find("null data pointer"),
            std::string::npos);
  auto strided = contiguous<2>(x.data(), {3, 4});
  strided.strides[0] = 8;
  EXPECT_NE(check({&strided, &dw, &dy, &dr})
                .find("dimension 0 has stride 8 (elements); the program "
                      "takes contiguous row-major buffers, whose stride "
                      "there is 4"),
            std::string::npos);
  auto offset = contiguous<2>(x.data(), {3, 4});
  offset.offset = 1;
  EXPECT_NE(check({&offset, &dw, &dy, &dr}).find("has offset 1"),
            std::string::npos);
  auto huge = contiguous<2>(x.data(), {INT64_MAX / 2, 4});
  EXPECT_NE(check({&huge, &dw, &dy, &dr}).find("more elements than"),
            std::string::npos);
}

TEST_F(CpuSignatureTest, StaticSizesAreChecked) {
  const CpuSignature f = parse(R"mlir(
func.func @f(%x_m: memref<?x8xf32>, %r_m: memref<?xf32>) {
  %x = bufferization.to_tensor %x_m restrict : memref<?x8xf32> to tensor<?x8xf32>
  %y, %r = norm.rms_norm %x {epsilon = 1.0e-6 : f64}
      : tensor<?x8xf32> -> tensor<?x8xf32>, tensor<?xf32>
  bufferization.materialize_in_destination %r in restrict writable %r_m
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
)mlir")["f"];
  std::vector<float> x(16), r(2);
  auto dx = contiguous<2>(x.data(), {2, 7});
  auto dr = contiguous<1>(r.data(), {2});
  EXPECT_EQ(checkDescriptors("f", f, {&dx, &dr}),
            "@f: argument #0 (memref<?x8xf32>): dimension 1 is 7 but its "
            "type says 8");
}

TEST_F(CpuSignatureTest, StridedLayoutsAreCheckedWhereStatic) {
  const CpuSignature f = parse(R"mlir(
func.func @f(%a: memref<2x8xf32, strided<[16, 1], offset: ?>>) {
  return
}
)mlir")["f"];
  ASSERT_TRUE(f.notCallable.empty()) << f.notCallable;
  std::vector<float> a(32);
  auto da = contiguous<2>(a.data(), {2, 8});
  EXPECT_EQ(checkDescriptors("f", f, {&da}),
            "@f: argument #0 (memref<2x8xf32, strided<[16, 1], offset: ?>>): "
            "dimension 0 has stride 8 but its layout says 16");
  da.strides[0] = 16;
  da.offset = 3; // dynamic in the layout: the descriptor's is used
  EXPECT_EQ(checkDescriptors("f", f, {&da}), "");
}

TEST_F(CpuSignatureTest, UnusedArgumentsHaveTheirOwnClasses) {
  const CpuSignature f = parse(R"mlir(
func.func @f(%a: memref<?x8xf32>, %unused: memref<?x?xf32>) {
  return
}
)mlir")["f"];
  ASSERT_TRUE(f.notCallable.empty());
  ASSERT_EQ(f.arguments.size(), 2u);
  EXPECT_NE(f.arguments[0].sizeClass[0], f.arguments[1].sizeClass[0]);
  EXPECT_NE(f.arguments[1].sizeClass[0], f.arguments[1].sizeClass[1]);
  std::vector<float> a(16), b(6);
  auto da = contiguous<2>(a.data(), {2, 8});
  auto db = contiguous<2>(b.data(), {3, 2});
  EXPECT_EQ(checkDescriptors("f", f, {&da, &db}), "");
}

TEST_F(CpuSignatureTest, RoledOpsShareTheirSpace) {
  // A level-2 row reduction: its full input and row result share M.
  const CpuSignature f = parse(R"mlir(
func.func @f(%x_m: memref<?x8xf32>, %s_m: memref<?xf32>) {
  %x = bufferization.to_tensor %x_m restrict : memref<?x8xf32> to tensor<?x8xf32>
  %s = norm.reduce <row> <add> ins(%x : full tensor<?x8xf32>) -> tensor<?xf32> {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  bufferization.materialize_in_destination %s in restrict writable %s_m
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
)mlir")["f"];
  ASSERT_EQ(f.arguments.size(), 2u);
  EXPECT_EQ(f.arguments[0].sizeClass[0], f.arguments[1].sizeClass[0]);
}

TEST(CpuJitTest, InvokeRefusesDescriptorsThatDoNotFit) {
  std::string diagnostics;
  std::unique_ptr<CpuJit> jit =
      CpuJit::create(kForward, "forward.mlir", diagnostics);
  ASSERT_TRUE(jit) << diagnostics;
  std::vector<float> x(8, 2.0f), w(4, 1.0f), y(8), r(2);
  auto dx = contiguous<2>(x.data(), {2, 4});
  auto dw = contiguous<1>(w.data(), {4});
  auto dy = contiguous<2>(y.data(), {2, 4});
  auto dr = contiguous<1>(r.data(), {2});
  std::string error;
  EXPECT_FALSE(jit->invoke("rms", {&dx, &dw}, error));
  EXPECT_EQ(error, "@rms takes 4 memref arguments, got 2");
  EXPECT_FALSE(jit->invoke("nope", {}, error));
  EXPECT_EQ(error, "no public function @nope in the program");
  EXPECT_FALSE(jit->invoke("returns", {&dx}, error));
  EXPECT_NE(error.find("returns values"), std::string::npos);
  // What fits runs: rms of a row of 2s is 2.
  ASSERT_TRUE(jit->invoke("rms", {&dx, &dw, &dy, &dr}, error)) << error;
  EXPECT_FLOAT_EQ(y[5], 1.0f);
  EXPECT_NEAR(r[1], 0.5f, 1e-6);
}

} // namespace
