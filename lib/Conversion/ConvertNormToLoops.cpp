//===- ConvertNormToLoops.cpp - norm kernels to scf loops -----------------===//
//
// The CPU reference lowering of bufferized norm kernels. For each row i:
// every norm.row_reduce becomes a loop over j carrying its accumulator (the
// values it needs are recomputed from the inputs, which is cheap on a CPU and
// keeps the lowering obviously correct), row outputs are stored once, and a
// final loop over j stores full outputs and accumulates column outputs in
// f32.
//
//===----------------------------------------------------------------------===//

#include "NormDialect/Conversion/Passes.h"
#include "NormDialect/IR/NormOps.h"
#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::norm {
#define GEN_PASS_DEF_CONVERTNORMTOLOOPS
#include "NormDialect/Conversion/Passes.h.inc"
} // namespace mlir::norm

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Emits `for (iv = 0; iv < upper; ++iv) body(iv)`.
static void forEach(OpBuilder &b, Location loc, Value upper,
                    llvm::function_ref<void(OpBuilder &, Value)> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  scf::ForOp::create(b, loc, zero, upper, one, ValueRange{},
                     [&](OpBuilder &nb, Location, Value iv, ValueRange) {
                       body(nb, iv);
                       scf::YieldOp::create(nb, loc);
                     });
}

/// Fills a memref with f32 zeros.
static void zeroFill(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  SmallVector<Value> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back(memref::DimOp::create(b, loc, buffer, d));
  if (type.getRank() == 1) {
    forEach(b, loc, dims[0], [&](OpBuilder &nb, Value j) {
      memref::StoreOp::create(nb, loc, zero, buffer, j);
    });
    return;
  }
  forEach(b, loc, dims[0], [&](OpBuilder &nb, Value p) {
    forEach(nb, loc, dims[1], [&](OpBuilder &nnb, Value j) {
      memref::StoreOp::create(nnb, loc, zero, buffer, ValueRange{p, j});
    });
  });
}

class FusedLowering {
public:
  FusedLowering(FusedOp op) : op(op), body(op.getBody().front()) {}

  LogicalResult lower(IRRewriter &rewriter) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value source = op.getShapeSource();
    Value rows = memref::DimOp::create(rewriter, loc, source, 0);
    Value cols = memref::DimOp::create(rewriter, loc, source, 1);
    Value rowsPerPartial = op.buildRowsPerPartial(rewriter, loc, rows);
    auto yield = cast<YieldOp>(body.getTerminator());

    // Column accumulators: the partial buffer itself when split, else an f32
    // N-vector rounded into the output at the end.
    SmallVector<Value> accumulators(op.getOutputs().size());
    for (auto [i, output] : llvm::enumerate(op.getOutputs())) {
      if (op.getOutputRole(i) != Role::col)
        continue;
      if (op.getRowsPerPartial()) {
        accumulators[i] = output;
      } else {
        auto type =
            MemRefType::get({ShapedType::kDynamic}, rewriter.getF32Type());
        accumulators[i] =
            memref::AllocOp::create(rewriter, loc, type, ValueRange{cols});
      }
      zeroFill(rewriter, loc, accumulators[i]);
    }

    LogicalResult status = success();
    forEach(rewriter, loc, rows, [&](OpBuilder &b, Value i) {
      IRMapping rowMapping;
      // Row inputs are loaded once per row.
      for (auto [k, input] : llvm::enumerate(op.getInputs()))
        if (op.getInputRole(k) == Role::row)
          rowMapping.map(body.getArgument(k),
                         memref::LoadOp::create(b, loc, input, i));
      // Row reductions, in body order: a loop over the row each.
      for (auto reduce : body.getOps<RowReduceOp>()) {
        Combiner combiner = reduce.getCombiner();
        Value init = combinerIdentity(b, loc, combiner);
        Value zero = arith::ConstantIndexOp::create(b, loc, 0);
        Value one = arith::ConstantIndexOp::create(b, loc, 1);
        auto loop = scf::ForOp::create(
            b, loc, zero, cols, one, ValueRange{init},
            [&](OpBuilder &nb, Location, Value j, ValueRange acc) {
              IRMapping mapping = rowMapping;
              mapElements(nb, loc, i, j, {reduce.getValue()}, mapping);
              if (failed(
                      cloneBodySlice(nb, body, {reduce.getValue()}, mapping)))
                status = failure();
              Value next = combine(nb, loc, combiner, acc[0],
                                   mapping.lookupOrDefault(reduce.getValue()));
              scf::YieldOp::create(nb, loc, next);
            });
        rowMapping.map(reduce.getResult(), loop.getResult(0));
      }
      // Row outputs: row-uniform, computed once.
      SmallVector<Value> perElement;
      for (auto [k, value] : llvm::enumerate(yield.getValues())) {
        if (op.getOutputRole(k) != Role::row) {
          perElement.push_back(value);
          continue;
        }
        if (failed(cloneBodySlice(b, body, {value}, rowMapping)))
          status = failure();
        memref::StoreOp::create(b, loc, rowMapping.lookupOrDefault(value),
                                op.getOutputs()[k], i);
      }
      if (perElement.empty())
        return;
      // Full outputs and column accumulation.
      Value partial;
      if (rowsPerPartial)
        partial = arith::DivUIOp::create(b, loc, i, rowsPerPartial);
      forEach(b, loc, cols, [&](OpBuilder &nb, Value j) {
        IRMapping mapping = rowMapping;
        mapElements(nb, loc, i, j, perElement, mapping);
        if (failed(cloneBodySlice(nb, body, perElement, mapping)))
          status = failure();
        for (auto [k, value] : llvm::enumerate(yield.getValues())) {
          Role role = op.getOutputRole(k);
          if (role == Role::row)
            continue;
          Value element = mapping.lookupOrDefault(value);
          if (role == Role::full) {
            memref::StoreOp::create(nb, loc, element, op.getOutputs()[k],
                                    ValueRange{i, j});
            continue;
          }
          SmallVector<Value> index =
              partial ? SmallVector<Value>{partial, j} : SmallVector<Value>{j};
          Value old = memref::LoadOp::create(nb, loc, accumulators[k], index);
          Value sum = arith::AddFOp::create(nb, loc, old, element);
          memref::StoreOp::create(nb, loc, sum, accumulators[k], index);
        }
      });
    });
    if (failed(status))
      return op.emitOpError("body reads a value the lowering did not provide");

    // Round unsplit column accumulators into their outputs.
    for (auto [i, output] : llvm::enumerate(op.getOutputs())) {
      if (op.getOutputRole(i) != Role::col || op.getRowsPerPartial())
        continue;
      Type element = cast<MemRefType>(output.getType()).getElementType();
      Value acc = accumulators[i];
      forEach(rewriter, loc, cols, [&](OpBuilder &b, Value j) {
        Value v = memref::LoadOp::create(b, loc, acc, j);
        memref::StoreOp::create(b, loc, roundTo(b, loc, v, element), output, j);
      });
      memref::DeallocOp::create(rewriter, loc, acc);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  /// Maps the full and column block arguments the slice of `targets` reads
  /// to loads at (i, j).
  void mapElements(OpBuilder &b, Location loc, Value i, Value j,
                   ArrayRef<Value> targets, IRMapping &mapping) {
    for (BlockArgument arg : argumentsUsedBy(body, targets, mapping)) {
      Value input = op.getInputs()[arg.getArgNumber()];
      Role role = op.getInputRole(arg.getArgNumber());
      if (role == Role::full)
        mapping.map(arg,
                    memref::LoadOp::create(b, loc, input, ValueRange{i, j}));
      else if (role == Role::col)
        mapping.map(arg, memref::LoadOp::create(b, loc, input, j));
    }
  }

  FusedOp op;
  Block &body;
};

static void lowerCombine(IRRewriter &rewriter, CombineOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value partials = op.getPartials();
  Value output = op.getOutput();
  Type element = cast<MemRefType>(output.getType()).getElementType();
  Value numPartials = memref::DimOp::create(rewriter, loc, partials, 0);
  Value cols = memref::DimOp::create(rewriter, loc, partials, 1);
  forEach(rewriter, loc, cols, [&](OpBuilder &b, Value j) {
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value init = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
    // Fixed order p = 0, 1, ...: the same bits on every run.
    auto loop = scf::ForOp::create(
        b, loc, zero, numPartials, one, ValueRange{init},
        [&](OpBuilder &nb, Location, Value p, ValueRange acc) {
          Value v = memref::LoadOp::create(nb, loc, partials, ValueRange{p, j});
          scf::YieldOp::create(
              nb, loc, ValueRange{arith::AddFOp::create(nb, loc, acc[0], v)});
        });
    memref::StoreOp::create(b, loc, roundTo(b, loc, loop.getResult(0), element),
                            output, j);
  });
  rewriter.eraseOp(op);
}

struct ConvertNormToLoopsPass
    : public mlir::norm::impl::ConvertNormToLoopsBase<ConvertNormToLoopsPass> {
  void runOnOperation() override {
    SmallVector<FusedOp> fused;
    SmallVector<CombineOp> combines;
    WalkResult walk = getOperation()->walk([&](Operation *op) {
      if (isa<ReduceOp, MapOp, RMSNormOp, LayerNormOp, RMSNormGradOp,
              LayerNormGradOp>(op)) {
        op->emitOpError("must be decomposed and fused into norm.fused "
                        "before convert-norm-to-loops");
        return WalkResult::interrupt();
      }
      if (auto f = dyn_cast<FusedOp>(op)) {
        if (f.getNumResults() != 0) {
          op->emitOpError("must be bufferized before convert-norm-to-loops");
          return WalkResult::interrupt();
        }
        fused.push_back(f);
      }
      if (auto c = dyn_cast<CombineOp>(op)) {
        if (!c.getResult().empty()) {
          op->emitOpError("must be bufferized before convert-norm-to-loops");
          return WalkResult::interrupt();
        }
        combines.push_back(c);
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    for (FusedOp op : fused)
      if (failed(FusedLowering(op).lower(rewriter)))
        return signalPassFailure();
    for (CombineOp op : combines)
      lowerCombine(rewriter, op);
  }
};

} // namespace
