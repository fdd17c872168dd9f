//===- CombineKernelBuilder.cpp - norm.combine kernels --------------------===//
//
// A norm.combine sums the P partial rows of a split column reduction into
// one row (dW, dB). Each block owns CombineLayout::blockColumns() columns:
// its threads are `lanes` across the columns, each loading a vector of
// CombineLayout::vectorWidth f32 (16 bytes where N allows), times `groups`
// row groups: lane l of group g sums partial rows g, g + G, g + 2G, ... of
// its columns, with CombineLayout::unroll independent accumulators so that
// as many loads are in flight per thread. The G group totals of a column
// meet in shared memory after one barrier, and group 0 adds them in order
// g = 0..G-1 and writes the row. Every step has a fixed order
// that depends only on P and the layout (fixed at compile time), so results
// are bitwise reproducible from run to run (no atomics).
//
// The combine is a programmatic dependent launch (PDL) of the split kernel:
// that kernel's blocks signal griddepcontrol.launch_dependents once their
// rows are done, so the combine's launch overlaps their tail, and the
// combine's griddepcontrol.wait holds its blocks until the partials are
// complete.
//
// Why not one thread per column walking all P rows: at N = 1024 that is 4
// blocks on a 132-SM chip, each thread waiting on P / unroll dependent
// rounds of L2 latency; the combine then took about a third of the
// backward's time at M = 32768. chooseCombineLayout trades lanes against
// groups so that narrow rows (many partial rows) still get enough blocks and
// wide rows (a few partial rows from one wave of clusters) few, fat blocks.
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

/// What one thread loads at a time: an f32, or a vector of
/// layout.vectorWidth of them.
static Type loadType(OpBuilder &b, const CombineLayout &layout) {
  if (layout.vectorWidth == 1)
    return b.getF32Type();
  return VectorType::get({layout.vectorWidth}, b.getF32Type());
}

/// Emits at `b` the combine of one norm.combine (`partials` -> `output`)
/// for the block of index `block` among its ceil(N / blockColumns) blocks.
/// `totals` is the groups' shared buffer [groups][lanes] of loads (null
/// with one group).
static void emitCombine(OpBuilder &b, Location loc, const CombineLayout &layout,
                        Value partials, Value output, Value block, Value lane,
                        Value group, Value totals) {
  const int64_t groups = layout.groups();
  const int64_t unroll = layout.unroll, width = layout.vectorWidth;
  Type vecType = loadType(b, layout);
  Value col = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, block,
                            indexConst(b, loc, layout.blockColumns())),
      arith::MulIOp::create(b, loc, lane, indexConst(b, loc, width)));
  Value numPartials = memref::DimOp::create(b, loc, partials, 0);
  Value cols = memref::DimOp::create(b, loc, partials, 1);
  // N is a multiple of the vector width (chooseCombineLayout's caller), so
  // a vector is either inside the row or past its end.
  Value inside =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, cols);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(vecType));

  // Rounds of groups * unroll partial rows; accumulator j of group g takes
  // row round * groups * unroll + j * groups + g.
  SmallVector<Value> init(unroll, zero);
  auto loop = buildRowRounds(
      b, loc, numPartials, groups, unroll, group, inside, init,
      [&](OpBuilder &lb, Location l, RowOfRound rowAt, ValueRange accs) {
        SmallVector<Value> next;
        for (int64_t j = 0; j < unroll; ++j) {
          // Plain values, not a structured binding: the load's lambda
          // captures them (C++17).
          std::pair<Value, Value> row = rowAt(j);
          Value p = row.first, exists = row.second;
          // The adds come after all loads of the round (the guards are
          // branches around each load, not waits), so all of them are in
          // flight at once.
          Value v = loadOrZero(
              lb, l, exists, vecType, [&](OpBuilder &tb, Location tl) -> Value {
                if (width == 1)
                  return memref::LoadOp::create(tb, tl, partials,
                                                ValueRange{p, col});
                return loadAlignedVector(tb, tl, partials, ValueRange{p, col},
                                         width);
              });
          next.push_back(arith::AddFOp::create(lb, l, accs[j], v));
        }
        return next;
      });
  Value sum = loop.getResult(0);
  for (int64_t j = 1; j < unroll; ++j)
    sum = arith::AddFOp::create(b, loc, sum, loop.getResult(j));

  // The group totals meet in shared memory after one barrier, and group 0
  // adds them in order g = 0..G-1. (A pairwise tree, one barrier per level,
  // measured 3% slower for the whole LayerNorm backward at 32768 x 1024
  // with 32 groups: its five barriers cost more than 31 adds.)
  if (groups > 1) {
    memref::StoreOp::create(b, loc, sum, totals, ValueRange{group, lane});
    gpu::BarrierOp::create(b, loc);
  }
  Value firstGroup = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           group, indexConst(b, loc, 0));
  emitWhere(b, loc, firstGroup, [&](OpBuilder &tb, Location l) {
    Value total = sum;
    for (int64_t g = 1; g < groups; ++g)
      total = arith::AddFOp::create(
          tb, l, total,
          memref::LoadOp::create(tb, l, totals,
                                 ValueRange{indexConst(tb, l, g), lane}));
    Type element = cast<MemRefType>(output.getType()).getElementType();
    if (width > 1) {
      storeAlignedVector(tb, l, output, ValueRange{col},
                         vectorLanes(tb, l, total), inside);
      return;
    }
    emitWhere(tb, l, inside, [&](OpBuilder &sb, Location sl) {
      memref::StoreOp::create(sb, sl, roundTo(sb, sl, total, element), output,
                              col);
    });
  });
}

LogicalResult mlir::norm::buildCombineKernel(ArrayRef<CombineOp> ops,
                                             const CombineLayout &layout,
                                             gpu::GPUFuncOp func) {
  MLIRContext *ctx = func.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(&func.getBody().front());
  Location loc = CombineOp(ops.front()).getLoc();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value totals;
  if (layout.groups() > 1) {
    totals = addWorkgroupBuffer(func,
                                MemRefType::get({layout.groups(), layout.lanes},
                                                loadType(b, layout),
                                                AffineMap(), workgroup),
                                loc);
  }
  // Programmatic dependent launch (the bundle marks the launch so): the
  // blocks may be scheduled while the split kernel before it finishes, and
  // wait here until it has completed and its partial rows are visible. Run
  // without the launch attribute, the wait returns at once (the stream
  // already ordered the kernels).
  emitInlinePtx(b, loc, {}, "griddepcontrol.wait;");
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value bid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value lanes = indexConst(b, loc, layout.lanes);
  Value lane = arith::RemUIOp::create(b, loc, tid, lanes);
  Value group = arith::DivUIOp::create(b, loc, tid, lanes);
  if (ops.size() == 1) {
    emitCombine(b, loc, layout, func.getArgument(0), func.getArgument(1), bid,
                lane, group, totals);
    gpu::ReturnOp::create(b, loc);
    return success();
  }
  // Several combines in one launch (arguments: partials, output of each in
  // turn): combine k owns the ceil(N_k / blockColumns) blocks after those of
  // the combines before it. The branch is uniform over a block, so the
  // barriers inside it are reached by all of the block's threads or by none.
  Value columns = indexConst(b, loc, layout.blockColumns());
  Value first; // The first block of combine k (null: 0).
  for (size_t k = 0; k < ops.size(); ++k) {
    Value partials = func.getArgument(2 * k);
    Value output = func.getArgument(2 * k + 1);
    Value blocks = arith::CeilDivUIOp::create(
        b, loc, memref::DimOp::create(b, loc, partials, 1), columns);
    Value end = first ? arith::AddIOp::create(b, loc, first, blocks).getResult()
                      : blocks;
    Value mine =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, bid, end);
    if (first) {
      Value after =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, bid, first);
      mine = arith::AndIOp::create(b, loc, after, mine);
    }
    scf::IfOp::create(b, loc, mine, [&](OpBuilder &tb, Location l) {
      Value block =
          first ? arith::SubIOp::create(tb, l, bid, first).getResult() : bid;
      emitCombine(tb, l, layout, partials, output, block, lane, group, totals);
      scf::YieldOp::create(tb, l);
    });
    first = end;
  }
  gpu::ReturnOp::create(b, loc);
  return success();
}
