//===- norm-compile.cpp - norm IR to a kernel bundle ----------------------===//
//
// Compiles a user-level norm program to a kernel bundle: <out>/kernels.ptx
// and <out>/manifest.json (see docs/bundle.md), then prints a summary of
// what was generated. This is what the Python package and the C++ runtime
// load; neither needs MLIR.
//
//   norm-compile examples/rms_norm_bwd.mlir -o build/bundles/rms_norm_bwd
//       [--chip=sm_90a --num-sms=114 ...]
//
// The compilation options are the norm-to-ptx pipeline's (NormToPTXOptions),
// passed through to its parser; norm-compile declares only its own.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Target/Compile.h"

#include "NormDialect/Pipelines/Pipelines.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/StringSet.h"
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

/// The names of the options `options` takes (its print() form,
/// "{name=value ...}").
static llvm::StringSet<> optionNames(const norm::NormToPTXOptions &options) {
  std::string text;
  llvm::raw_string_ostream os(text);
  options.print(os);
  llvm::StringSet<> names;
  StringRef rest = text;
  while (!rest.empty()) {
    rest = rest.ltrim(" {}");
    auto [name, tail] = rest.split('=');
    if (tail.empty() && name == rest)
      break;
    names.insert(name);
    rest = tail.drop_until([](char c) { return c == ' ' || c == '}'; });
  }
  return names;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(normCompileOptions);
  // The compilation options are the norm-to-ptx pipeline's own
  // (NormToPTXOptions), declared once there: `--name=value` for any of them
  // is handed to its parser; the rest is norm-compile's (and LLVM's).
  norm::NormToPTXOptions options;
  llvm::StringSet<> pipelineNames = optionNames(options);
  // The table is norm-compile's own: it has a default of its own
  // (defaultTuningTable).
  pipelineNames.erase("tuning-table");
  std::string pipelineArgs;
  std::vector<char *> ownArgs;
  bool help = false;
  for (int i = 0; i < argc; ++i) {
    StringRef arg = argv[i];
    StringRef flag = arg.starts_with("--")  ? arg.drop_front(2)
                     : arg.starts_with("-") ? arg.drop_front(1)
                                            : StringRef();
    help |= flag == "help" || flag == "h";
    if (i > 0 && !flag.empty() &&
        pipelineNames.contains(flag.split('=').first)) {
      pipelineArgs += (pipelineArgs.empty() ? "" : " ") + flag.str();
      continue;
    }
    ownArgs.push_back(argv[i]);
  }
  if (help) {
    // norm-compile's own options, then the pipeline's. The parser needs
    // its required arguments before it prints its help without exiting.
    const char *helpArgs[] = {argv[0], "<norm program>", "-o", "<dir>"};
    cl::ParseCommandLineOptions(4, helpArgs, "norm program -> kernel bundle\n");
    cl::PrintHelpMessage(/*Hidden=*/false, /*Categorized=*/true);
    llvm::outs() << "\nCompilation options (the norm-to-ptx pipeline's, as "
                    "--name=value):\n\n";
    options.printHelp(0, options.getOptionWidth() + 4);
    return 0;
  }
  cl::ParseCommandLineOptions(static_cast<int>(ownArgs.size()), ownArgs.data(),
                              "norm program -> kernel bundle\n");
  if (failed(options.parseFromString(pipelineArgs))) {
    llvm::errs() << "norm-compile: bad compilation options: " << pipelineArgs
                 << "\n";
    return 1;
  }

  auto input = llvm::MemoryBuffer::getFileOrSTDIN(inputFile);
  if (!input) {
    llvm::errs() << "norm-compile: cannot read " << inputFile << ": "
                 << input.getError().message() << "\n";
    return 1;
  }
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
                 << options.chip << ")\n";
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
