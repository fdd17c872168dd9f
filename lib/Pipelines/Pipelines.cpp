//===- Pipelines.cpp - norm compilation pipelines -------------------------===//

#include "NormDialect/Pipelines/Pipelines.h"

#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/Target/NVVMTarget.h"
#include "NormDialect/Target/Passes.h"
#include "NormDialect/Transforms/Passes.h"
#include "NormDialect/Tuning/DeviceInfo.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::norm;

/// The target-independent half: user ops to bufferized norm kernels. The
/// row split of long rows is for GPUs (registers); the CPU loops do not need
/// it.
static void buildNormKernelPipeline(OpPassManager &pm,
                                    const NormToPTXOptions &options,
                                    bool splitLongRows) {
  // The device, declared once for every pass that plans kernels. The CPU
  // loops (no long-row split) plan their column splits without clusters.
  // Every kernel's plan is decided once, by norm-plan-kernels, before the
  // split reduction sizes its split from it.
  // Resources left 0 are the chip's GPU's (norm-set-target). A name that
  // is no chip plans for Hopper, and norm-attach-target refuses it with
  // the chips it takes; one before Ampere (sm_75) norm-set-target refuses.
  if (options.raise)
    pm.addPass(createNormRaise());
  NormSetTargetOptions target;
  int64_t capability = chipComputeCapability(options.chip);
  target.computeCapability = capability > 0 ? capability : kHopperCapability;
  target.numSMs = options.numSMs;
  target.registerBudget = options.registerBudget;
  target.maxClusterSize = splitLongRows ? options.maxClusterSize.getValue() : 1;
  target.maxThreads = options.maxThreads;
  target.sharedMemoryPerBlock = options.sharedMemoryPerBlock;
  target.sharedMemoryPerSM = options.sharedMemoryPerSM;
  target.threadsPerSM = options.threadsPerSM;
  target.registersPerSM = options.registersPerSM;
  pm.addPass(createNormSetTarget(target));
  pm.addPass(createNormDecompose());
  pm.addPass(createNormFuseMixedOrder());
  NormShortRowsOptions shortRows;
  shortRows.shortRows = options.shortRows;
  shortRows.warpRows = options.warpRows;
  pm.addPass(createNormShortRows(shortRows));
  if (splitLongRows) {
    NormSplitRowsOptions rows;
    rows.sharedStages = options.sharedStages;
    pm.addPass(createNormSplitRows(rows));
  }
  NormPlanKernelsOptions plan;
  plan.tuningTable = options.tuningTable;
  plan.sharedStages = options.sharedStages;
  plan.streamRows = options.streamRows;
  plan.persistent = options.persistent;
  plan.l2PrefetchRows = options.l2PrefetchRows;
  plan.bulkStores = options.bulkStores;
  plan.minBlocksPerSM = options.minBlocksPerSM;
  plan.rowsPerBlock = options.rowsPerBlock;
  pm.addPass(createNormPlanKernels(plan));
  NormSplitReductionOptions split;
  split.splitSize = options.splitSize;
  split.minPartials = options.minPartials;
  split.minRowsPerPartial = options.minRowsPerPartial;
  split.maxPartials = options.maxPartials;
  pm.addPass(createNormSplitReduction(split));
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Kernels index contiguous rows with 16-byte vectors: keep function
  // arguments in the identity layout rather than fully dynamic strides.
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
}

void mlir::norm::buildNormToGPUPipeline(OpPassManager &pm,
                                        const NormToPTXOptions &options) {
  buildNormKernelPipeline(pm, options, /*splitLongRows=*/true);
  ConvertNormToGPUOptions gpu;
  gpu.combineLanes = options.combineLanes;
  gpu.combineThreads = options.combineThreads;
  gpu.fpContract = options.fpContract;
  pm.addPass(createConvertNormToGPU(gpu));
  // The cleanups and the pipelining run nested on each kernel's gpu.module
  // and on the host function (nestAny), so the kernels take them in
  // parallel, and --verify-each verifies each kernel's module instead of the
  // whole program after every one of them.
  OpPassManager &cleanup = pm.nestAny();
  // Bottom-up: the kernel builders emit long blocks of straight-line
  // arithmetic whose folds start at the leaves (constants, index math); the
  // default top-down walk re-visits the users of every fold and took 28 of
  // 170 ms for the LayerNorm backward at N = 65536, bottom-up 3 ms, with
  // the same PTX for all 98 benchmark bundles.
  GreedyRewriteConfig bottomUp;
  bottomUp.setUseTopDownTraversal(false);
  cleanup.addPass(createCanonicalizerPass(bottomUp));
  cleanup.addPass(createCSEPass());
  NormPipelineOptions pipelining;
  pipelining.numStages = options.numStages;
  cleanup.addPass(createNormPipeline(pipelining));
  cleanup.addPass(createCanonicalizerPass());
  // Last, so that the bundle manifest (describeLaunches, on this IR) and the
  // kernels agree on their parameters.
  pm.addPass(createNormCompactKernelArgs());
}

/// Upstream's gpu-lower-to-nvvm-pipeline (LLVM 22.1, with its options), cut
/// to what convert-norm-to-gpu's kernels need and arranged so that the
/// kernels' modules, one per kernel, lower and serialize in parallel: the
/// op-agnostic passes run nested on each module and host function (nestAny)
/// instead of once over the whole module, and norm-serialize-kernels takes
/// gpu-module-to-binary's place. Outlining (a no-op for norm's kernels:
/// convert-norm-to-gpu outlines) and attaching the target move first;
/// neither reads what the others write. Where it differs from upstream's,
/// and why:
///  - norm-attach-target instead of nvvm-attach-target: it checks the chip
///    and PTX features before it attaches them (upstream's crashes on an
///    empty chip, and LLVM aborts on a target the kernels cannot use).
///  - no convert-vector-to-scf: it unrolls n-D vector transfers into 1-D
///    ones, which this pipeline (like upstream's) does not lower further, so
///    IR holding transfers fails either way; the kernels hold none (their
///    vector ops are 1-D loads, stores, extracts and bitcasts, which the NVVM
///    conversion lowers), and the pass walked every kernel for nothing, ~5 ms
///    of the LayerNorm backward's 0.2 s.
///  - no convert-func-to-llvm, convert-arith-to-llvm or
///    convert-index-to-llvm: convert-gpu-to-nvvm (the kernels) and
///    gpu-to-llvm (the host) apply the ConvertToLLVMPatternInterface
///    patterns of every loaded dialect, which are those passes' patterns, in
///    their own conversion. Each pass was one more walk of every module and,
///    under --verify-each, one more verification of it: ~15 ms.
///  - convert-nvvm-to-llvm stays before the kernels' conversion: it must see
///    the inline-PTX ops' operands before their constants become
///    llvm.mlir.constant, which it would fold into the PTX text as
///    immediates (a predicate `true` prints as `@-1`, which ptxas rejects).
/// The PTX of all 194 default bundles is byte-identical to upstream's
/// arrangement.
void mlir::norm::buildGPUToPTXPipeline(OpPassManager &pm,
                                       const NormToPTXOptions &options) {
  NormAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  // Outlining first, so that kernels outlined from gpu.launch get the
  // target too.
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createNormAttachTarget(target));
  OpPassManager &toLLVM = pm.nestAny();
  // FP8 roundings left for chips without the conversion instruction
  // (convert-norm-to-gpu lowers them on sm_89 and newer).
  toLLVM.addPass(createNormExpandFloat8());
  toLLVM.addPass(createConvertNVGPUToNVVMPass());
  toLLVM.addPass(createSCFToControlFlowPass());
  toLLVM.addPass(createConvertNVVMToLLVMPass());
  toLLVM.addPass(memref::createExpandStridedMetadataPass());
  toLLVM.addPass(createLowerAffinePass());
  // No canonicalize / CSE here: the kernels get theirs after the NVVM
  // conversion below, and the host's after serialization. Without them the
  // PTX of all 194 default bundles was byte-identical and the LayerNorm
  // backward compiled ~5 ms sooner.

  // The kernels, one gpu.module each, in parallel.
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.indexBitwidth = 64;
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // The conversion leaves casts and constants to fold, not control flow to
  // simplify: one sweep without region simplification gives the same PTX
  // (all 194 default bundles) as the default canonicalizer at half its cost.
  GreedyRewriteConfig oneSweep;
  oneSweep.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  oneSweep.setMaxIterations(1);
  kernels.addPass(createCanonicalizerPass(oneSweep));
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // The host.
  pm.addPass(createGpuToLLVMConversionPass());
  NormSerializeKernelsOptions serialize;
  serialize.format = "isa";
  pm.addPass(createNormSerializeKernels(serialize));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::norm::buildNormToPTXPipeline(OpPassManager &pm,
                                        const NormToPTXOptions &options) {
  buildNormToGPUPipeline(pm, options);
  buildGPUToPTXPipeline(pm, options);
}

void mlir::norm::buildNormToCPUPipeline(OpPassManager &pm,
                                        const NormToPTXOptions &options) {
  buildNormKernelPipeline(pm, options, /*splitLongRows=*/false);
  buildNormLoopsToLLVMPipeline(pm);
}

void mlir::norm::buildNormLoopsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(createConvertNormToLoops());
  // The rest of a module that mixes norm with other work (norm-raise's
  // output: the host's matmuls and softmaxes), by upstream's lowering:
  // linalg to loops, and math functions LLVM has no intrinsic for (erf) as
  // libm calls, after those it has (rsqrt, which libm has not) became
  // LLVM's.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createNormExpandFloat8());
  // bf16 truncation and extension as integer arithmetic: LLVM lowers a
  // float -> bfloat fptrunc to a __truncsfbf2 call on hosts without bf16
  // conversion instructions (AMD EPYC here), and the JIT finds no such
  // symbol in libgcc 12.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::norm::registerNormPipelines() {
  PassPipelineRegistration<NormToPTXOptions>(
      "norm-to-cpu",
      "Lower user-level norm IR to the LLVM dialect through CPU loops",
      buildNormToCPUPipeline);
  PassPipelineRegistration<NormToPTXOptions>(
      "norm-to-gpu",
      "Lower user-level norm IR to gpu.module kernels and launches",
      buildNormToGPUPipeline);
  PassPipelineRegistration<NormToPTXOptions>(
      "norm-to-ptx",
      "Lower user-level norm IR to a gpu.binary holding PTX (sm_90 default)",
      buildNormToPTXPipeline);
}
