//===- Norm.cpp - C API of the norm dialect -------------------------------===//

#include "NormDialect-c/Norm.h"

#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/InitAllNorm.h"
#include "NormDialect/Target/Compile.h"
#include "NormDialect/Target/CpuJit.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Norm, norm, mlir::norm::NormDialect)

void mlirNormRegisterAll(MlirDialectRegistry registry) {
  mlir::norm::registerAllNorm(*unwrap(registry));
}

void mlirNormRegisterPasses(void) { mlir::norm::registerAllNormPasses(); }

static char *copyString(const std::string &s) {
  char *out = static_cast<char *>(std::malloc(s.size() + 1));
  std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

bool mlirNormCompile(const char *source, const char *sourceName,
                     const char *options, MlirNormBundle *bundle) {
  if (!bundle)
    return false;
  bundle->ptx = bundle->manifest = bundle->diagnostics = nullptr;
  mlir::norm::NormToPTXOptions parsed;
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (options && *options &&
      mlir::failed(parsed.parseFromString(options, errorStream))) {
    bundle->ptx = copyString("");
    bundle->manifest = copyString("");
    bundle->diagnostics =
        copyString("invalid norm-to-ptx options '" + std::string(options) +
                   "': " + errors);
    return false;
  }
  parsed.tuningTable = mlir::norm::defaultTuningTable(parsed.tuningTable);
  mlir::norm::CompiledBundle out;
  std::string diagnostics;
  bool ok = mlir::norm::compileToBundle(source ? source : "",
                                        sourceName ? sourceName : "<source>",
                                        parsed, out, diagnostics);
  bundle->ptx = copyString(out.ptx);
  bundle->manifest = copyString(out.manifest);
  bundle->diagnostics = copyString(diagnostics);
  return ok;
}

void mlirNormBundleDestroy(MlirNormBundle *bundle) {
  if (!bundle)
    return;
  std::free(bundle->ptx);
  std::free(bundle->manifest);
  std::free(bundle->diagnostics);
  bundle->ptx = bundle->manifest = bundle->diagnostics = nullptr;
}

const char *mlirNormCompilerVersion(void) {
  return mlir::norm::compilerVersion();
}

bool mlirNormCpuProgramCreate(const char *source, const char *sourceName,
                              MlirNormCpuProgram *program,
                              char **diagnostics) {
  if (!program || !diagnostics)
    return false;
  std::string messages;
  std::unique_ptr<mlir::norm::CpuJit> jit = mlir::norm::CpuJit::create(
      source ? source : "", sourceName ? sourceName : "<source>", messages);
  *diagnostics = nullptr;
  program->ptr = nullptr;
  if (!jit) {
    *diagnostics = copyString(messages);
    return false;
  }
  program->ptr = jit.release();
  return true;
}

/// Sets `*out` (when the caller gave somewhere to put it) and returns false.
static bool fail(char **out, const std::string &message) {
  if (out)
    *out = copyString(message);
  return false;
}

bool mlirNormCpuProgramRun(MlirNormCpuProgram program, const char *function,
                           void **descriptors, intptr_t numArgs,
                           char **error) {
  if (error)
    *error = nullptr;
  if (!program.ptr)
    return fail(error, "mlirNormCpuProgramRun: null program");
  if (numArgs < 0)
    return fail(error, "mlirNormCpuProgramRun: negative argument count " +
                           std::to_string(numArgs));
  if (numArgs > 0 && !descriptors)
    return fail(error, "mlirNormCpuProgramRun: " + std::to_string(numArgs) +
                           " arguments but a null descriptor array");
  std::string message;
  std::vector<void *> args(descriptors, descriptors + numArgs);
  if (static_cast<mlir::norm::CpuJit *>(program.ptr)
          ->invoke(function ? function : "", args, message))
    return true;
  return fail(error, message);
}

bool mlirNormCpuProgramArgumentTypes(MlirNormCpuProgram program,
                                     const char *function, char **types,
                                     char **error) {
  if (types)
    *types = nullptr;
  if (error)
    *error = nullptr;
  if (!program.ptr || !types)
    return fail(error, "mlirNormCpuProgramArgumentTypes: null program or "
                       "result pointer");
  std::string name = function ? function : "";
  const mlir::norm::CpuSignature *signature =
      static_cast<mlir::norm::CpuJit *>(program.ptr)->signature(name);
  if (!signature)
    return fail(error, "no public function @" + name + " in the program");
  if (!signature->notCallable.empty())
    return fail(error,
                "@" + name + " cannot be called: " + signature->notCallable);
  std::string text;
  for (const mlir::norm::CpuArgument &argument : signature->arguments)
    text += argument.type + "\n";
  *types = copyString(text);
  return true;
}

void mlirNormCpuProgramDestroy(MlirNormCpuProgram program) {
  delete static_cast<mlir::norm::CpuJit *>(program.ptr);
}

void mlirNormStringDestroy(char *string) { std::free(string); }
