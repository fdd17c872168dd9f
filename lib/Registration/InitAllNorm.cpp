//===- InitAllNorm.cpp - register everything norm provides ----------------===//

#include "NormDialect/InitAllNorm.h"

#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormDialect.h"
#include "NormDialect/Pipelines/Pipelines.h"
#include "NormDialect/Target/Passes.h"
#include "NormDialect/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/GPUCommon/GPUToLLVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

void mlir::norm::registerAllNorm(DialectRegistry &registry) {
  registry.insert<NormDialect>();
  registerBufferizableOpInterfaceExternalModels(registry);
  registerNormPipelineDependencies(registry);
}

void mlir::norm::registerNormPipelineDependencies(DialectRegistry &registry) {
  // one-shot-bufferize: the tensor ops norm-decompose builds around the
  // kernels, and the function boundaries.
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  // The conversions to LLVM: convert-gpu-to-nvvm (the kernels), gpu-to-llvm
  // (the host) and convert-to-llvm (the CPU loops) take the patterns of
  // every loaded dialect from its ConvertToLLVMPatternInterface, and the
  // NVVM target's memory spaces from its ConvertToLLVMAttrInterface
  // (buildGPUToPTXPipeline runs no separate func, arith or index pass).
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  gpu::registerConvertGpuToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  vector::registerConvertVectorToLLVMInterface(registry);
  // Serialization: the NVVM target and the translation of the kernels'
  // modules (and the CPU JIT's) to LLVM IR.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void mlir::norm::registerAllNormPasses() {
  registerNormPasses();
  registerNormConversionPasses();
  registerNormTargetPasses();
  registerNormPipelines();
}
