//===- CpuNumericsTest.cpp - norm kernels on the CPU vs float64 -----------===//
//
// Compiles user-level norm programs through decompose -> (fuse) -> (split)
// -> one-shot bufferize -> convert-norm-to-loops -> LLVM, runs them with the
// ExecutionEngine on fresh random inputs and compares every output with the
// formulas of docs/math.md evaluated in double on the same (rounded) inputs.
// A wrong decomposition, fusion or split makes these tests fail.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/InitAllNorm.h"
#include "NormDialect/Pipelines/Pipelines.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/TargetSelect.h"
#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>

using namespace mlir;

namespace {

enum class Kind { RmsFwd, LnFwd, RmsBwd, LnBwd };
enum class DType { BF16, F16, F32 };
/// ShortRows: norm-short-rows with `split` as its row limit, then the split
/// of the long version (4 rows a partial): M < split runs the row and
/// whole-column kernels, else the split kernel and its combine.
enum class Mode { Unfused, Fused, FusedSplit, RowSplit, ShortRows };

struct Case {
  Kind kind;
  DType dtype;
  int64_t m, n;
  Mode mode;
  int64_t split = 0;
  bool weight = true;
  bool bias = true;
  double offset = 0.0;
  /// norm-split-reduction's min-partials (0: off, the split alone).
  int64_t minPartials = 0;
  /// norm-split-reduction's min-rows-per-partial (0: off).
  int64_t minRowsPerPartial = 0;
};

std::string typeName(DType t) {
  return t == DType::BF16 ? "bf16" : t == DType::F16 ? "f16" : "f32";
}

std::string caseName(const Case &c) {
  static const char *kinds[] = {"rms_fwd", "ln_fwd", "rms_bwd", "ln_bwd"};
  static const char *modes[] = {"unfused", "fused", "split", "rowsplit",
                                "shortrows"};
  std::string s = std::string(kinds[int(c.kind)]) + "_" +
                  typeName(c.dtype) + "_" +
                  std::to_string(c.m) + "x" + std::to_string(c.n) + "_" +
                  modes[int(c.mode)];
  if (c.mode == Mode::FusedSplit || c.mode == Mode::RowSplit ||
      c.mode == Mode::ShortRows)
    s += std::to_string(c.split);
  if (!c.weight)
    s += "_noweight";
  else if (!c.bias && (c.kind == Kind::LnFwd || c.kind == Kind::LnBwd))
    s += "_nobias";
  if (c.offset != 0.0)
    s += "_offset";
  if (c.minPartials > 0)
    s += "_fill" + std::to_string(c.minPartials);
  if (c.minRowsPerPartial > 0)
    s += "_floor" + std::to_string(c.minRowsPerPartial);
  return s;
}

/// Round-to-nearest-even float -> bf16 bits.
uint16_t toBF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}
float fromBF16(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// Round-to-nearest-even float -> IEEE binary16 bits (subnormals, infinities
/// and NaN included).
uint16_t toF16(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000);
  uint32_t magnitude = bits & 0x7FFFFFFF;
  if (magnitude > 0x7F800000) // NaN
    return sign | 0x7E00;
  if (magnitude >= 0x477FF000) // rounds to infinity
    return sign | 0x7C00;
  if (magnitude < 0x38800000) { // subnormal or zero in binary16
    // Value in units of 2^-24, rounded to nearest even.
    float scaled = std::fabs(f) * 16777216.0f;
    return sign | static_cast<uint16_t>(std::nearbyint(scaled));
  }
  // Normal: rebias the exponent (127 -> 15), round 13 mantissa bits away.
  uint32_t rounded = magnitude + 0xFFF + ((magnitude >> 13) & 1);
  return sign | static_cast<uint16_t>((rounded - 0x38000000) >> 13);
}
float fromF16(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1F, mantissa = h & 0x3FF;
  float magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else if (exponent == 31)
    magnitude = mantissa ? std::nanf("") : INFINITY;
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400),
                           static_cast<int>(exponent) - 25);
  uint32_t bits;
  std::memcpy(&bits, &magnitude, 4);
  bits |= sign;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// A host buffer of `count` elements in the case's storage type, seen as
/// doubles by the reference.
struct Buffer {
  DType dtype;
  std::vector<uint16_t> half;
  std::vector<float> single;
  std::vector<int64_t> shape;
  /// Per-row statistics: their length M is dynamic in the IR, like x's rows.
  bool perRow;

  Buffer(DType dtype, std::vector<int64_t> shape, bool perRow = false)
      : dtype(dtype), shape(shape), perRow(perRow) {
    int64_t count = 1;
    for (int64_t d : shape)
      count *= d;
    // NaN poison: unwritten outputs fail.
    if (dtype == DType::BF16)
      half.assign(count, 0x7FC0);
    else if (dtype == DType::F16)
      half.assign(count, 0x7E00);
    else
      single.assign(count, std::nanf(""));
  }
  bool isHalf() const { return dtype != DType::F32; }
  size_t size() const { return isHalf() ? half.size() : single.size(); }
  double get(size_t i) const {
    if (dtype == DType::BF16)
      return fromBF16(half[i]);
    if (dtype == DType::F16)
      return fromF16(half[i]);
    return single[i];
  }
  void set(size_t i, float v) {
    if (dtype == DType::BF16)
      half[i] = toBF16(v);
    else if (dtype == DType::F16)
      half[i] = toF16(v);
    else
      single[i] = v;
  }
  void *data() {
    return isHalf() ? static_cast<void *>(half.data())
                    : static_cast<void *>(single.data());
  }
};

/// A memref descriptor of rank 1 or 2 pointing into a Buffer.
struct Descriptor {
  void *allocated, *aligned;
  int64_t offset;
  int64_t sizesAndStrides[4];
};

Descriptor describe(Buffer &b) {
  Descriptor d{b.data(), b.data(), 0, {0, 0, 0, 0}};
  if (b.shape.size() == 1) {
    d.sizesAndStrides[0] = b.shape[0];
    d.sizesAndStrides[1] = 1;
  } else {
    d.sizesAndStrides[0] = b.shape[0];
    d.sizesAndStrides[1] = b.shape[1];
    d.sizesAndStrides[2] = b.shape[1];
    d.sizesAndStrides[3] = 1;
  }
  return d;
}


/// An argument of the generated function.
struct Arg {
  std::string name;
  Buffer *buffer;
  bool isInput;
};

class CpuNumerics : public ::testing::TestWithParam<Case> {
protected:
  static void SetUpTestSuite() {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    registerAllPasses();
    norm::registerAllNormPasses();
  }

  static std::string memrefType(const Buffer &b) {
    if (b.shape.size() == 1)
      return "memref<" +
             (b.perRow ? std::string("?") : std::to_string(b.shape[0])) + "x" +
             typeName(b.dtype) + ">";
    return "memref<?x" + std::to_string(b.shape[1]) + "x" + typeName(b.dtype) +
           ">";
  }
  static std::string tensorType(const Buffer &b) {
    std::string t = memrefType(b);
    return "tensor" + t.substr(6);
  }

  /// Compiles `body` (which reads %<name>_t tensors and defines %<name>_r
  /// results) into a function over memrefs and runs it on `args`.
  void run(const Case &c, std::vector<Arg> &args, const std::string &body) {
    std::string text = "func.func @kernel(";
    for (size_t i = 0; i < args.size(); ++i)
      text +=
          (i ? ", %" : "%") + args[i].name + ": " + memrefType(*args[i].buffer);
    text += ") attributes {llvm.emit_c_interface} {\n";
    for (Arg &a : args)
      if (a.isInput)
        text += "  %" + a.name + "_t = bufferization.to_tensor %" + a.name +
                " restrict : " + memrefType(*a.buffer) + " to " +
                tensorType(*a.buffer) + "\n";
    text += body;
    for (Arg &a : args)
      if (!a.isInput)
        text += "  bufferization.materialize_in_destination %" + a.name +
                "_r in restrict writable %" + a.name + " : (" +
                tensorType(*a.buffer) + ", " + memrefType(*a.buffer) +
                ") -> ()\n";
    text += "  return\n}\n";

    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    registerAllToLLVMIRTranslations(registry);
    norm::registerAllNorm(registry);
    MLIRContext ctx(registry);
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &ctx);
    ASSERT_TRUE(module) << text;

    std::string pipeline = "norm-decompose,";
    pipeline += c.mode == Mode::Unfused ? "norm-fuse-mixed-order{fuse=false},"
                                        : "norm-fuse-mixed-order,";
    if (c.mode == Mode::RowSplit)
      pipeline += "norm-split-rows{always=true},";
    if (c.mode == Mode::FusedSplit || c.mode == Mode::RowSplit)
      pipeline +=
          "norm-split-reduction{split-size=" + std::to_string(c.split) +
          " min-partials=" + std::to_string(c.minPartials) +
          " min-rows-per-partial=" + std::to_string(c.minRowsPerPartial) + "},";
    if (c.mode == Mode::ShortRows)
      pipeline += "norm-short-rows{short-rows=" + std::to_string(c.split) +
                  "},norm-split-reduction{split-size=4 min-partials=0},";
    pipeline += "one-shot-bufferize";
    PassManager pm(&ctx);
    std::string errors;
    llvm::raw_string_ostream errorStream(errors);
    ASSERT_TRUE(succeeded(parsePassPipeline(pipeline, pm, errorStream)))
        << errors;
    norm::buildNormLoopsToLLVMPipeline(pm);
    ASSERT_TRUE(succeeded(pm.run(*module))) << text;

    ExecutionEngineOptions options;
    auto engine = ExecutionEngine::create(*module, options);
    if (!engine) {
      std::string ir;
      llvm::raw_string_ostream os(ir);
      module->print(os);
      FAIL() << llvm::toString(engine.takeError()) << "\n" << ir;
    }
    std::vector<Descriptor> descriptors;
    descriptors.reserve(args.size());
    for (Arg &a : args)
      descriptors.push_back(describe(*a.buffer));
    std::vector<void *> pointers;
    for (Descriptor &d : descriptors)
      pointers.push_back(&d);
    std::vector<void *> packed;
    for (void *&p : pointers)
      packed.push_back(&p);
    llvm::Error error = (*engine)->invokePacked("_mlir_ciface_kernel", packed);
    ASSERT_FALSE(static_cast<bool>(error)) << llvm::toString(std::move(error));
  }

  /// ||out - ref|| / ||ref|| with NaN (unwritten or wrong) failing.
  /// `scale` (if larger than ||ref||) is the size of the terms that cancel in
  /// ref: dx for N = 1 is a difference of nearly equal terms, and its error
  /// is measured against them.
  static void expectClose(const Buffer &out, const std::vector<double> &ref,
                          double tolerance, const std::string &what,
                          double scale = 0.0) {
    ASSERT_EQ(out.size(), ref.size());
    double num = 0, den = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      double v = out.get(i);
      ASSERT_TRUE(std::isfinite(v)) << what << "[" << i << "] = " << v;
      num += (v - ref[i]) * (v - ref[i]);
      den += ref[i] * ref[i];
    }
    double rel = std::sqrt(num / std::max({den, scale * scale, 1e-300}));
    EXPECT_LT(rel, tolerance) << what << ": relative error " << rel;
  }
};

TEST_P(CpuNumerics, MatchesFloat64) {
  const Case c = GetParam();
  const int64_t m = c.m, n = c.n;
  std::mt19937 rng(std::hash<std::string>()(caseName(c)));
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Tolerances: bf16 outputs are rounded once (relative error up to 2^-9 per
  // element, about 2e-3 as a norm), plus accumulation of a few ulps of f32;
  // f32 outputs carry only f32 accumulation error over at most M or N terms.
  // f16 outputs: rounded once to 11 bits (2^-12 relative per element).
  const double tol = c.dtype == DType::BF16  ? 8e-3
                     : c.dtype == DType::F16 ? 2e-3
                                             : 2e-5;
  const double eps = 1e-5;
  DType t = c.dtype;

  Buffer x(t, {m, n}), w(t, {n}), b(t, {n});
  for (size_t i = 0; i < x.size(); ++i)
    x.set(i, normal(rng) * 2.0f + 0.5f);
  for (size_t j = 0; j < w.size(); ++j) {
    w.set(j, 1.0f + 0.5f * normal(rng));
    b.set(j, 0.3f * normal(rng));
  }
  // Reference statistics from the rounded inputs.
  std::vector<double> mean(m, 0), rstdRms(m), rstdLn(m);
  for (int64_t i = 0; i < m; ++i) {
    double s = 0, ss = 0;
    for (int64_t j = 0; j < n; ++j) {
      s += x.get(i * n + j);
      ss += x.get(i * n + j) * x.get(i * n + j);
    }
    mean[i] = s / n;
    rstdRms[i] = 1.0 / std::sqrt(ss / n + eps);
    double var = 0;
    for (int64_t j = 0; j < n; ++j)
      var += (x.get(i * n + j) - mean[i]) * (x.get(i * n + j) - mean[i]);
    rstdLn[i] = 1.0 / std::sqrt(var / n + eps);
  }
  auto wAt = [&](int64_t j) {
    return c.weight
               ? w.get(j) + (c.kind == Kind::RmsFwd || c.kind == Kind::RmsBwd
                                 ? c.offset
                                 : 0.0)
               : 1.0;
  };
  std::string T = typeName(t);
  std::string X = "tensor<?x" + std::to_string(n) + "x" + T + ">";
  std::string V = "tensor<" + std::to_string(n) + "x" + T + ">";
  std::string S = "tensor<?xf32>";
  std::string epsAttr = "epsilon = 1.0e-5 : f64";
  std::string offsetAttr =
      c.offset != 0.0
          ? ", weight_offset = " + std::to_string(c.offset) + " : f64"
          : "";
  std::string weightClause = c.weight ? " weight(%w_t : " + V + ")" : "";
  bool withBias = c.weight && c.bias;
  std::string biasClause = withBias ? " bias(%b_t : " + V + ")" : "";

  if (c.kind == Kind::RmsFwd || c.kind == Kind::LnFwd) {
    bool rms = c.kind == Kind::RmsFwd;
    Buffer y(t, {m, n}), meanOut(DType::F32, {m}, true),
        rstd(DType::F32, {m}, true);
    std::vector<Arg> args = {{"x", &x, true}};
    if (c.weight)
      args.push_back({"w", &w, true});
    if (withBias && !rms)
      args.push_back({"b", &b, true});
    args.push_back({"y", &y, false});
    if (!rms)
      args.push_back({"mean", &meanOut, false});
    args.push_back({"rstd", &rstd, false});
    std::string body = rms ? "  %y_r, %rstd_r = norm.rms_norm %x_t" +
                                 weightClause + " {" + epsAttr + offsetAttr +
                                 "} : " + X + " -> " + X + ", " + S + "\n"
                           : "  %y_r, %mean_r, %rstd_r = norm.layer_norm %x_t" +
                                 weightClause + biasClause + " {" + epsAttr +
                                 "} : " + X + " -> " + X + ", " + S + ", " + S +
                                 "\n";
    ASSERT_NO_FATAL_FAILURE(run(c, args, body));
    std::vector<double> yRef(m * n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double xv = x.get(i * n + j);
        yRef[i * n + j] = rms ? xv * rstdRms[i] * wAt(j)
                              : (xv - mean[i]) * rstdLn[i] * wAt(j) +
                                    (withBias ? b.get(j) : 0.0);
      }
    expectClose(y, yRef, tol, "y");
    expectClose(rstd, rms ? rstdRms : rstdLn, 1e-5, "rstd");
    if (!rms)
      expectClose(meanOut, mean, 1e-5, "mean");
    return;
  }

  // Backward: dy random; statistics given as f32 like a real forward saves.
  bool rms = c.kind == Kind::RmsBwd;
  Buffer dy(t, {m, n}), meanIn(DType::F32, {m}, true),
      rstdIn(DType::F32, {m}, true);
  for (size_t i = 0; i < dy.size(); ++i)
    dy.set(i, normal(rng));
  for (int64_t i = 0; i < m; ++i) {
    meanIn.set(i, mean[i]);
    rstdIn.set(i, rms ? rstdRms[i] : rstdLn[i]);
  }
  Buffer dx(t, {m, n}), dw(t, {n}), db(t, {n});
  std::vector<Arg> args = {{"dy", &dy, true}, {"x", &x, true}};
  if (!rms)
    args.push_back({"mean", &meanIn, true});
  args.push_back({"rstd", &rstdIn, true});
  if (c.weight)
    args.push_back({"w", &w, true});
  args.push_back({"dx", &dx, false});
  if (c.weight)
    args.push_back({"dw", &dw, false});
  if (!rms && c.bias)
    args.push_back({"db", &db, false});
  std::string results = "%dx_r";
  if (c.weight)
    results += ", %dw_r";
  if (!rms && c.bias)
    results += ", %db_r";
  std::string body;
  if (rms) {
    body = "  " + results + " = norm.rms_norm_grad %dy_t, %x_t, %rstd_t" +
           weightClause +
           (offsetAttr.empty() ? "" : " {" + offsetAttr.substr(2) + "}") +
           " : " + X + ", " + X + ", " + S + " -> " + X +
           (c.weight ? ", " + V : "") + "\n";
  } else {
    body = "  " + results +
           " = norm.layer_norm_grad %dy_t, %x_t, %mean_t, %rstd_t" +
           weightClause + (c.bias ? " {has_bias}" : "") + " : " + X + ", " + X +
           ", " + S + ", " + S + " -> " + X + (c.weight ? " dw " + V : "") +
           (c.bias ? " db " + V : "") + "\n";
  }
  ASSERT_NO_FATAL_FAILURE(run(c, args, body));

  std::vector<double> dxRef(m * n), dwRef(n, 0), dbRef(n, 0);
  double gScale = 0; // ||rstd * g||: the size of the terms dx subtracts.
  for (int64_t i = 0; i < m; ++i) {
    double r = rstdIn.get(i), mu = rms ? 0.0 : meanIn.get(i);
    double a = 0, cc = 0;
    for (int64_t j = 0; j < n; ++j) {
      double g = dy.get(i * n + j) * wAt(j);
      double xhat = (x.get(i * n + j) - mu) * r;
      a += g;
      cc += g * xhat;
    }
    a /= n;
    cc /= n;
    for (int64_t j = 0; j < n; ++j) {
      double g = dy.get(i * n + j) * wAt(j);
      double xhat = (x.get(i * n + j) - mu) * r;
      dxRef[i * n + j] = r * (g - (rms ? 0.0 : a) - xhat * cc);
      gScale += r * g * r * g;
      dwRef[j] += dy.get(i * n + j) * xhat;
      dbRef[j] += dy.get(i * n + j);
    }
  }
  expectClose(dx, dxRef, tol, "dx", 0.1 * std::sqrt(gScale));
  const double colTol = c.dtype == DType::BF16  ? 8e-3
                        : c.dtype == DType::F16 ? 2e-3
                                                : 1e-4;
  if (c.weight)
    expectClose(dw, dwRef, colTol, "dw");
  if (!rms && c.bias)
    expectClose(db, dbRef, colTol, "db");
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  const std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 64}, {33, 100}, {7, 1}, {5, 4097}, {64, 24}};
  for (Kind k : {Kind::RmsFwd, Kind::LnFwd, Kind::RmsBwd, Kind::LnBwd})
    for (DType t : {DType::BF16, DType::F16, DType::F32})
      for (auto [m, n] : shapes) {
        cases.push_back({k, t, m, n, Mode::Unfused});
        cases.push_back({k, t, m, n, Mode::Fused});
        // Long-row path: row statistics in their own kernel.
        cases.push_back({k, t, m, n, Mode::RowSplit, 4});
        if (k == Kind::RmsBwd || k == Kind::LnBwd) {
          // M not a multiple of the split, and M smaller than the split.
          cases.push_back({k, t, m, n, Mode::FusedSplit, 4});
          cases.push_back({k, t, m, n, Mode::FusedSplit, 64});
          // Rows per partial from M (min_partials): min(64, ceil(M / 4)),
          // e.g. 9 rows each at M = 33.
          cases.push_back(
              {k, t, m, n, Mode::FusedSplit, 64, true, true, 0.0, 4});
          // At least 12 rows each (min_rows_per_partial): 3 partial rows
          // of 12 at M = 33, one at M <= 12.
          cases.push_back(
              {k, t, m, n, Mode::FusedSplit, 64, true, true, 0.0, 4, 12});
          // The short-rows versions: the row and whole-column kernels (M
          // below the limit), and the split at the limit.
          cases.push_back({k, t, m, n, Mode::ShortRows, m + 1});
          cases.push_back({k, t, m, n, Mode::ShortRows, m});
        }
      }
  // Optional parameters.
  cases.push_back({Kind::RmsFwd, DType::BF16, 9, 40, Mode::Fused, 0, false});
  cases.push_back(
      {Kind::RmsFwd, DType::F32, 9, 40, Mode::Fused, 0, true, true, 1.0});
  cases.push_back(
      {Kind::RmsBwd, DType::F32, 9, 40, Mode::FusedSplit, 2, true, true, 1.0});
  cases.push_back({Kind::RmsBwd, DType::BF16, 9, 40, Mode::Fused, 0, false});
  cases.push_back(
      {Kind::LnFwd, DType::F32, 9, 40, Mode::Fused, 0, true, false});
  cases.push_back(
      {Kind::LnFwd, DType::BF16, 9, 40, Mode::Fused, 0, false, false});
  cases.push_back(
      {Kind::LnBwd, DType::F32, 9, 40, Mode::FusedSplit, 3, true, false});
  cases.push_back(
      {Kind::LnBwd, DType::BF16, 9, 40, Mode::Fused, 0, false, false});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(AllOps, CpuNumerics, ::testing::ValuesIn(allCases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                           return caseName(info.param);
                         });

} // namespace
