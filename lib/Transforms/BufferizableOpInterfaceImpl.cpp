//===- BufferizableOpInterfaceImpl.cpp - bufferization of norm kernels ----===//
//
// norm.fused and norm.combine are in destination-passing style, so the
// upstream DstBufferizableOpInterfaceExternalModel provides the analysis
// answers; bufferize() rebuilds the op on memrefs. Their outputs are written
// without being read, which lets one-shot bufferization reuse any buffer.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/IR/DstBufferizableOpInterfaceImpl.h"

using namespace mlir;
using namespace mlir::bufferization;
using namespace mlir::norm;

namespace {

/// Looks up the buffers of `values`.
static FailureOr<SmallVector<Value>>
buffersOf(RewriterBase &rewriter, ValueRange values,
          const BufferizationOptions &options, BufferizationState &state) {
  SmallVector<Value> buffers;
  for (Value value : values) {
    FailureOr<Value> buffer = getBuffer(rewriter, value, options, state);
    if (failed(buffer))
      return failure();
    buffers.push_back(*buffer);
  }
  return buffers;
}

/// The upstream model for destination-style ops, except that the outputs
/// of norm kernels are written without being read.
template <typename ConcreteModel, typename OpTy>
struct WriteOnlyInitsModel
    : public DstBufferizableOpInterfaceExternalModel<ConcreteModel, OpTy> {
  bool bufferizesToMemoryRead(Operation *op, OpOperand &operand,
                              const AnalysisState &) const {
    return !cast<DestinationStyleOpInterface>(op).isDpsInit(&operand);
  }
};

struct FusedOpInterface
    : public WriteOnlyInitsModel<FusedOpInterface, FusedOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto fused = cast<FusedOp>(op);
    auto inputs = buffersOf(rewriter, fused.getInputs(), options, state);
    auto outputs = buffersOf(rewriter, fused.getOutputs(), options, state);
    if (failed(inputs) || failed(outputs))
      return failure();
    rewriter.setInsertionPoint(op);
    auto memrefOp = FusedOp::create(
        rewriter, op->getLoc(), TypeRange{}, *inputs, fused.getRoles(),
        *outputs, fused.getOutputRoles(), fused.getRowsPerPartialAttr(),
        fused.getMinPartialsAttr(), fused.getMinRowsPerPartialAttr(),
        fused.getMaxPartialsAttr(), fused.getGroupSizeAttr());
    // Discardable attributes (norm.whole_columns, per-kernel settings such
    // as norm.rows_per_block) describe the kernel, not its operands' types.
    for (NamedAttribute attr : fused->getDiscardableAttrs())
      memrefOp->setAttr(attr.getName(), attr.getValue());
    rewriter.inlineRegionBefore(fused.getBody(), memrefOp.getBody(),
                                memrefOp.getBody().end());
    replaceOpWithBufferizedValues(rewriter, op, *outputs);
    return success();
  }
};

struct CombineOpInterface
    : public WriteOnlyInitsModel<CombineOpInterface, CombineOp> {
  LogicalResult bufferize(Operation *op, RewriterBase &rewriter,
                          const BufferizationOptions &options,
                          BufferizationState &state) const {
    auto combine = cast<CombineOp>(op);
    FailureOr<Value> partials =
        getBuffer(rewriter, combine.getPartials(), options, state);
    FailureOr<Value> output =
        getBuffer(rewriter, combine.getOutput(), options, state);
    if (failed(partials) || failed(output))
      return failure();
    rewriter.setInsertionPoint(op);
    CombineOp::create(rewriter, op->getLoc(), TypeRange{}, *partials, *output);
    replaceOpWithBufferizedValues(rewriter, op, *output);
    return success();
  }
};

} // namespace

void mlir::norm::registerBufferizableOpInterfaceExternalModels(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, NormDialect *) {
    FusedOp::attachInterface<FusedOpInterface>(*ctx);
    CombineOp::attachInterface<CombineOpInterface>(*ctx);
  });
}
