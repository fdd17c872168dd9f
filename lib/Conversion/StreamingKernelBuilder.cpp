//===- StreamingKernelBuilder.cpp - statistics kernels over long rows -----===//

#include "GPUKernelBuilders.h"

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Code generation of a statistics-only kernel (norm.row_reduce ops and row
/// outputs) over rows too long to keep in registers: one row per block, each
/// reduction streams the row in vector chunks (a second reduction that
/// depends on the first reads the row again, mostly from L2).
class StreamingKernelBuilder {
public:
  StreamingKernelBuilder(FusedOp op, RowLayout layout, int64_t n)
      : op(op), body(op.getBody().front()), layout(layout), n(n) {}

  LogicalResult build(gpu::GPUFuncOp func) {
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    unsigned numInputs = op.getInputs().size();
    auto args = func.getArguments();
    SmallVector<Value> inputs(args.take_front(numInputs));
    SmallVector<Value> outputs(args.drop_front(numInputs));
    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value row = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);

    IRMapping rowMapping;
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::row)
        rowMapping.map(body.getArgument(i),
                       memref::LoadOp::create(b, loc, inputs[i], row));

    int64_t perIteration = layout.sliceWidth();
    int64_t iterations = (n + perIteration - 1) / perIteration;
    bool exact = n % perIteration == 0;
    for (RowReduceOp reduce : body.getOps<RowReduceOp>()) {
      Combiner combiner = reduce.getCombiner();
      Value identity = combinerIdentity(b, loc, combiner);
      SmallVector<BlockArgument> used =
          argumentsUsedBy(body, {reduce.getValue()}, rowMapping);
      LogicalResult status = success();
      auto loop = scf::ForOp::create(
          b, loc, indexConst(b, loc, 0), indexConst(b, loc, iterations),
          indexConst(b, loc, 1), ValueRange{identity},
          [&](OpBuilder &lb, Location l, Value it, ValueRange acc) {
            Value partial = acc[0];
            Value base = arith::MulIOp::create(lb, l, it,
                                               indexConst(lb, l, perIteration));
            for (int64_t c = 0; c < layout.chunksPerThread; ++c) {
              Value chunk = arith::AddIOp::create(
                  lb, l, indexConst(lb, l, c * layout.threads), tid);
              Value col = arith::AddIOp::create(
                  lb, l, base,
                  arith::MulIOp::create(lb, l, chunk,
                                        indexConst(lb, l, layout.vectorWidth)));
              Value inside =
                  exact
                      ? Value()
                      : arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                              col, indexConst(lb, l, n))
                            .getResult();
              std::vector<IRMapping> lanes(layout.vectorWidth, rowMapping);
              for (BlockArgument arg : used) {
                unsigned i = arg.getArgNumber();
                Value index[2] = {row, col};
                ValueRange indices =
                    op.getInputRole(i) == Role::full
                        ? ValueRange(index)
                        : ValueRange(ArrayRef(index).drop_front());
                SmallVector<Value> scalars =
                    loadVector(lb, l, inputs[i], indices, inside);
                for (int64_t v = 0; v < layout.vectorWidth; ++v)
                  lanes[v].map(arg, scalars[v]);
              }
              for (int64_t v = 0; v < layout.vectorWidth; ++v) {
                if (failed(cloneBodySlice(lb, body, {reduce.getValue()},
                                          lanes[v])))
                  status = failure();
                Value x = lanes[v].lookup(reduce.getValue());
                if (inside)
                  x = arith::SelectOp::create(lb, l, inside, x, identity);
                partial = combine(lb, l, combiner, partial, x);
              }
            }
            scf::YieldOp::create(lb, l, partial);
          });
      if (failed(status))
        return op.emitOpError("statistics kernel reads a value the streaming "
                              "lowering does not provide");
      auto kind = combiner == Combiner::add ? gpu::AllReduceOperation::ADD
                                            : gpu::AllReduceOperation::MAXIMUMF;
      Value total = gpu::AllReduceOp::create(
          b, loc, loop.getResult(0),
          gpu::AllReduceOperationAttr::get(b.getContext(), kind),
          /*uniform=*/true);
      gpu::BarrierOp::create(b, loc); // See FusedKernelBuilder::emitRow.
      rowMapping.map(reduce.getResult(), total);
    }
    auto yield = cast<YieldOp>(body.getTerminator());
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                        indexConst(b, loc, 0));
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      if (failed(cloneBodySlice(b, body, {value}, rowMapping)))
        return op.emitOpError("row output reads a per-element value");
      Value result = rowMapping.lookupOrDefault(value);
      Value out = outputs[k];
      scf::IfOp::create(b, loc, first, [&](OpBuilder &tb, Location l) {
        memref::StoreOp::create(tb, l, result, out, row);
        scf::YieldOp::create(tb, l);
      });
    }
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// A guarded 16-byte (or narrower) vector load, as scalars.
  SmallVector<Value> loadVector(OpBuilder &b, Location loc, Value memref,
                                ValueRange index, Value inside) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    auto vecType = VectorType::get({layout.vectorWidth}, element);
    int64_t alignment =
        layout.vectorWidth * element.getIntOrFloatBitWidth() / 8;
    auto load = [&](OpBuilder &lb, Location l) -> Value {
      return vector::LoadOp::create(lb, l, vecType, memref, index,
                                    /*nontemporal=*/false,
                                    lb.getI64IntegerAttr(alignment));
    };
    Value vec = loadOrZero(b, loc, inside, vecType, load);
    SmallVector<Value> scalars;
    for (int64_t v = 0; v < layout.vectorWidth; ++v)
      scalars.push_back(vector::ExtractOp::create(b, loc, vec, v));
    return scalars;
  }

  FusedOp op;
  Block &body;
  RowLayout layout;
  int64_t n;
};

} // namespace

LogicalResult mlir::norm::buildStreamingKernel(FusedOp op,
                                               const RowLayout &layout,
                                               int64_t n, gpu::GPUFuncOp func) {
  return StreamingKernelBuilder(op, layout, n).build(func);
}
