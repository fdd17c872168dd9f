//===- PtxBuilders.cpp - inline PTX for GPU kernel bodies -----------------===//

#include "PtxBuilders.h"

#include "GPUKernelBuilders.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <string>
#include <tuple>

using namespace mlir;
using namespace mlir::norm;

void mlir::norm::emitInlinePtx(OpBuilder &b, Location loc, ValueRange operands,
                               StringRef ptx) {
  NVVM::InlinePtxOp::create(b, loc, TypeRange{}, operands, ValueRange{}, ptx,
                            Value());
}

Value mlir::norm::elementAddress(OpBuilder &b, Location loc, Value memref,
                                 Value index, int64_t elementBytes) {
  Value base = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
  Value offset =
      arith::MulIOp::create(b, loc, index, indexConst(b, loc, elementBytes));
  return arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(), arith::AddIOp::create(b, loc, base, offset));
}

static StringRef evictionLevel(EvictionPriority priority) {
  return priority == EvictionPriority::evictLast ? "evict_last" : "evict_first";
}

Value mlir::norm::emitCachePolicy(OpBuilder &b, Location loc,
                                  EvictionPriority priority) {
  std::string ptx = ("createpolicy.fractional.L2::" + evictionLevel(priority) +
                     ".b64 $0, 1.0;")
                        .str();
  return NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI64Type()},
                                   ValueRange{}, ValueRange{}, ptx, Value())
      .getResult(0);
}

Value mlir::norm::emitGlobalBase(OpBuilder &b, Location loc, Value memref) {
  Value generic = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref));
  return NVVM::InlinePtxOp::create(b, loc, TypeRange{b.getI64Type()},
                                   ValueRange{generic}, ValueRange{},
                                   "cvta.to.global.u64 $0, $1;", Value())
      .getResult(0);
}

Value mlir::norm::globalElementAddress(OpBuilder &b, Location loc,
                                       Value globalBase, Value row, Value col,
                                       int64_t n, int64_t elementBytes) {
  Value linear = col;
  if (row)
    linear = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, row, indexConst(b, loc, n)),
        linear);
  Value offset = arith::IndexCastUIOp::create(
      b, loc, b.getI64Type(),
      arith::MulIOp::create(b, loc, linear, indexConst(b, loc, elementBytes)));
  return arith::AddIOp::create(b, loc, globalBase, offset);
}

/// The registers a global access of `type` (a vector or scalar of 2, 4, 8
/// or 16 bytes) moves: one of 16 bits for 2 bytes, else words of 32 bits;
/// their type, count and PTX suffix.
static std::tuple<Type, int64_t, std::string> accessWords(OpBuilder &b,
                                                          Type type) {
  auto vecType = dyn_cast<VectorType>(type);
  Type element = vecType ? vecType.getElementType() : type;
  int64_t lanes = vecType ? vecType.getNumElements() : 1;
  int64_t bytes = lanes * element.getIntOrFloatBitWidth() / 8;
  assert((bytes == 2 || bytes == 4 || bytes == 8 || bytes == 16) &&
         "a global access moves 2, 4, 8 or 16 bytes");
  if (bytes == 2)
    return {b.getI16Type(), 1, "b16"};
  return {b.getI32Type(), bytes / 4, "b32"};
}

/// The pieces of at most 16 bytes an access of `type` is made of: one for
/// 16 bytes or fewer, else 16-byte vectors (a column input wider than the
/// activations, an f32 weight beside bf16 rows, has vectors of 32 bytes;
/// sm_90 has no wider access, PTX's 256-bit ld/st needs sm_100).
static int64_t accessPieces(Type type) {
  auto vecType = dyn_cast<VectorType>(type);
  if (!vecType)
    return 1;
  int64_t bytes =
      vecType.getNumElements() * vecType.getElementTypeBitWidth() / 8;
  return bytes > kWidestAccessBytes ? bytes / kWidestAccessBytes : 1;
}

/// The global address of 16-byte piece `piece` of an access at `address`.
static Value pieceAddress(OpBuilder &b, Location loc, Value address,
                          int64_t piece) {
  return arith::AddIOp::create(
      b, loc, address,
      arith::ConstantOp::create(
          b, loc, b.getI64IntegerAttr(piece * kWidestAccessBytes)));
}

Value mlir::norm::emitGlobalLoad(OpBuilder &b, Location loc, Value address,
                                 Type type, Value inside,
                                 std::optional<CacheHint> hint) {
  if (int64_t pieces = accessPieces(type); pieces > 1) {
    auto vecType = cast<VectorType>(type);
    auto pieceType = VectorType::get({vecType.getNumElements() / pieces},
                                     vecType.getElementType());
    SmallVector<Value> loaded;
    for (int64_t p = 0; p < pieces; ++p)
      loaded.push_back(emitGlobalLoad(b, loc, pieceAddress(b, loc, address, p),
                                      pieceType, inside, hint));
    return concatVectors(b, loc, loaded);
  }
  auto vecType = dyn_cast<VectorType>(type);
  Type element = vecType ? vecType.getElementType() : type;
  int64_t lanes = vecType ? vecType.getNumElements() : 1;
  auto [word, words, bits] = accessWords(b, type);
  // Operands: the loaded words $0 .. $(words - 1), then the address, the
  // cache policy if any and the predicate if any.
  SmallVector<Value> operands = {address};
  if (hint)
    operands.push_back(hint->policy);
  if (inside)
    operands.push_back(inside);
  auto operand = [&](size_t i) { return "$" + std::to_string(words + i); };
  std::string zero, targets;
  for (int64_t w = 0; w < words; ++w) {
    if (inside)
      zero += "mov." + bits + " $" + std::to_string(w) + ", 0; ";
    targets += (w ? ", $" : "$") + std::to_string(w);
  }
  if (words > 1)
    targets = "{" + targets + "}";
  std::string load = "ld.global";
  if (hint)
    load += (".L1::" + evictionLevel(hint->priority) + ".L2::cache_hint").str();
  if (words > 1)
    load += ".v" + std::to_string(words);
  load += "." + bits + " " + targets + ", [" + operand(0) + "]";
  if (hint)
    load += ", " + operand(1);
  std::string ptx = inside ? "{ " + zero + "@" + operand(operands.size() - 1) +
                                 " " + load + "; }"
                           : load + ";";
  auto op = NVVM::InlinePtxOp::create(b, loc, SmallVector<Type>(words, word),
                                      operands, ValueRange{}, ptx, Value());
  if (inside)
    op->setAttr(kPredicateOperandAttr,
                b.getI64IntegerAttr(static_cast<int64_t>(operands.size()) - 1));
  Value packed = vector::FromElementsOp::create(
      b, loc, VectorType::get({words}, word), op.getResults());
  Value vec = vector::BitCastOp::create(
      b, loc, VectorType::get({lanes}, element), packed);
  if (vecType)
    return vec;
  return vector::ExtractOp::create(b, loc, vec, 0);
}

void mlir::norm::emitGlobalStore(OpBuilder &b, Location loc, Value address,
                                 Value value, Value inside) {
  if (int64_t pieces = accessPieces(value.getType()); pieces > 1) {
    int64_t lanes = cast<VectorType>(value.getType()).getNumElements() / pieces;
    for (int64_t p = 0; p < pieces; ++p)
      emitGlobalStore(b, loc, pieceAddress(b, loc, address, p),
                      vectorSlice(b, loc, value, p * lanes, lanes), inside);
    return;
  }
  auto vecType = dyn_cast<VectorType>(value.getType());
  Type element = vecType ? vecType.getElementType() : value.getType();
  auto [word, words, bits] = accessWords(b, value.getType());
  Value vec = vecType ? value
                      : vector::FromElementsOp::create(
                            b, loc, VectorType::get({1}, element), value);
  Value packed =
      vector::BitCastOp::create(b, loc, VectorType::get({words}, word), vec);
  // Operands: the address $0, the stored words $1 .. $words, then the
  // predicate if any.
  SmallVector<Value> operands = {address};
  std::string sources;
  for (int64_t w = 0; w < words; ++w) {
    operands.push_back(vector::ExtractOp::create(b, loc, packed, w));
    sources += (w ? ", $" : "$") + std::to_string(w + 1);
  }
  if (words > 1)
    sources = "{" + sources + "}";
  std::string store = "st.global";
  if (words > 1)
    store += ".v" + std::to_string(words);
  store += "." + bits + " [$0], " + sources + ";";
  if (inside) {
    operands.push_back(inside);
    store = "@$" + std::to_string(operands.size() - 1) + " " + store;
  }
  auto op = NVVM::InlinePtxOp::create(b, loc, TypeRange{}, operands,
                                      ValueRange{}, store, Value());
  if (inside)
    op->setAttr(kPredicateOperandAttr,
                b.getI64IntegerAttr(static_cast<int64_t>(operands.size()) - 1));
}

void mlir::norm::emitMbarrierInit(OpBuilder &b, Location loc, Value barrier) {
  emitInlinePtx(b, loc, barrier, "mbarrier.init.shared::cta.b64 [$0], 1;");
}

void mlir::norm::emitArriveExpectTx(OpBuilder &b, Location loc, Value barrier,
                                    Value bytes) {
  emitInlinePtx(b, loc, {barrier, bytes},
                "{ .reg .b64 state; mbarrier.arrive.expect_tx.shared::cta.b64 "
                "state, [$0], $1; }");
}

void mlir::norm::emitMbarrierWaitParity(OpBuilder &b, Location loc,
                                        Value barrier, Value phase,
                                        StringRef label) {
  emitInlinePtx(b, loc, {barrier, phase},
                ("{ .reg .pred done; " + label +
                 ": mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; "
                 "@!done bra " +
                 label + "; }")
                    .str());
}

Value mlir::norm::sliceElements(OpBuilder &b, Location loc, int64_t n,
                                int64_t width, Value columnBase) {
  Value elements = indexConst(b, loc, width);
  if (columnBase && n % width != 0)
    elements = arith::MinUIOp::create(
        b, loc, elements,
        arith::SubIOp::create(b, loc, indexConst(b, loc, n), columnBase));
  return elements;
}

void mlir::norm::emitRowPrefetchL2(OpBuilder &b, Location loc,
                                   ValueRange memrefs, Value row, Value rowEnd,
                                   int64_t n, Value columnBase, int64_t width,
                                   Value threadId) {
  Value go =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rowEnd);
  if (threadId)
    go = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, threadId,
                              indexConst(b, loc, 0)),
        go);
  scf::IfOp::create(b, loc, go, [&](OpBuilder &tb, Location l) {
    Value first = arith::MulIOp::create(tb, l, row, indexConst(tb, l, n));
    if (columnBase)
      first = arith::AddIOp::create(tb, l, first, columnBase);
    Value elements = sliceElements(tb, l, n, width, columnBase);
    for (Value memref : memrefs) {
      int64_t bytes =
          cast<MemRefType>(memref.getType()).getElementTypeBitWidth() / 8;
      Value size = tb.createOrFold<arith::IndexCastUIOp>(
          l, tb.getI32Type(),
          tb.createOrFold<arith::MulIOp>(l, elements,
                                         indexConst(tb, l, bytes)));
      emitInlinePtx(tb, l, {elementAddress(tb, l, memref, first, bytes), size},
                    "{ .reg .u64 global; cvta.to.global.u64 global, $0; "
                    "cp.async.bulk.prefetch.L2.global [global], $1; }");
    }
    scf::YieldOp::create(tb, l);
  });
}
