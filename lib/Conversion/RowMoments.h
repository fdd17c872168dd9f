//===- RowMoments.h - a row's mean and variance in one pass -----*- C++ -*-===//
//
// Private to lib/Conversion. A LayerNorm body reduces a row twice: the sum
// of v, then the sum of (v - sum / N)^2, which depends on the first. Built
// as written, a streamed row is read once per reduction and the block
// exchanges twice. Where the body has exactly that pair, each thread keeps
// instead the running count, mean and sum of squared deviations (M2) of
// its own elements and the threads merge those triples pairwise (Chan et
// al.'s parallel update): one pass and one exchange, with the stability of
// the two-pass form (no E[v^2] - E[v]^2 cancellation).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_ROWMOMENTS_H
#define LIB_CONVERSION_ROWMOMENTS_H

#include "NormDialect/IR/NormOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::norm {

/// The two row reductions of a body that computes a row's mean and
/// variance: `sum` adds a per-element f32 value v, and `squares` adds
/// (v - m)^2 where m is sum's total times 1 / N (or divided by N).
struct MeanVariancePair {
  RowReduceOp sum;
  RowReduceOp squares;
};

/// The pair in `body` (a norm.fused body over rows of `n` elements), if its
/// row reductions are exactly such a pair; std::nullopt otherwise.
std::optional<MeanVariancePair> matchMeanVariance(Block &body, int64_t n);

/// Count, mean and sum of squared deviations from the mean (M2) of a set
/// of elements, each an f32 value.
struct Moments {
  Value count;
  Value mean;
  Value m2;
};

/// The moments of no elements (count, mean and M2 zero).
Moments emptyMoments(OpBuilder &b, Location loc);

/// The moments of `values`: their sum as a pairwise tree (treeCombine)
/// times 1 / count, then the squared deviations from that mean.
Moments momentsOf(OpBuilder &b, Location loc, ArrayRef<Value> values);

/// `acc` merged with the elements `values` (one vector's lanes): their own
/// mean and M2 first, then the pairwise update with the running count.
Moments mergeValues(OpBuilder &b, Location loc, const Moments &acc,
                    ArrayRef<Value> values);

/// The mean and M2 of two disjoint sets of `countEach` elements each, given
/// each set's mean and M2. Symmetric in the two sets, bitwise: every lane
/// of a butterfly gets the same result.
std::pair<Value, Value> mergeEqualCounts(OpBuilder &b, Location loc,
                                         Value meanA, Value m2A, Value meanB,
                                         Value m2B, double countEach);

} // namespace mlir::norm

#endif // LIB_CONVERSION_ROWMOMENTS_H
