//===- TuningTable.h - measured choices per shape class ---------*- C++ -*-===//
//
// The measured table (tuning/<device>.json, written by bench/autotune.py)
// whose entries override the analytic rules for their shape class.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_TUNING_TABLE_H
#define NORMDIALECT_TUNING_TUNING_TABLE_H

#include "llvm/ADT/STLFunctionalExtras.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mlir::norm {

/// The shape class a measured tuning entry applies to.
struct TuningKey {
  int64_t n = 0;
  int64_t elementBytes = 2;
  int64_t fullOperands = 1;
  int64_t columnOutputs = 0;
  int64_t rowReductions = 1;
};

/// Knobs the autotuner measured best for a shape class (0: not set, use the
/// analytic rule).
struct TuningChoice {
  int64_t registerBudget = 0;
  int64_t rowsPerBlock = 0;
  int64_t numStages = 0;
  /// Blocks per SM the register allocation must allow (PTX .minnctapersm):
  /// trades a few spilled registers for twice the warps where registers
  /// alone limit a kernel to one block per SM.
  int64_t minBlocksPerSM = 0;
  /// Rows staged in shared memory (RowLayout::sharedStages); -1: not set
  /// (the analytic rule), 0: measured best without staging.
  int64_t sharedStages = -1;
  /// A forward (no column outputs) streams its rows (KernelPlan::Kind::
  /// Streaming: one block a row, re-read from L2 under eviction hints
  /// unless the block's threads hold the row) instead of staging them.
  bool streamRows = false;
  /// Full outputs stored by bulk copies (RowLayout::bulkStores) where the
  /// kernel allows it: 1 measured faster, 0 slower, -1 not measured (the
  /// rule, chooseBulkStores).
  int64_t bulkStores = -1;
  /// The N of the entry a lookup took (TuningTable::lookup; 0 elsewhere):
  /// a choice measured at the kernel's own N, or borrowed from another.
  int64_t entryN = 0;
};

/// Measured choices (tuning/<device>.json, written by bench/autotune.py).
/// Lookups match every field of the key but N, and take the entry with the
/// nearest N (in ratio), so a table measured at powers of two covers the
/// shapes between them.
class TuningTable {
public:
  /// Reads a table; false with `error` on a missing or malformed file.
  bool load(const std::string &path, std::string &error);
  /// Adds or replaces an entry.
  void add(const TuningKey &key, const TuningChoice &choice);
  /// The entry for `key`'s class nearest in N, if any; with `applies`, the
  /// nearest of those it accepts.
  std::optional<TuningChoice>
  lookup(const TuningKey &key,
         llvm::function_ref<bool(const TuningChoice &)> applies = {}) const;
  bool empty() const { return entries.empty(); }

private:
  std::vector<std::pair<TuningKey, TuningChoice>> entries;
};

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_TUNING_TABLE_H
