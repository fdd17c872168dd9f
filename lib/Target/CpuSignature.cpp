//===- CpuSignature.cpp - what a CPU program's caller must pass -----------===//

#include "NormDialect/Target/CpuSignature.h"

#include "NormDialect/IR/NormOps.h"
#include "NormDialect/IR/NormShapes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/IntEqClasses.h"

#include <cstring>
#include <sstream>

using namespace mlir;
using namespace mlir::norm;

namespace {

/// Union-find over the dimensions of a function's shaped values, plus the
/// iteration-space dimensions (M, N) of roled ops, which have no value.
class SizeClasses {
public:
  unsigned fresh() {
    classes.grow(next + 1);
    return next++;
  }

  unsigned of(Value value, unsigned dim) {
    auto [it, inserted] = ids.try_emplace({value, dim}, next);
    if (inserted)
      fresh();
    return it->second;
  }

  void join(unsigned a, unsigned b) { classes.join(a, b); }

  /// Joins dimension `da` of `a` with dimension `db` of `b` where both exist.
  void tie(Value a, unsigned da, Value b, unsigned db) {
    if (rank(a) > da && rank(b) > db)
      join(of(a, da), of(b, db));
  }

  /// Joins every dimension of `a` with the same one of `b`.
  void tieAll(Value a, Value b) {
    if (!a || !b || rank(a) != rank(b))
      return;
    for (unsigned d = 0, e = rank(a); d < e; ++d)
      tie(a, d, b, d);
  }

  /// A per-row statistic has the leading dimensions of its activation.
  void tieRows(Value activation, Value stats) {
    if (!activation || !stats || rank(stats) + 1 != rank(activation))
      return;
    for (unsigned d = 0, e = rank(stats); d < e; ++d)
      tie(activation, d, stats, d);
  }

  /// A weight or bias has the normalized (last) dimension of its activation.
  void tieColumns(Value activation, Value param) {
    if (activation && param && rank(activation) > 0 && rank(param) == 1)
      tie(activation, rank(activation) - 1, param, 0);
  }

  /// A value read or written with `role` in the M x N space of one op.
  void tieRole(Value value, Role role, unsigned m, unsigned n) {
    unsigned r = rank(value);
    if (role == Role::full && r == 2) {
      join(of(value, 0), m);
      join(of(value, 1), n);
    } else if (role == Role::row && r == 1) {
      join(of(value, 0), m);
    } else if (role == Role::col && r >= 1) {
      // A split column output is partials x N: only N is the space's.
      join(of(value, r - 1), n);
    } else if (role == Role::group && r == 2) {
      // M x N / G: its groups are not a dimension of the space.
      join(of(value, 0), m);
    }
  }

  /// The class of a dimension `of` has numbered, after every join.
  unsigned classOf(Value value, unsigned dim) {
    if (!compressed) {
      classes.compress();
      compressed = true;
    }
    return classes[ids.at({value, dim})];
  }

private:
  static unsigned rank(Value value) {
    auto type = dyn_cast_or_null<ShapedType>(value ? value.getType() : Type());
    return type && type.hasRank() ? type.getRank() : 0;
  }

  llvm::DenseMap<std::pair<Value, unsigned>, unsigned> ids;
  llvm::IntEqClasses classes;
  unsigned next = 0;
  bool compressed = false;
};

/// Joins the sizes that `op` relates.
void relateSizes(Operation *op, SizeClasses &sizes) {
  if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(op))
    return sizes.tieAll(toTensor.getBuffer(), toTensor.getResult());
  if (auto materialize =
          dyn_cast<bufferization::MaterializeInDestinationOp>(op))
    return sizes.tieAll(materialize.getSource(), materialize.getDest());
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return sizes.tieAll(cast.getSource(), cast.getResult());
  if (auto cast = dyn_cast<memref::CastOp>(op))
    return sizes.tieAll(cast.getSource(), cast.getResult());
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return sizes.tieAll(copy.getSource(), copy.getTarget());

  if (auto rms = dyn_cast<RMSNormOp>(op)) {
    sizes.tieAll(rms.getX(), rms.getY());
    sizes.tieRows(rms.getX(), rms.getRstd());
    sizes.tieColumns(rms.getX(), rms.getWeight());
    return;
  }
  if (auto ln = dyn_cast<LayerNormOp>(op)) {
    sizes.tieAll(ln.getX(), ln.getY());
    sizes.tieRows(ln.getX(), ln.getMean());
    sizes.tieRows(ln.getX(), ln.getRstd());
    sizes.tieColumns(ln.getX(), ln.getWeight());
    sizes.tieColumns(ln.getX(), ln.getBias());
    return;
  }
  if (auto grad = dyn_cast<RMSNormGradOp>(op)) {
    sizes.tieAll(grad.getX(), grad.getDy());
    sizes.tieAll(grad.getX(), grad.getDx());
    sizes.tieRows(grad.getX(), grad.getRstd());
    sizes.tieColumns(grad.getX(), grad.getWeight());
    sizes.tieColumns(grad.getX(), grad.getDw());
    return;
  }
  if (auto grad = dyn_cast<LayerNormGradOp>(op)) {
    sizes.tieAll(grad.getX(), grad.getDy());
    sizes.tieAll(grad.getX(), grad.getDx());
    sizes.tieRows(grad.getX(), grad.getMean());
    sizes.tieRows(grad.getX(), grad.getRstd());
    sizes.tieColumns(grad.getX(), grad.getWeight());
    sizes.tieColumns(grad.getX(), grad.getDw());
    sizes.tieColumns(grad.getX(), grad.getDb());
    return;
  }

  // The level-2 ops read and write by role in one M x N space each.
  auto tieRoled = [&](ValueRange values, ArrayAttr roles, unsigned m,
                      unsigned n) {
    for (auto [value, role] : llvm::zip(values, roles))
      sizes.tieRole(value, cast<RoleAttr>(role).getValue(), m, n);
  };
  if (auto reduce = dyn_cast<ReduceOp>(op)) {
    unsigned m = sizes.fresh(), n = sizes.fresh();
    tieRoled(reduce.getInputs(), reduce.getRoles(), m, n);
    sizes.tieRole(reduce.getResult(), roleOfOrder(reduce.getOrder()), m, n);
    return;
  }
  if (auto map = dyn_cast<MapOp>(op)) {
    unsigned m = sizes.fresh(), n = sizes.fresh();
    tieRoled(map.getInputs(), map.getRoles(), m, n);
    sizes.tieRole(map.getResult(), map.getResultRole(), m, n);
    return;
  }
  if (auto fused = dyn_cast<FusedOp>(op)) {
    unsigned m = sizes.fresh(), n = sizes.fresh();
    tieRoled(fused.getInputs(), fused.getRoles(), m, n);
    tieRoled(fused.getOutputs(), fused.getOutputRoles(), m, n);
  }

  // Destination-style ops (norm.fused, linalg) return their inits' shapes.
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
    for (OpResult result : op->getResults())
      sizes.tieAll(result, dps.getTiedOpOperand(result)->get());
}

std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

CpuSignature signatureOf(func::FuncOp func) {
  CpuSignature signature;
  if (func.getNumResults() != 0) {
    signature.notCallable =
        "it returns values; CPU programs take their outputs as memref "
        "arguments (destination-passing style)";
    return signature;
  }
  for (auto [i, type] : llvm::enumerate(func.getArgumentTypes())) {
    if (!isa<MemRefType>(type)) {
      signature.notCallable =
          "argument #" + std::to_string(i) + " is " + typeText(type) +
          "; CPU programs take ranked memref arguments only";
      return signature;
    }
  }
  if (func.isExternal()) {
    signature.notCallable = "it has no body";
    return signature;
  }
  // Every argument dimension gets its class before the classes are
  // compressed, unused arguments included.
  SizeClasses sizes;
  for (BlockArgument arg : func.getArguments())
    for (unsigned d = 0, e = cast<MemRefType>(arg.getType()).getRank(); d < e;
         ++d)
      sizes.of(arg, d);
  func.walk([&](Operation *op) { relateSizes(op, sizes); });
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<MemRefType>(arg.getType());
    CpuArgument argument;
    argument.type = typeText(type);
    argument.shape.assign(type.getShape().begin(), type.getShape().end());
    for (unsigned d = 0, e = type.getRank(); d < e; ++d)
      argument.sizeClass.push_back(sizes.classOf(arg, d));
    argument.contiguous = type.getLayout().isIdentity();
    if (!argument.contiguous &&
        failed(type.getStridesAndOffset(argument.strides, argument.offset))) {
      signature.notCallable = "argument #" +
                              std::to_string(arg.getArgNumber()) +
                              " has a layout that is not strided";
      return signature;
    }
    signature.arguments.push_back(std::move(argument));
  }
  return signature;
}

/// The part of MLIR's memref descriptor before its sizes and strides.
struct DescriptorHeader {
  void *allocated;
  void *aligned;
  int64_t offset;
};

/// A size every dimension of one class must have, and where it came from.
struct Witness {
  int64_t size;
  std::string where;
};

std::string describe(unsigned index, const CpuArgument &argument) {
  return "argument #" + std::to_string(index) + " (" + argument.type + ")";
}

} // namespace

std::map<std::string, CpuSignature> mlir::norm::cpuSignatures(ModuleOp module) {
  std::map<std::string, CpuSignature> signatures;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic())
      signatures[func.getSymName().str()] = signatureOf(func);
  return signatures;
}

std::string mlir::norm::checkDescriptors(const std::string &name,
                                         const CpuSignature &signature,
                                         llvm::ArrayRef<void *> descriptors) {
  std::ostringstream error;
  if (!signature.notCallable.empty())
    return "@" + name + " cannot be called: " + signature.notCallable;
  if (descriptors.size() != signature.arguments.size()) {
    error << "@" << name << " takes " << signature.arguments.size()
          << " memref arguments, got " << descriptors.size();
    return error.str();
  }

  // Static sizes are witnesses of their classes before any runtime size.
  std::map<unsigned, Witness> witnesses;
  for (auto [i, argument] : llvm::enumerate(signature.arguments))
    for (auto [d, size] : llvm::enumerate(argument.shape))
      if (!ShapedType::isDynamic(size))
        witnesses.try_emplace(argument.sizeClass[d],
                              Witness{size, "dimension " + std::to_string(d) +
                                                " of " +
                                                describe(i, argument)});

  for (auto [i, argument] : llvm::enumerate(signature.arguments)) {
    std::string where = "@" + name + ": " + describe(i, argument);
    if (!descriptors[i])
      return where + " is a null descriptor pointer";
    DescriptorHeader header;
    std::memcpy(&header, descriptors[i], sizeof(header));
    const char *tail =
        static_cast<const char *>(descriptors[i]) + sizeof(DescriptorHeader);
    unsigned rank = argument.shape.size();
    llvm::SmallVector<int64_t> sizes(rank), strides(rank);
    std::memcpy(sizes.data(), tail, rank * sizeof(int64_t));
    std::memcpy(strides.data(), tail + rank * sizeof(int64_t),
                rank * sizeof(int64_t));

    int64_t elements = 1;
    for (unsigned d = 0; d < rank; ++d) {
      if (sizes[d] < 0) {
        error << where << ": dimension " << d << " has negative size "
              << sizes[d];
        return error.str();
      }
      if (__builtin_mul_overflow(elements, sizes[d], &elements)) {
        error << where << " has more elements than 64-bit offsets address";
        return error.str();
      }
      if (!ShapedType::isDynamic(argument.shape[d]) &&
          sizes[d] != argument.shape[d]) {
        error << where << ": dimension " << d << " is " << sizes[d]
              << " but its type says " << argument.shape[d];
        return error.str();
      }
      auto [it, inserted] = witnesses.try_emplace(
          argument.sizeClass[d],
          Witness{sizes[d], "dimension " + std::to_string(d) + " of " +
                                describe(i, argument)});
      if (!inserted && it->second.size != sizes[d]) {
        error << where << ": dimension " << d << " is " << sizes[d]
              << " but must equal " << it->second.where << ", which is "
              << it->second.size;
        return error.str();
      }
    }
    if (elements > 0 && !header.aligned)
      return where + " has a null data pointer";

    // Identity layouts are row-major and contiguous: compiled code may
    // compute strides from the sizes or copy the buffer whole, so the
    // descriptor's strides must be those. A stride of a dimension of size 1
    // multiplies only index 0 and is free; so is every stride of an empty
    // buffer, whose elements are never read.
    if (elements == 0)
      continue;
    if (argument.contiguous) {
      int64_t expected = 1;
      for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
        if (sizes[d] > 1 && strides[d] != expected) {
          error << where << ": dimension " << d << " has stride " << strides[d]
                << " (elements); the program takes contiguous "
                << "row-major buffers, whose stride there is " << expected;
          return error.str();
        }
        expected *= std::max<int64_t>(sizes[d], 1);
      }
    }
    // Compiled code uses a layout's static strides and offset, not the
    // descriptor's, so those must agree.
    for (unsigned d = 0; d < rank && !argument.contiguous; ++d) {
      int64_t stride = argument.strides[d];
      if (!ShapedType::isDynamic(stride) && sizes[d] > 1 &&
          strides[d] != stride) {
        error << where << ": dimension " << d << " has stride " << strides[d]
              << " but its layout says " << stride;
        return error.str();
      }
    }
    if (!ShapedType::isDynamic(argument.offset) &&
        header.offset != argument.offset) {
      error << where << " has offset " << header.offset
            << " but its layout says " << argument.offset;
      return error.str();
    }
  }
  return "";
}
