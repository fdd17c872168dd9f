//===- ColumnKernelBuilder.cpp - whole-column kernels ---------------------===//
//
// A norm.fused op whose outputs are all column outputs and that is not split
// (norm.whole_columns, from norm-short-rows) sums every row of its columns
// in one kernel. Each block owns CombineLayout::blockColumns() columns
// (chooseColumnKernelLayout): `lanes` threads across them, each loading a
// vector of vectorWidth elements of every full input (16 bytes), times
// `groups` row groups: lane l of group g evaluates the op's body for rows
// g, g + G, g + 2G, ... of its columns, `unroll` rows at a time whose loads
// are all issued before the first add. The groups' sums meet in shared
// memory after one barrier; then each thread adds one column's G sums in
// order g = 0..G-1 and stores it. Every order is fixed by M and the layout,
// so results are bitwise reproducible (no atomics).
//
// Such a kernel runs beside the row kernel of the same backward (the two
// read the same inputs and write different outputs): it is launched as a
// programmatic dependent of that kernel, which signals at its start, and
// waits for it only at its own end, so that work after the two in the
// stream still sees both complete.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelBuilders.h"
#include "PtxBuilders.h"

#include "NormDialect/Utils/KernelBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::norm;

namespace {

class ColumnKernelBuilder {
public:
  ColumnKernelBuilder(FusedOp op, const CombineLayout &layout)
      : op(op), body(op.getBody().front()), layout(layout) {}

  LogicalResult build(gpu::GPUFuncOp func, bool waitsAtEnd) {
    MLIRContext *ctx = func.getContext();
    OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
    Location loc = op.getLoc();
    const unsigned numInputs = op.getInputs().size();
    const unsigned numOutputs = op.getOutputs().size();
    auto args = func.getArguments();
    SmallVector<Value> inputs(args.take_front(numInputs));
    SmallVector<Value> outputs(args.drop_front(numInputs));
    for (Value v : cast<YieldOp>(body.getTerminator()).getValues())
      if (!v.getType().isF32())
        return op.emitOpError("column kernel: column outputs accumulate f32");

    const int64_t groups = layout.groups(), width = layout.vectorWidth;
    const int64_t columns = layout.blockColumns();
    auto workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    Value totals = addWorkgroupBuffer(
        func,
        MemRefType::get({static_cast<int64_t>(numOutputs), groups, columns},
                        b.getF32Type(), AffineMap(), workgroup),
        loc);

    Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value lanes = indexConst(b, loc, layout.lanes);
    Value lane = arith::RemUIOp::create(b, loc, tid, lanes);
    Value group = arith::DivUIOp::create(b, loc, tid, lanes);
    Value blockFirst =
        arith::MulIOp::create(b, loc, bid, indexConst(b, loc, columns));
    Value laneColumn =
        arith::MulIOp::create(b, loc, lane, indexConst(b, loc, width));
    Value col = arith::AddIOp::create(b, loc, blockFirst, laneColumn);
    // The M x N space's shape (the first full input: no full outputs here).
    Value source = inputs[llvm::find(op.getInputs(), op.getShapeSource()) -
                          op.getInputs().begin()];
    Value rows = memref::DimOp::create(b, loc, source, 0);
    Value cols = memref::DimOp::create(b, loc, source, 1);
    // N is whole vectors (chooseColumnKernelLayout): a lane's vector is
    // inside the row or past its end.
    Value inside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols);

    // Column inputs (weight, bias): once, before the rows.
    SmallVector<SmallVector<Value>> columnValues(numInputs);
    for (unsigned i = 0; i < numInputs; ++i)
      if (op.getInputRole(i) == Role::col)
        columnValues[i] = loadElements(b, loc, inputs[i], {col}, inside);

    // Rounds of groups x unroll rows; row j of a round is
    // round * groups * unroll + j * groups + group.
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    SmallVector<Value> init(numOutputs * width, zero);
    auto loop = buildRowRounds(
        b, loc, rows, groups, layout.unroll, group, inside, init,
        [&](OpBuilder &lb, Location l, RowOfRound rowAt, ValueRange accs) {
          // Every load of the round first (guards are branches around the
          // loads, not waits), then the adds in row order.
          SmallVector<Value> exists;
          SmallVector<SmallVector<SmallVector<Value>>> loaded;
          for (int64_t j = 0; j < layout.unroll; ++j) {
            std::pair<Value, Value> row = rowAt(j);
            Value r = row.first, ok = row.second;
            exists.push_back(ok);
            loaded.emplace_back(numInputs);
            for (unsigned i = 0; i < numInputs; ++i) {
              Role role = op.getInputRole(i);
              if (role == Role::full)
                loaded.back()[i] = loadElements(lb, l, inputs[i], {r, col}, ok);
              else if (role == Role::row)
                loaded.back()[i] = {loadOrZero(
                    lb, l, ok, body.getArgument(i).getType(),
                    [&](OpBuilder &tb, Location tl) -> Value {
                      return memref::LoadOp::create(tb, tl, inputs[i], r);
                    })};
            }
          }
          SmallVector<Value> next(accs.begin(), accs.end());
          for (int64_t j = 0; j < layout.unroll; ++j)
            for (int64_t e = 0; e < width; ++e) {
              IRMapping mapping;
              for (unsigned i = 0; i < numInputs; ++i) {
                Role role = op.getInputRole(i);
                Value v = role == Role::col   ? columnValues[i][e]
                          : role == Role::row ? loaded[j][i][0]
                                              : loaded[j][i][e];
                mapping.map(body.getArgument(i), v);
              }
              for (Operation &bodyOp : body.without_terminator())
                lb.clone(bodyOp, mapping);
              auto yield = cast<YieldOp>(body.getTerminator());
              for (unsigned o = 0; o < numOutputs; ++o) {
                Value &acc = next[o * width + e];
                Value sum = arith::AddFOp::create(
                    lb, l, acc, mapping.lookup(yield.getValues()[o]));
                acc = arith::SelectOp::create(lb, l, exists[j], sum, acc);
              }
            }
          return next;
        });

    // The groups' sums meet in shared memory.
    for (unsigned o = 0; o < numOutputs; ++o)
      for (int64_t e = 0; e < width; ++e)
        memref::StoreOp::create(
            b, loc, loop.getResult(o * width + e), totals,
            ValueRange{indexConst(b, loc, o), group,
                       arith::AddIOp::create(b, loc, laneColumn,
                                             indexConst(b, loc, e))});
    gpu::BarrierOp::create(b, loc);

    // Thread t adds the G sums of (output, column) t, t + threads, ... in
    // group order and stores the column.
    Value count = indexConst(b, loc, numOutputs * columns);
    scf::ForOp::create(
        b, loc, tid, count, indexConst(b, loc, layout.threads), ValueRange{},
        [&](OpBuilder &lb, Location l, Value index, ValueRange) {
          Value o =
              arith::DivUIOp::create(lb, l, index, indexConst(lb, l, columns));
          Value c =
              arith::RemUIOp::create(lb, l, index, indexConst(lb, l, columns));
          Value total = memref::LoadOp::create(
              lb, l, totals, ValueRange{o, indexConst(lb, l, 0), c});
          for (int64_t g = 1; g < groups; ++g)
            total = arith::AddFOp::create(
                lb, l, total,
                memref::LoadOp::create(lb, l, totals,
                                       ValueRange{o, indexConst(lb, l, g), c}));
          Value column = arith::AddIOp::create(lb, l, blockFirst, c);
          Value inRow = arith::CmpIOp::create(lb, l, arith::CmpIPredicate::ult,
                                              column, cols);
          // The output is chosen by index: one store per output, guarded.
          for (unsigned k = 0; k < numOutputs; ++k) {
            Value mine = arith::AndIOp::create(
                lb, l, inRow,
                arith::CmpIOp::create(lb, l, arith::CmpIPredicate::eq, o,
                                      indexConst(lb, l, k)));
            emitWhere(lb, l, mine, [&](OpBuilder &sb, Location sl) {
              Type element =
                  cast<MemRefType>(outputs[k].getType()).getElementType();
              memref::StoreOp::create(sb, sl, roundTo(sb, sl, total, element),
                                      outputs[k], column);
            });
          }
          scf::YieldOp::create(lb, l);
        });
    // See the file comment: this kernel completes only after the kernel it
    // runs beside.
    if (waitsAtEnd)
      emitInlinePtx(b, loc, {}, "griddepcontrol.wait;");
    gpu::ReturnOp::create(b, loc);
    return success();
  }

private:
  /// The vectorWidth elements of `memref` at `indices` (a vector load where
  /// wider than one), zeros where `inside` does not hold.
  SmallVector<Value> loadElements(OpBuilder &b, Location loc, Value memref,
                                  ValueRange indices, Value inside) {
    Type element = cast<MemRefType>(memref.getType()).getElementType();
    if (layout.vectorWidth == 1)
      return {loadOrZero(
          b, loc, inside, element, [&](OpBuilder &tb, Location l) -> Value {
            return memref::LoadOp::create(tb, l, memref, indices);
          })};
    Type type = VectorType::get({layout.vectorWidth}, element);
    Value vec = loadOrZero(
        b, loc, inside, type, [&](OpBuilder &tb, Location l) -> Value {
          return loadAlignedVector(tb, l, memref, indices, layout.vectorWidth);
        });
    return vectorLanes(b, loc, vec);
  }

  FusedOp op;
  Block &body;
  const CombineLayout &layout;
};

} // namespace

LogicalResult mlir::norm::buildColumnKernel(FusedOp op,
                                            const CombineLayout &layout,
                                            bool waitsAtEnd,
                                            gpu::GPUFuncOp func) {
  return ColumnKernelBuilder(op, layout).build(func, waitsAtEnd);
}
