//===- RuntimeTest.cpp - the C++ bundle runtime without a GPU -------------===//

#include "NormRuntime/Bundle.h"
#include "NormRuntime/Json.h"
#include "NormRuntime/Launcher.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>

using namespace norm::runtime;

namespace {

/// Compiles examples/<name>.mlir with norm-compile into a temporary bundle.
std::string compileExample(const std::string &name,
                           const std::string &dir = "examples") {
  std::string out = testing::TempDir() + "/runtime_" + name;
  std::string cmd = std::string(NORM_COMPILE_PATH) + " " + NORM_SOURCE_DIR +
                    "/" + dir + "/" + name + ".mlir -o " + out + " --quiet";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  return out;
}

/// Copies bundle `dir` to `copy` with the first `from` in its manifest
/// replaced by `to`; false when the manifest has no `from`.
bool copyWithEditedManifest(const std::string &dir, const std::string &copy,
                            const std::string &from, const std::string &to) {
  std::system(("rm -rf " + copy + " && cp -r " + dir + " " + copy).c_str());
  std::ifstream in(copy + "/manifest.json");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  size_t at = text.find(from);
  if (at == std::string::npos)
    return false;
  text.replace(at, from.size(), to);
  std::ofstream(copy + "/manifest.json") << text;
  return true;
}

TEST(Json, ParsesManifestSubset) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(
      parseJson(R"({"a": [1, -2, "M", {"b": true}], "c": null})", v, error))
      << error;
  ASSERT_TRUE(v.isObject());
  const JsonValue *a = v.get("a");
  ASSERT_TRUE(a && a->isArray());
  EXPECT_EQ(a->array[1].integer, -2);
  EXPECT_EQ(a->array[2].string, "M");
  EXPECT_TRUE(a->array[3].get("b")->boolean);
  EXPECT_FALSE(parseJson("{\"a\": [1, 2}", v, error));
  EXPECT_NE(error.find("offset"), std::string::npos) << error;
  EXPECT_FALSE(parseJson("{} trailing", v, error));
}

TEST(Json, RefusesWhatWouldBeReadWrong) {
  // Each of these once parsed into something else: a clamped or truncated
  // number, a NUL for a bad escape, two objects merged under one key.
  JsonValue v;
  std::string error;
  auto refused = [&](const std::string &text, const std::string &why) {
    bool parsed = parseJson(text, v, error);
    EXPECT_FALSE(parsed) << text;
    EXPECT_NE(error.find(why), std::string::npos) << text << ": " << error;
  };
  refused("99999999999999999999", "number out of range");
  refused("-99999999999999999999", "number out of range");
  refused("1e999", "number out of range");
  refused("-", "invalid number");
  refused("[1-2]", "expected ',' or ']'");
  refused("1.", "invalid number");
  refused("1e", "invalid number");
  refused("01", "trailing characters");
  refused(R"("\uZZZZ")", "bad \\u escape");
  refused(R"("\u00e9")", "non-ASCII");
  refused(R"("\q")", "invalid escape");
  refused(R"({"a": [1], "a": [2]})", "duplicate object key");

  ASSERT_TRUE(parseJson("[9223372036854775807, -0, 2.5e-3, 1E+2]", v, error))
      << error;
  EXPECT_EQ(v.array[0].integer, INT64_MAX);
  EXPECT_EQ(v.array[1].integer, 0);
  EXPECT_DOUBLE_EQ(v.array[2].number, 2.5e-3);
  EXPECT_DOUBLE_EQ(v.array[3].number, 100.0);
  ASSERT_TRUE(parseJson(R"("a\u0041\/\"\\")", v, error)) << error;
  EXPECT_EQ(v.string, "aA/\"\\");
}

TEST(Bundle, ChoosesTheChipTheGPURuns) {
  // PTX runs on its chip and newer ones, arch-specific PTX on its own.
  EXPECT_TRUE(chipRunsOn("sm_80", 8, 0));
  EXPECT_TRUE(chipRunsOn("sm_80", 12, 0));
  EXPECT_TRUE(chipRunsOn("sm_90", 10, 0));
  EXPECT_FALSE(chipRunsOn("sm_90", 8, 9));
  EXPECT_TRUE(chipRunsOn("sm_90a", 9, 0));
  EXPECT_FALSE(chipRunsOn("sm_90a", 10, 0));
  EXPECT_TRUE(chipRunsOn("sm_100", 10, 3));
  for (const char *chip : {"", "sm_", "sm_9", "compute_90", "sm_x0"})
    EXPECT_FALSE(chipRunsOn(chip, 12, 0)) << chip;
  // The GPU's own chip first, else the newest that runs there.
  std::vector<std::string> chips{"sm_80", "sm_90", "sm_100a"};
  EXPECT_EQ(chooseChip(chips, 9, 0), 1);
  EXPECT_EQ(chooseChip(chips, 8, 6), 0);
  EXPECT_EQ(chooseChip(chips, 10, 0), 2);
  EXPECT_EQ(chooseChip(chips, 10, 3), 1);
  EXPECT_EQ(chooseChip(chips, 12, 0), 1);
  EXPECT_EQ(chooseChip(chips, 7, 5), -1);
  EXPECT_EQ(chooseChip({}, 9, 0), -1);
}

TEST(Bundle, EvaluatesSizes) {
  JsonValue v;
  std::string error;
  ASSERT_TRUE(parseJson(R"({"ceildiv": ["M", 32]})", v, error));
  EXPECT_EQ(evaluate(v, 100), 4);
  EXPECT_EQ(evaluate(v, 0), 0);
  ASSERT_TRUE(parseJson(R"("N")", v, error));
  EXPECT_EQ(evaluate(v, 100), -1);
  // A split's partial rows: ceil(M / max(min(ceil(M / 264), 64), 1)), none
  // for M = 0.
  const char *partials = R"({"ceildiv": ["M", {"max": [
      {"min": [{"ceildiv": ["M", 264]}, 64]}, 1]}]})";
  ASSERT_TRUE(parseJson(partials, v, error)) << error;
  EXPECT_EQ(evaluate(v, 4097), 257);
  EXPECT_EQ(evaluate(v, 32768), 512);
  EXPECT_EQ(evaluate(v, 3), 3);
  EXPECT_EQ(evaluate(v, 0), 0);
  ASSERT_TRUE(parseJson(R"({"max": [2, "M"]})", v, error));
  EXPECT_EQ(evaluate(v, 5), 5);
  EXPECT_EQ(evaluate(v, 1), 2);
  ASSERT_TRUE(parseJson(R"({"min": ["M"]})", v, error));
  EXPECT_EQ(evaluate(v, 100), -1);
  // Launch conditions: 1 where they hold.
  ASSERT_TRUE(parseJson(R"({"lt": ["M", 128]})", v, error));
  EXPECT_EQ(evaluate(v, 127), 1);
  EXPECT_EQ(evaluate(v, 128), 0);
  ASSERT_TRUE(parseJson(R"({"ge": ["M", 128]})", v, error));
  EXPECT_EQ(evaluate(v, 128), 1);
  EXPECT_EQ(evaluate(v, 0), 0);
  ASSERT_TRUE(parseJson(R"({"ge": ["M"]})", v, error));
  EXPECT_EQ(evaluate(v, 1), -1);
  // M a multiple of four (a remainder below 1): the whole-block versions.
  ASSERT_TRUE(parseJson(R"({"lt": [{"rem": ["M", 4]}, 1]})", v, error));
  EXPECT_EQ(evaluate(v, 4096), 1);
  EXPECT_EQ(evaluate(v, 4097), 0);
  EXPECT_EQ(evaluate(v, 4099), 0);
  EXPECT_EQ(evaluate(v, 0), 1);
  ASSERT_TRUE(parseJson(R"({"rem": ["M", 0]})", v, error));
  EXPECT_EQ(evaluate(v, 5), -1);
  // Nested branches join their conditions.
  ASSERT_TRUE(parseJson(R"({"and": [{"lt": ["M", 512]}, {"ge": ["M", 2]}]})", v,
                        error));
  EXPECT_EQ(evaluate(v, 1), 0);
  EXPECT_EQ(evaluate(v, 2), 1);
  EXPECT_EQ(evaluate(v, 511), 1);
  EXPECT_EQ(evaluate(v, 512), 0);
  ASSERT_TRUE(parseJson(R"({"and": [{"lt": ["M", 512]}]})", v, error));
  EXPECT_EQ(evaluate(v, 1), -1);
  // Outside a range of M: either side.
  ASSERT_TRUE(parseJson(R"({"or": [{"lt": ["M", 256]}, {"ge": ["M", 6144]}]})",
                        v, error));
  EXPECT_EQ(evaluate(v, 255), 1);
  EXPECT_EQ(evaluate(v, 256), 0);
  EXPECT_EQ(evaluate(v, 6143), 0);
  EXPECT_EQ(evaluate(v, 6144), 1);
  ASSERT_TRUE(parseJson(R"({"or": [{"lt": ["M", 256]}, "N"]})", v, error));
  EXPECT_EQ(evaluate(v, 1), -1);
}

TEST(Bundle, ChecksGridLimits) {
  EXPECT_EQ(checkGrid("k", kMaxGridX, kMaxGridY, 1), "");
  // Four rows a block over 2^33 + 4 rows: a grid the 32-bit launch
  // parameters would truncate to one block.
  std::string why = checkGrid("k", (int64_t{1} << 31) + 1, 1, int64_t{1} << 33);
  EXPECT_NE(why.find("M = 8589934592 rows"), std::string::npos) << why;
  EXPECT_NE(why.find("2147483649 x 1 blocks"), std::string::npos) << why;
  EXPECT_NE(checkGrid("k", 1, kMaxGridY + 1, 1), "");
}

TEST(Bundle, LoadsAndChecksSignatures) {
  std::string dir = compileExample("rms_norm_bwd");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  EXPECT_EQ(bundle->target(), "sm_90");
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  EXPECT_EQ(f->name, "rms_norm_bwd");
  // At one row one block, at none and below 512 the row kernel and the
  // whole-column kernel beside it, from 512 on the split kernel and its
  // combine (norm-short-rows).
  ASSERT_EQ(f->launches.size(), 5u);
  EXPECT_EQ(f->launches[0].kernel, "norm_fused");
  EXPECT_EQ(f->launches[1].kernel, "norm_fused_0");
  EXPECT_EQ(f->launches[2].kernel, "norm_columns");
  EXPECT_EQ(f->launches[4].kernel, "norm_combine");
  for (const LaunchDesc &launch : f->launches)
    ASSERT_TRUE(launch.conditional) << launch.kernel;
  EXPECT_EQ(evaluate(f->launches[0].when, 0), 0);
  EXPECT_EQ(evaluate(f->launches[0].when, 1), 1);
  EXPECT_EQ(evaluate(f->launches[0].when, 2), 0);
  EXPECT_EQ(evaluate(f->launches[1].when, 0), 1);
  EXPECT_EQ(evaluate(f->launches[1].when, 2), 1);
  EXPECT_EQ(evaluate(f->launches[2].when, 0), 1);
  EXPECT_EQ(evaluate(f->launches[2].when, 511), 1);
  EXPECT_EQ(evaluate(f->launches[2].when, 1), 0);
  EXPECT_EQ(evaluate(f->launches[3].when, 511), 0);
  EXPECT_EQ(evaluate(f->launches[4].when, 512), 1);
  EXPECT_TRUE(f->launches[2].programmatic);
  // Kernels take each buffer's aligned pointer and its dynamic size
  // (norm-compact-kernel-args): the one-row kernel pointers alone, the row
  // kernel dy's pointer then M.
  for (const LaunchParam &param : f->launches[0].params)
    EXPECT_EQ(param.kind, LaunchParam::Kind::AlignedPointer);
  const std::vector<LaunchParam> &rowParams = f->launches[1].params;
  ASSERT_GE(rowParams.size(), 2u);
  EXPECT_EQ(rowParams[0].kind, LaunchParam::Kind::AlignedPointer);
  EXPECT_EQ(rowParams[0].buffer, "arg0");
  EXPECT_EQ(rowParams[1].kind, LaunchParam::Kind::Size);
  EXPECT_EQ(evaluate(rowParams[1].value, 10), 10);

  alignas(16) static char fake[64];
  TensorRef dy{fake, DType::BF16, {10, 4096}}, x = dy;
  TensorRef rstd{fake, DType::F32, {10}}, w{fake, DType::BF16, {4096}};
  int64_t rows = 0;
  EXPECT_TRUE(f->bindRows({dy, x, rstd, w}, rows, error)) << error;
  EXPECT_EQ(rows, 10);

  TensorRef shortRows{fake, DType::F32, {9}};
  EXPECT_FALSE(f->bindRows({dy, x, shortRows, w}, rows, error));
  EXPECT_NE(error.find("has 9 rows, but another argument has 10"),
            std::string::npos)
      << error;
  TensorRef wrongType{fake, DType::F32, {4096}};
  EXPECT_FALSE(f->bindRows({dy, x, rstd, wrongType}, rows, error));
  EXPECT_NE(error.find("must be bf16, got f32"), std::string::npos) << error;
  TensorRef wrongN{fake, DType::BF16, {10, 1024}};
  EXPECT_FALSE(f->bindRows({wrongN, x, rstd, w}, rows, error));
  EXPECT_NE(error.find("dimension 1 must be 4096, got 1024"), std::string::npos)
      << error;
  TensorRef misaligned{fake + 2, DType::BF16, {10, 4096}};
  EXPECT_FALSE(f->bindRows({misaligned, x, rstd, w}, rows, error));
  EXPECT_NE(error.find("16-byte aligned"), std::string::npos) << error;
  EXPECT_FALSE(f->bindRows({dy, x, rstd}, rows, error));
  EXPECT_NE(error.find("takes 4 tensors, got 3"), std::string::npos) << error;
  EXPECT_FALSE(bundle->function("nope", error));
}

TEST(Bundle, InferenceForwardReturnsYAlone) {
  // A forward whose rstd is not returned: one result, one buffer (y), the
  // training forward's arguments.
  std::string dir = compileExample("rms_norm_fwd_inference");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("rms_fwd_inference", error);
  ASSERT_TRUE(f) << error;
  ASSERT_EQ(f->arguments.size(), 2u);
  ASSERT_EQ(f->buffers.size(), 1u);
  ASSERT_EQ(f->results.size(), 1u);
  EXPECT_EQ(f->results[0], f->buffers[0].name);
  EXPECT_EQ(f->buffers[0].dtype, DType::BF16);
  alignas(16) static char fake[64];
  TensorRef x{fake, DType::BF16, {7, 4096}}, w{fake, DType::BF16, {4096}};
  int64_t rows = 0;
  EXPECT_TRUE(f->bindRows({x, w}, rows, error)) << error;
  EXPECT_EQ(rows, 7);
}

TEST(Bundle, ReadsClusterLaunches) {
  // LayerNorm backward at N = 65536: above the short-rows limit the split
  // kernel runs in clusters of 4 blocks (grid y) with 224 KB of dynamic
  // shared memory, which the launcher must allow before launching; below
  // it one row runs as one cluster of 16 and more rows over clusters of 4
  // beside a whole-column kernel.
  std::string dir = compileExample("layer_norm_bwd_long", "test/Target/Inputs");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  auto staged = std::find_if(
      f->launches.begin(), f->launches.end(),
      [](const LaunchDesc &launch) { return launch.sharedBytes > 0; });
  ASSERT_NE(staged, f->launches.end());
  const LaunchDesc &main = *staged;
  EXPECT_EQ(main.kernel, "norm_fused_1");
  EXPECT_EQ(main.cluster, 4);
  EXPECT_EQ(evaluate(main.gridY, 1000), 4);
  EXPECT_GE(main.sharedBytes, 224 * 1024);
  // A backward (column partials) is not persistent; its combine is a
  // programmatic dependent launch of it.
  EXPECT_FALSE(main.persistent);
  EXPECT_FALSE(main.programmatic);
  ASSERT_GE(f->launches.size(), 2u);
  EXPECT_EQ(f->launches.back().kernel, "norm_combine");
  EXPECT_TRUE(f->launches.back().programmatic);
  EXPECT_EQ(f->launches.back().cluster, 1);
  EXPECT_EQ(f->launches.front().cluster, 16);
  EXPECT_EQ(evaluate(f->launches.front().grid, 1), 1);
  std::string badFlag = testing::TempDir() + "/bad_programmatic_bundle";
  ASSERT_TRUE(copyWithEditedManifest(dir, badFlag, "\"programmatic\": true",
                                     "\"programmatic\": 2"));
  EXPECT_FALSE(Bundle::load(badFlag, error));
  EXPECT_NE(error.find("non-boolean programmatic"), std::string::npos)
      << error;
  for (const LaunchDesc &launch : f->launches) {
    if (launch.kernel == "norm_columns") {
      EXPECT_EQ(launch.cluster, 1);
    }
  }

  // A forward over clusters is: a cluster per row at most (grid M).
  std::string fwd = compileExample("rms_norm_fwd_long", "test/Target/Inputs");
  auto forward = Bundle::load(fwd, error);
  ASSERT_TRUE(forward) << error;
  const Function *g = forward->function("", error);
  ASSERT_TRUE(g) << error;
  EXPECT_TRUE(g->launches[0].persistent);
  EXPECT_EQ(evaluate(g->launches[0].grid, 1000), 1000);
  std::string notBool = testing::TempDir() + "/bad_persistent_bundle";
  ASSERT_TRUE(copyWithEditedManifest(fwd, notBool, "\"persistent\": true",
                                     "\"persistent\": 1"));
  EXPECT_FALSE(Bundle::load(notBool, error));
  EXPECT_NE(error.find("non-boolean persistent"), std::string::npos) << error;

  // A manifest asking for an impossible cluster is rejected when loaded.
  std::string bad = testing::TempDir() + "/bad_cluster_bundle";
  ASSERT_TRUE(
      copyWithEditedManifest(dir, bad, "\"cluster\": 4", "\"cluster\": 32"));
  EXPECT_FALSE(Bundle::load(bad, error));
  EXPECT_NE(error.find("bad cluster size"), std::string::npos) << error;

  // So is a block CUDA cannot launch (a negative one would wrap to 2^32 - 1
  // threads in the 32-bit launch parameter).
  std::string badBlock = testing::TempDir() + "/bad_block_bundle";
  ASSERT_TRUE(
      copyWithEditedManifest(dir, badBlock, "\"block\": ", "\"block\": -"));
  EXPECT_FALSE(Bundle::load(badBlock, error));
  EXPECT_NE(error.find("bad block size"), std::string::npos) << error;
}

TEST(Bundle, PlansTheLaunchesOfEachM) {
  // The RMSNorm backward's versions (norm-short-rows): one block at M = 1, a
  // row and a whole-column kernel side by side below the short-rows limit,
  // the split kernel and its programmatic combine above it. Planning
  // settles, without a driver, which run and over which grids.
  std::string dir = compileExample("rms_norm_bwd");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  EXPECT_EQ(bundle->functionNames(), std::vector<std::string>{"rms_norm_bwd"});
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  std::vector<PlannedLaunch> planned;
  // No rows: the whole-column kernel alone writes dW = 0. It is the
  // programmatic dependent of the row kernel, which does not run, so it
  // launches as an ordinary launch.
  ASSERT_TRUE(f->planLaunches(0, planned, error)) << error;
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].launch->kernel, "norm_columns");
  EXPECT_TRUE(planned[0].launch->programmatic);
  EXPECT_FALSE(planned[0].afterIssued);
  ASSERT_TRUE(f->planLaunches(1, planned, error)) << error;
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].grid, 1);
  ASSERT_TRUE(f->planLaunches(65536, planned, error)) << error;
  ASSERT_EQ(planned.size(), 2u);
  // The combine follows an issued launch: it may overlap it.
  EXPECT_FALSE(planned[0].afterIssued);
  EXPECT_TRUE(planned[1].afterIssued);
  EXPECT_TRUE(planned[1].launch->programmatic);
  for (const BufferDesc &buffer : f->buffers) {
    int64_t bytes = -1;
    EXPECT_TRUE(f->bufferBytes(buffer, 65536, bytes, error)) << error;
    EXPECT_GE(bytes, 0) << buffer.name;
  }

  // A size parameter the manifest cannot evaluate (a division by zero) is
  // refused when the bundle loads or, at the latest, when a call plans its
  // launches: never passed to a kernel as -1.
  std::string bad = testing::TempDir() + "/bad_size_param_bundle";
  ASSERT_TRUE(copyWithEditedManifest(
      dir, bad, "\"value\": \"M\"",
      "\"value\": {\"ceildiv\": [\"M\", {\"min\": [\"M\", 0]}]}"));
  if (auto broken = Bundle::load(bad, error)) {
    const Function *g = broken->function("", error);
    ASSERT_TRUE(g) << error;
    bool refused = false;
    for (int64_t m : {1, 300, 65536})
      refused |= !g->planLaunches(m, planned, error);
    EXPECT_TRUE(refused);
    EXPECT_NE(error.find("bad size parameter"), std::string::npos) << error;
  }

  // A buffer whose bytes overflow 64 bits at some M has no valid size.
  std::string huge = testing::TempDir() + "/huge_buffer_bundle";
  ASSERT_TRUE(copyWithEditedManifest(
      dir, huge,
      "\"name\": \"buf0\",\n          \"shape\": [\n            \"M\"",
      "\"name\": \"buf0\",\n          \"shape\": [\n            "
      "4611686018427387904"));
  auto overflowing = Bundle::load(huge, error);
  ASSERT_TRUE(overflowing) << error;
  const Function *g = overflowing->function("", error);
  ASSERT_TRUE(g) << error;
  int64_t bytes = 0;
  EXPECT_FALSE(g->bufferBytes(g->buffers[0], 65536, bytes, error));
  EXPECT_NE(error.find("buffer buf0 has no valid size at M = 65536"),
            std::string::npos)
      << error;
  // A whole call's plan is refused alike.
  CallPlan plan;
  EXPECT_FALSE(g->planCall(65536, plan, error));
  EXPECT_NE(error.find("buffer buf0 has no valid size"), std::string::npos)
      << error;
}

TEST(Bundle, PlansWholeCalls) {
  // A call plan holds what planLaunches settles plus every slot's shape and
  // bytes and each launch's parameter words, with the words that take
  // addresses marked: a call then fills in pointers and launches.
  std::string dir = compileExample("rms_norm_bwd");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  const int64_t rows = 65536;
  CallPlan plan;
  ASSERT_TRUE(f->planCall(rows, plan, error)) << error;
  EXPECT_EQ(plan.rows, rows);
  size_t slots = f->arguments.size() + f->buffers.size();
  ASSERT_EQ(plan.shapes.size(), slots);
  ASSERT_EQ(plan.bytes.size(), slots);
  for (size_t a = 0; a < f->arguments.size(); ++a)
    EXPECT_EQ(plan.shapes[a], f->shapeOf(f->arguments[a], rows));
  for (size_t b = 0; b < f->buffers.size(); ++b) {
    int64_t bytes = 0;
    ASSERT_TRUE(f->bufferBytes(f->buffers[b], rows, bytes, error)) << error;
    EXPECT_EQ(plan.bytes[f->arguments.size() + b], bytes);
  }

  std::vector<PlannedLaunch> planned;
  ASSERT_TRUE(f->planLaunches(rows, planned, error)) << error;
  ASSERT_EQ(plan.launches.size(), planned.size());
  for (size_t i = 0; i < planned.size(); ++i) {
    const CallPlan::Launch &launch = plan.launches[i];
    EXPECT_EQ(launch.desc, planned[i].launch);
    EXPECT_EQ(launch.grid, planned[i].grid);
    EXPECT_EQ(launch.gridY, planned[i].gridY);
    EXPECT_EQ(launch.programmatic,
              planned[i].launch->programmatic && planned[i].afterIssued);
    // Every buffer parameter takes an address (a descriptor two), and each
    // address word names an existing slot and is left 0 in the plan.
    size_t pointers = 0;
    for (const LaunchParam &param : launch.desc->params)
      pointers += param.kind == LaunchParam::Kind::Descriptor       ? 2
                  : param.kind == LaunchParam::Kind::AlignedPointer ? 1
                                                                    : 0;
    EXPECT_EQ(launch.addresses.size(), pointers);
    for (auto [word, slot] : launch.addresses) {
      ASSERT_LT(word, launch.words.size());
      EXPECT_LT(slot, slots);
      EXPECT_EQ(launch.words[word], 0);
    }
    // The size parameters are the manifest's values at this M.
    size_t word = 0;
    for (const LaunchParam &param : launch.desc->params) {
      if (param.kind == LaunchParam::Kind::Size) {
        EXPECT_EQ(launch.words[word], evaluate(param.value, rows));
        ++word;
      } else if (param.kind == LaunchParam::Kind::AlignedPointer) {
        ++word;
      } else {
        // Allocated and aligned pointer, offset, sizes, strides.
        auto it = std::find_if(launch.addresses.begin(), launch.addresses.end(),
                               [&](auto a) { return a.first == word; });
        ASSERT_NE(it, launch.addresses.end());
        const std::vector<int64_t> &shape = plan.shapes[it->second];
        EXPECT_EQ(launch.words[word + 2], 0);
        for (size_t k = 0; k < shape.size(); ++k)
          EXPECT_EQ(launch.words[word + 3 + k], shape[k]);
        word += 3 + 2 * shape.size();
      }
    }
    EXPECT_EQ(word, launch.words.size());
  }
}

TEST(Bundle, ZeroesBlockGroupWorkspaces) {
  // An RMSNorm backward at N = 65536 for sm_80 (no clusters) shares its
  // rows over block groups, whose workspace (a ticket line and slots per
  // group) the manifest marks zeroed: a call plan lists its slot, with the
  // groups' bytes at that M, for the launcher to zero before the launches.
  std::string program = testing::TempDir() + "/rms_bwd_65536.mlir";
  std::ofstream(program)
      << "func.func @rms_bwd(%dy: tensor<?x65536xbf16>, %x: "
         "tensor<?x65536xbf16>, %r: tensor<?xf32>, %w: tensor<65536xbf16>) "
         "-> (tensor<?x65536xbf16>, tensor<65536xbf16>) {\n"
         "  %dx, %dw = norm.rms_norm_grad %dy, %x, %r weight(%w : "
         "tensor<65536xbf16>) : tensor<?x65536xbf16>, tensor<?x65536xbf16>, "
         "tensor<?xf32> -> tensor<?x65536xbf16>, tensor<65536xbf16>\n"
         "  return %dx, %dw : tensor<?x65536xbf16>, tensor<65536xbf16>\n}\n";
  std::string dir = testing::TempDir() + "/runtime_rms_bwd_sm80";
  std::string cmd = std::string(NORM_COMPILE_PATH) + " " + program + " -o " +
                    dir + " --chip=sm_80 --quiet";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  std::vector<size_t> zeroed;
  for (size_t b = 0; b < f->buffers.size(); ++b)
    if (f->buffers[b].zeroed)
      zeroed.push_back(b);
  // The one-row version's workspace and the split kernel's, and their
  // launches' groups of 8 blocks.
  ASSERT_EQ(zeroed.size(), 2u);
  int64_t groupLaunches = 0;
  for (const LaunchDesc &launch : f->launches)
    if (launch.blockGroup > 0) {
      EXPECT_EQ(launch.blockGroup, 8);
      ++groupLaunches;
    }
  EXPECT_EQ(groupLaunches, 2);
  CallPlan plan;
  ASSERT_TRUE(f->planCall(1024, plan, error)) << error;
  ASSERT_EQ(plan.zeroed.size(), 2u);
  for (size_t k = 0; k < zeroed.size(); ++k)
    EXPECT_EQ(plan.zeroed[k], f->arguments.size() + zeroed[k]);
  // 13 groups of 8 blocks on the A100's 108 SMs, each a row of 64 f32
  // (a 128-byte ticket line and 2 x 8 slots of 8 bytes).
  EXPECT_EQ(plan.bytes[plan.zeroed.back()], 13 * 64 * 4);
  EXPECT_EQ(plan.bytes[plan.zeroed.front()], 64 * 4);
  // A zeroed flag that is not a boolean is refused.
  std::string copy = testing::TempDir() + "/runtime_rms_bwd_sm80_bad";
  ASSERT_TRUE(
      copyWithEditedManifest(dir, copy, "\"zeroed\": true", "\"zeroed\": 1"));
  EXPECT_FALSE(Bundle::load(copy, error));
  EXPECT_NE(error.find("non-boolean zeroed"), std::string::npos) << error;
  ASSERT_TRUE(copyWithEditedManifest(dir, copy, "\"block_group\": 8",
                                     "\"block_group\": 1"));
  EXPECT_FALSE(Bundle::load(copy, error));
  EXPECT_NE(error.find("bad block_group"), std::string::npos) << error;
}

TEST(Bundle, ReadsDynamicSharedMemory) {
  // LayerNorm forward at N = 4096 from 1280 rows stages rows of x in shared
  // memory (the tuning table's depth): that launch carries the dynamic
  // shared memory, whole rows of 8 KB, declared as an extern shared array in
  // the PTX. Below 1280 rows its streamed versions (two rows a block at
  // 529-792 rows, four at 793-1056, below 133 rows the weight and bias
  // loaded with the row) need none.
  std::string dir = compileExample("layer_norm_fwd");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  ASSERT_EQ(f->launches.size(), 5u);
  for (size_t i = 0; i + 1 < f->launches.size(); ++i)
    EXPECT_EQ(f->launches[i].sharedBytes, 0) << i;
  const LaunchDesc &main = f->launches.back();
  EXPECT_GT(main.sharedBytes, 0);
  EXPECT_EQ(main.sharedBytes % (4096 * 2), 0);
  EXPECT_NE(bundle->ptx().find(".extern .shared .align 16 .b8"),
            std::string::npos);

  // More than Hopper's 227 KB is rejected when loaded.
  std::string bad = testing::TempDir() + "/bad_shared_bundle";
  ASSERT_TRUE(copyWithEditedManifest(
      dir, bad, "\"shared_bytes\": " + std::to_string(main.sharedBytes),
      "\"shared_bytes\": 300000"));
  EXPECT_FALSE(Bundle::load(bad, error));
  EXPECT_NE(error.find("bad shared_bytes"), std::string::npos) << error;
}

TEST(Bundle, RefusesMalformedSizesAndShapes) {
  // ceil(M / b) at the largest M does not overflow on the way.
  JsonValue v;
  std::string error;
  ASSERT_TRUE(parseJson(R"({"ceildiv": ["M", 2]})", v, error));
  EXPECT_EQ(evaluate(v, INT64_MAX), INT64_MAX / 2 + 1);

  std::string dir = testing::TempDir() + "/malformed_sizes_bundle";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/k.ptx") << "// empty\n";
  auto load = [&](const std::string &buffers, const std::string &grid,
                  const std::string &extraFunction = "") {
    std::ofstream(dir + "/manifest.json")
        << R"({"format": "norm-kernel-bundle", "version": 1, "ptx": "k.ptx",
        "functions": [{"function": "f", "arguments": [{"name": "arg0",
        "dtype": "f32", "shape": ["M", 4]}], "buffers": )"
        << buffers << R"(, "results": [], "launches": [{"kernel": "k",
        "block": 32, "grid": )"
        << grid << R"(, "params": []}]})" << extraFunction << "]}";
    return Bundle::load(dir, error);
  };
  EXPECT_TRUE(load(R"([{"name": "buf0", "dtype": "f32",
                        "shape": [{"ceildiv": ["M", 8]}, 4]}])",
                   R"({"max": ["M", 1]})"))
      << error;
  EXPECT_FALSE(
      load(R"([{"name": "buf0", "dtype": "f32", "shape": [-4]}])", "1"));
  EXPECT_NE(error.find("buffer buf0 has a size that is no size expression"),
            std::string::npos)
      << error;
  EXPECT_FALSE(load(R"([{"name": "buf0", "dtype": "f32",
                         "shape": [{"max": []}]}])",
                    "1"));
  EXPECT_NE(error.find("no size expression"), std::string::npos) << error;
  EXPECT_FALSE(load("[]", R"({"ceildiv": ["M"]})"));
  EXPECT_NE(error.find("has a grid that is no size expression"),
            std::string::npos)
      << error;
  EXPECT_FALSE(load("[]", "1", R"(, {"function": "f", "arguments": [],
      "buffers": [], "results": [], "launches": []})"));
  EXPECT_NE(error.find("two functions named f"), std::string::npos) << error;
  // An argument's sizes are integers or M, as the Python loader requires:
  // an expression there is refused when the bundle loads.
  EXPECT_FALSE(load("[]", "1", R"(, {"function": "g", "arguments": [{"name":
      "a", "dtype": "f32", "shape": [{"ceildiv": ["M", 0]}, 4]}],
      "buffers": [], "results": [], "launches": []})"));
  EXPECT_NE(error.find("argument a has a size that is neither an integer"),
            std::string::npos)
      << error;

  // Tensors of negative or uncountable shapes are refused before any
  // size is worked out from them.
  auto bundle = load("[]", "1");
  ASSERT_TRUE(bundle) << error;
  const Function *f = bundle->function("", error);
  ASSERT_TRUE(f) << error;
  alignas(16) static char data[16];
  int64_t rows = 0;
  EXPECT_FALSE(f->bindRows({{data, DType::F32, {-2, 4}}}, rows, error));
  EXPECT_NE(error.find("negative size in shape [-2,4]"), std::string::npos)
      << error;
  EXPECT_FALSE(f->bindRows({{data, DType::F32, {INT64_MAX, 4}}}, rows, error));
  EXPECT_NE(error.find("more elements than 64 bits count"), std::string::npos)
      << error;
}

/// `value` as JSON text (the reader's subset).
std::string toJson(const JsonValue &value) {
  switch (value.kind) {
  case JsonValue::Kind::Null:
    return "null";
  case JsonValue::Kind::Bool:
    return value.boolean ? "true" : "false";
  case JsonValue::Kind::Integer:
    return std::to_string(value.integer);
  case JsonValue::Kind::Number:
    return std::to_string(value.number);
  case JsonValue::Kind::String:
    return "\"" + value.string + "\"";
  case JsonValue::Kind::Array: {
    std::string text = "[";
    for (const JsonValue &element : value.array)
      text += (text.size() > 1 ? "," : "") + toJson(element);
    return text + "]";
  }
  case JsonValue::Kind::Object: {
    std::string text = "{";
    for (const auto &[key, member] : value.object)
      text += (text.size() > 1 ? ",\"" : "\"") + key + "\":" + toJson(member);
    return text + "}";
  }
  }
  return "null";
}

/// Every value inside `value` (not `value` itself), depth first.
void collectValues(JsonValue &value, std::vector<JsonValue *> &out) {
  for (JsonValue &element : value.array) {
    out.push_back(&element);
    collectValues(element, out);
  }
  for (auto &[key, member] : value.object) {
    out.push_back(&member);
    collectValues(member, out);
  }
}

TEST(Bundle, EveryFieldOfTheWrongKindIsAnErrorOrLoads) {
  // Each value of a real manifest replaced by values of other kinds: the
  // loader refuses the manifest or loads it, and what it loads evaluates
  // without trouble; never a crash (run under a sanitizer, no UB either).
  std::string dir = compileExample("layer_norm_bwd");
  std::ifstream in(dir + "/manifest.json");
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  JsonValue good;
  std::string error;
  ASSERT_TRUE(parseJson(text, good, error)) << error;
  std::vector<JsonValue *> fields;
  collectValues(good, fields);
  const char *others[] = {"null",
                          "true",
                          "-1",
                          "2147483648",
                          "9223372036854775807",
                          "1.5",
                          "\"M\"",
                          "\"\"",
                          "[]",
                          "{}",
                          "[\"M\"]",
                          R"({"ceildiv": ["M", 0]})",
                          R"({"rem": ["M", 0]})"};
  std::string copy = testing::TempDir() + "/wrong_kind_bundle";
  std::system(("rm -rf " + copy + " && cp -r " + dir + " " + copy).c_str());
  int loaded = 0;
  for (size_t i = 0; i < fields.size(); ++i) {
    for (const char *other : others) {
      JsonValue edited;
      ASSERT_TRUE(parseJson(text, edited, error));
      std::vector<JsonValue *> editedFields;
      collectValues(edited, editedFields);
      ASSERT_TRUE(parseJson(other, *editedFields[i], error));
      std::ofstream(copy + "/manifest.json") << toJson(edited);
      auto bundle = Bundle::load(copy, error);
      const Function *f = bundle ? bundle->function("", error) : nullptr;
      if (!f)
        continue;
      ++loaded;
      alignas(16) static char data[64];
      for (int64_t m : {0, 1, 700, 5000}) {
        for (const LaunchDesc &launch : f->launches) {
          evaluate(launch.grid, m);
          evaluate(launch.gridY, m);
          evaluate(launch.when, m);
        }
        std::vector<TensorRef> args;
        for (const BufferDesc &argument : f->arguments)
          args.push_back({data, argument.dtype, f->shapeOf(argument, m)});
        int64_t rows = 0;
        f->bindRows(args, rows, error);
      }
    }
  }
  // Some edits are harmless (a kernel name, a buffer's name nobody uses).
  EXPECT_GT(loaded, 0);
}

TEST(Bundle, RejectsBrokenBundles) {
  std::string error;
  EXPECT_FALSE(Bundle::load(testing::TempDir() + "/does-not-exist", error));
  EXPECT_NE(error.find("no manifest.json"), std::string::npos);
  std::string dir = testing::TempDir() + "/broken_bundle";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/manifest.json") << R"({"format": "norm-kernel-bundle",
      "version": 1, "ptx": "k.ptx", "functions": []})";
  EXPECT_FALSE(Bundle::load(dir, error));
  EXPECT_NE(error.find("is missing"), std::string::npos) << error;
  // A launch condition that is no comparison of M (a bundle of its own:
  // this one has its PTX).
  dir = testing::TempDir() + "/bad_when_bundle";
  std::system(("mkdir -p " + dir).c_str());
  std::ofstream(dir + "/k.ptx") << "// empty\n";
  std::ofstream(dir + "/manifest.json") << R"({"format": "norm-kernel-bundle",
      "version": 1, "ptx": "k.ptx", "functions": [{"function": "f",
      "arguments": [], "buffers": [], "results": [], "launches": [
        {"kernel": "k", "block": 32, "grid": 1, "params": [],
         "when": {"max": ["M", 2]}}]}]})";
  EXPECT_FALSE(Bundle::load(dir, error));
  EXPECT_NE(error.find("has a bad when"), std::string::npos) << error;
  // Parameters: a descriptor field other than the aligned pointer, a buffer
  // without rank or field, a malformed size.
  auto withParams = [&](const std::string &params) {
    std::ofstream(dir + "/manifest.json")
        << R"({"format": "norm-kernel-bundle", "version": 1, "ptx": "k.ptx",
        "functions": [{"function": "f", "arguments": [{"name": "arg0",
        "dtype": "f32", "shape": ["M"]}], "buffers": [], "results": [],
        "launches": [{"kernel": "k", "block": 32, "grid": 1, "params": )"
        << params << "}]}]}";
    return Bundle::load(dir, error) != nullptr;
  };
  EXPECT_TRUE(withParams(R"([{"buffer": "arg0", "field": "aligned"},
                             {"value": "M"}, {"buffer": "arg0", "rank": 1}])"))
      << error;
  EXPECT_FALSE(withParams(R"([{"buffer": "arg0", "field": "offset"}])"));
  EXPECT_NE(error.find("other than 'aligned'"), std::string::npos) << error;
  EXPECT_FALSE(withParams(R"([{"buffer": "arg0"}])"));
  EXPECT_NE(error.find("without a rank or field"), std::string::npos) << error;
  EXPECT_FALSE(withParams(R"([{"value": {"max": ["M"]}}])"));
  EXPECT_NE(error.find("malformed size parameter"), std::string::npos) << error;
}

TEST(Launcher, ReportsAMissingDriverClearly) {
  if (cudaAvailable())
    GTEST_SKIP() << "a CUDA device is present; this checks the no-GPU path";
  std::string dir = compileExample("rms_norm_fwd");
  std::string error;
  auto bundle = Bundle::load(dir, error);
  ASSERT_TRUE(bundle) << error;
  Launcher launcher(*bundle);
  alignas(16) static char fake[64];
  std::vector<TensorRef> results;
  TensorRef x{fake, DType::BF16, {4, 4096}}, w{fake, DType::BF16, {4096}};
  EXPECT_FALSE(launcher.run("", {x, w}, results, nullptr, error));
  EXPECT_FALSE(error.empty());
}
} // namespace
