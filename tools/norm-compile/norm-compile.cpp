//===- norm-compile.cpp - norm IR to a kernel bundle ----------------------===//
//
// Compiles a user-level norm program to a kernel bundle: <out>/kernels.ptx
// and <out>/manifest.json (see docs/bundle.md), then prints a summary of
// what was generated. This is what the Python package and the C++ runtime
// load; neither needs MLIR.
//
//   norm-compile examples/rms_norm_bwd.mlir -o build/bundles/rms_norm_bwd
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Target/Compile.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

/// norm-compile's own options: --help lists these alone, not the options of
/// every LLVM and MLIR library linked in (those still parse, e.g.
/// -vectorize-slp for an experiment; --help-hidden lists them).
static cl::OptionCategory normCompileOptions("norm-compile options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<norm program>"), cl::Required,
                                      cl::cat(normCompileOptions));
static cl::opt<std::string> outputDir("o", cl::desc("Bundle directory"),
                                      cl::value_desc("dir"), cl::Required,
                                      cl::cat(normCompileOptions));
static cl::opt<std::string> chip("chip", cl::desc("Target GPU"),
                                 cl::init("sm_90"),
                                 cl::cat(normCompileOptions));
static cl::opt<std::string> features("features", cl::desc("PTX features"),
                                     cl::init("+ptx81"),
                                     cl::cat(normCompileOptions));
static cl::opt<int> optLevel("opt-level", cl::desc("LLVM opt level"),
                             cl::init(3), cl::cat(normCompileOptions));
static cl::opt<int64_t> splitSize("split-size",
                                  cl::desc("Rows per column partial (0: "
                                           "heuristic)"),
                                  cl::init(0), cl::cat(normCompileOptions));
static cl::opt<int64_t>
    minPartials("min-partials",
                cl::desc("Fewest column partials when M allows (-1: tuning "
                         "rule, 0: off)"),
                cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> minRowsPerPartial(
    "min-rows-per-partial",
    cl::desc("Fewest rows a column partial sums where min-partials spreads M "
             "(-1: tuning rule, 0: off)"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> maxPartials(
    "max-partials",
    cl::desc("Most column partials where min-partials spreads M (-1: tuning "
             "rule, 0: off)"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> numSMs("num-sms", cl::desc("Target multiprocessors"),
                               cl::init(132), cl::cat(normCompileOptions));
static cl::opt<int64_t> registerBudget(
    "register-budget",
    cl::desc("Elements of all full operands a thread keeps in registers"),
    cl::init(32), cl::cat(normCompileOptions));
static cl::opt<int64_t> numStages("num-stages",
                                  cl::desc("Software pipeline depth (1: off)"),
                                  cl::init(2), cl::cat(normCompileOptions));
static cl::opt<int64_t>
    rowsPerBlock("rows-per-block",
                 cl::desc("Rows per block without a split (0: tuning)"),
                 cl::init(0), cl::cat(normCompileOptions));
static cl::opt<int64_t> maxClusterSize(
    "max-cluster-size",
    cl::desc("Most blocks of a thread block cluster sharing a long row (1: "
             "no clusters)"),
    cl::init(16), cl::cat(normCompileOptions));
static cl::opt<int64_t> sharedStages(
    "shared-stages",
    cl::desc("Rows staged ahead in shared memory by bulk copies (0: register "
             "prefetch; -1: the tuning table, else the rule)"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<bool>
    streamRows("stream-rows",
               cl::desc("Stream forward rows in chunks, re-reading them from "
                        "L2 (experimental)"),
               cl::init(false), cl::cat(normCompileOptions));
static cl::opt<bool>
    persistent("persistent",
               cl::desc("Persistent grids for forwards over clusters (rows "
                        "strided by the grid, capped at launch)"),
               cl::init(true), cl::cat(normCompileOptions));
static cl::opt<int64_t> l2PrefetchRows(
    "l2-prefetch-rows",
    cl::desc("Rows (persistent grids: walk steps) ahead that forwards "
             "prefetch into L2 (0: off; -1: the tuning rule)"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> bulkStores(
    "bulk-stores",
    cl::desc("Staged kernels store their full outputs' rows by bulk copies "
             "from shared memory (1: on; 0: off; -1: the tuning rule)"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> shortRows(
    "short-rows",
    cl::desc("Rows below which kernels take their short version (kernels "
             "mixing row and column reductions as a row and a column kernel "
             "side by side, forwards streamed; a forward's range of rows "
             "becomes [0, this)); 0: never; -1: the tuning rules"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<int64_t> warpRows(
    "warp-rows",
    cl::desc(
        "Where a streamed forward's blocks hold several rows, each warp "
        "owns rows of its own: 1 wherever the rows divide among the warps, "
        "0 never, -1 the tuning rule"),
    cl::init(-1), cl::cat(normCompileOptions));
static cl::opt<bool>
    fpContract("fp-contract",
               cl::desc("Fuse the kernels' float multiplies and adds into "
                        "FMAs (as nvcc and Triton do)"),
               cl::init(true), cl::cat(normCompileOptions));
static cl::opt<int64_t> minBlocksPerSM(
    "min-blocks-per-sm",
    cl::desc("Blocks per SM the register allocation of row kernels must "
             "allow (0: the kernel's norm.min_blocks_per_sm, else the tuning "
             "table's or rule's, else ptxas chooses)"),
    cl::init(0), cl::cat(normCompileOptions));
static cl::opt<int64_t> combineLanes(
    "combine-lanes",
    cl::desc("Threads across the columns of a combine block (0: the tuning "
             "rule)"),
    cl::init(0), cl::cat(normCompileOptions));
static cl::opt<int64_t>
    combineThreads("combine-threads",
                   cl::desc("Threads of a combine block (0: the tuning rule)"),
                   cl::init(0), cl::cat(normCompileOptions));
static cl::opt<std::string> tuningTable(
    "tuning-table",
    cl::desc("Measured tuning table (default: $NORM_TUNING_TABLE, else the "
             "repository's tuning/h200.json; 'none' for the analytic rules)"),
    cl::init(""), cl::cat(normCompileOptions));
static cl::opt<bool> printPTX("print-ptx", cl::desc("Also print the PTX"),
                              cl::init(false), cl::cat(normCompileOptions));
static cl::opt<bool> quiet("quiet", cl::desc("No summary"), cl::init(false),
                           cl::cat(normCompileOptions));

static LogicalResult writeFile(StringRef path, StringRef contents) {
  std::string error;
  auto file = openOutputFile(path, &error);
  if (!file) {
    llvm::errs() << "norm-compile: " << error << "\n";
    return failure();
  }
  file->os() << contents;
  file->keep();
  return success();
}

/// A size expression as text: 4096, M, ceil(M/32), min(64,ceil(M/264)).
static std::string exprText(const llvm::json::Value &v) {
  if (auto i = v.getAsInteger())
    return std::to_string(*i);
  if (auto str = v.getAsString())
    return str->str();
  if (const auto *obj = v.getAsObject()) {
    if (const auto *args = obj->getArray("ceildiv"))
      if (args->size() == 2)
        return "ceil(" + exprText((*args)[0]) + "/" + exprText((*args)[1]) +
               ")";
    for (const char *name : {"min", "max"})
      if (const auto *args = obj->getArray(name))
        if (args->size() == 2)
          return std::string(name) + "(" + exprText((*args)[0]) + "," +
                 exprText((*args)[1]) + ")";
  }
  return "?";
}

static std::string shapeText(const llvm::json::Object &buffer) {
  std::string text = buffer.getString("dtype").value_or("?").str() + "[";
  if (const auto *shape = buffer.getArray("shape"))
    for (auto [i, d] : llvm::enumerate(*shape))
      text += (i ? "," : "") + exprText(d);
  return text + "]";
}

/// Prints one function of the manifest as a signature and its launches.
static void printFunction(const llvm::json::Object &f) {
  auto &os = llvm::outs();
  os << "  func @" << f.getString("function").value_or("?") << "(";
  if (const auto *args = f.getArray("arguments"))
    for (auto [i, a] : llvm::enumerate(*args))
      os << (i ? ", " : "") << a.getAsObject()->getString("name").value_or("?")
         << ": " << shapeText(*a.getAsObject());
  os << ") -> (";
  if (const auto *results = f.getArray("results"))
    for (auto [i, r] : llvm::enumerate(*results))
      os << (i ? ", " : "") << r.getAsString().value_or("?");
  os << ")\n";
  if (const auto *buffers = f.getArray("buffers"))
    for (const auto &b : *buffers)
      os << "    buffer " << b.getAsObject()->getString("name").value_or("?")
         << ": " << shapeText(*b.getAsObject()) << "\n";
  if (const auto *launches = f.getArray("launches"))
    for (const auto &l : *launches) {
      const auto *launch = l.getAsObject();
      os << "    launch " << launch->getString("kernel").value_or("?") << " <<<"
         << exprText(*launch->get("grid"))
         << (exprText(*launch->get("grid_y")) == "1"
                 ? ""
                 : " x " + exprText(*launch->get("grid_y")))
         << ", " << launch->getInteger("block").value_or(0);
      // Dynamic shared memory (rows staged by bulk copies), as in CUDA's
      // <<<grid, block, bytes>>>.
      if (int64_t shared = launch->getInteger("shared_bytes").value_or(0))
        os << ", " << shared;
      os << ">>>(";
      if (const auto *params = launch->getArray("params"))
        for (auto [i, p] : llvm::enumerate(*params)) {
          // A buffer (its descriptor or aligned pointer) or a size.
          const auto *param = p.getAsObject();
          const llvm::json::Value *size = param->get("value");
          os << (i ? ", " : "")
             << (size ? exprText(*size)
                      : param->getString("buffer").value_or("?").str());
        }
      os << ")\n";
    }
}

static unsigned countLines(StringRef text, StringRef needle) {
  unsigned count = 0;
  for (size_t pos = text.find(needle); pos != StringRef::npos;
       pos = text.find(needle, pos + 1))
    ++count;
  return count;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(normCompileOptions);
  cl::ParseCommandLineOptions(argc, argv, "norm program -> kernel bundle\n");

  auto input = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!input) {
    llvm::errs() << "norm-compile: cannot read " << inputFile << ": "
                 << input.getError().message() << "\n";
    return 1;
  }
  norm::NormToPTXOptions options;
  options.chip = chip;
  options.features = features;
  options.optLevel = optLevel;
  options.splitSize = splitSize;
  options.minPartials = minPartials;
  options.minRowsPerPartial = minRowsPerPartial;
  options.maxPartials = maxPartials;
  options.numSMs = numSMs;
  options.registerBudget = registerBudget;
  options.numStages = numStages;
  options.rowsPerBlock = rowsPerBlock;
  options.maxClusterSize = maxClusterSize;
  options.minBlocksPerSM = minBlocksPerSM;
  options.combineLanes = combineLanes;
  options.combineThreads = combineThreads;
  options.sharedStages = sharedStages;
  options.streamRows = streamRows;
  options.persistent = persistent;
  options.l2PrefetchRows = l2PrefetchRows;
  options.bulkStores = bulkStores;
  options.shortRows = shortRows;
  options.warpRows = warpRows;
  options.fpContract = fpContract;
  options.tuningTable = norm::defaultTuningTable(tuningTable);

  norm::CompiledBundle bundle;
  std::string diagnostics;
  if (!norm::compileToBundle((*input)->getBuffer().str(), inputFile, options,
                             bundle, diagnostics)) {
    llvm::errs() << diagnostics;
    return 1;
  }
  if (std::error_code ec = llvm::sys::fs::create_directories(outputDir)) {
    llvm::errs() << "norm-compile: cannot create " << outputDir << ": "
                 << ec.message() << "\n";
    return 1;
  }
  llvm::SmallString<256> ptxPath(outputDir), manifestPath(outputDir);
  llvm::sys::path::append(ptxPath, "kernels.ptx");
  llvm::sys::path::append(manifestPath, "manifest.json");
  if (failed(writeFile(ptxPath, bundle.ptx)) ||
      failed(writeFile(manifestPath, bundle.manifest)))
    return 1;

  if (printPTX)
    llvm::outs() << bundle.ptx;
  if (!quiet) {
    const std::string &ptx = bundle.ptx;
    llvm::outs() << "norm-compile: " << inputFile << " -> " << outputDir << " ("
                 << chip << ")\n";
    llvm::outs() << "  PTX: " << ptx.size() << " bytes, "
                 << countLines(ptx, ".entry") << " kernels, "
                 << countLines(ptx, "ld.global.v4") +
                        countLines(ptx, "ld.global.nc.v4")
                 << " 16-byte loads, " << countLines(ptx, "st.global.v4")
                 << " 16-byte stores, " << countLines(ptx, "shfl.sync")
                 << " warp shuffles\n";
    llvm::outs() << "  manifest: " << manifestPath << "\n";
    llvm::json::Value parsed =
        llvm::cantFail(llvm::json::parse(bundle.manifest));
    if (const auto *fs = parsed.getAsObject()->getArray("functions"))
      for (const auto &f : *fs)
        printFunction(*f.getAsObject());
  }
  return 0;
}
