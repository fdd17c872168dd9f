// A host compiler's use of norm: register everything with the two hooks,
// run norm passes next to upstream ones, then compile to a bundle.
#include "NormDialect/InitAllNorm.h"
#include "NormDialect/Target/Compile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/raw_ostream.h"

static const char *kProgram = R"(
func.func @ln(%x: tensor<?x256xf32>, %w: tensor<256xf32>, %b: tensor<256xf32>)
    -> tensor<?x256xf32> {
  %y, %m, %r = norm.layer_norm %x weight(%w : tensor<256xf32>) bias(%b : tensor<256xf32>)
      {epsilon = 1.0e-5 : f64} : tensor<?x256xf32> -> tensor<?x256xf32>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x256xf32>
})";

int main() {
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::norm::registerAllNorm(registry);
  mlir::norm::registerAllNormPasses();
  mlir::registerCanonicalizerPass();
  mlir::MLIRContext context(registry);
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kProgram, &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  // Into a pass manager on builtin.module, the passes themselves: a
  // "builtin.module(...)" text would nest them on modules inside this one.
  if (mlir::failed(mlir::parsePassPipeline(
          "norm-decompose,norm-fuse-mixed-order,canonicalize", pm)))
    return 1;
  if (mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  int fused = 0;
  module->walk([&](mlir::Operation *op) {
    fused += op->getName().getStringRef() == "norm.fused";
  });
  llvm::outs() << "downstream passes: " << fused << " norm.fused\n";
  // The whole pipeline to PTX, in the host compiler's own context: the
  // dialects and norm's hooks are all it registers.
  auto program = mlir::parseSourceString<mlir::ModuleOp>(kProgram, &context);
  mlir::PassManager toPTX(&context);
  if (!program || mlir::failed(mlir::parsePassPipeline("norm-to-ptx", toPTX)) ||
      mlir::failed(toPTX.run(*program)))
    return 1;
  llvm::outs() << "downstream pipeline: "
               << llvm::range_size(program->getOps<mlir::gpu::BinaryOp>())
               << " gpu.binary\n";
  mlir::norm::CompiledBundle bundle;
  std::string diagnostics;
  if (!mlir::norm::compileToBundle(kProgram, "ln.mlir",
                                   mlir::norm::NormToPTXOptions(), bundle,
                                   diagnostics)) {
    llvm::errs() << diagnostics;
    return 1;
  }
  llvm::outs() << "downstream bundle: " << bundle.ptx.size() << " bytes of PTX, "
               << (bundle.ptx.find(".entry norm_fused") != std::string::npos
                       ? "has norm_fused"
                       : "no kernel")
               << "\n";
  return 0;
}
