//===- TuningTable.cpp - measured tuning choices --------------------------===//

#include "NormDialect/Tuning/TuningTable.h"
#include "NormDialect/Tuning/DeviceInfo.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace mlir::norm;

/// The deepest nesting of arrays and objects a tuning table may have: its
/// entries are objects in an array in an object (3). llvm::json's parser
/// recurses once per level, so a file of 100,000 brackets would overflow
/// the stack before it could report anything.
static constexpr int kMaxTableNesting = 16;

/// Whether the brackets of JSON text `text` (outside its strings) nest at
/// most `limit` deep.
static bool nestsWithin(llvm::StringRef text, int limit) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if ((c == '[' || c == '{') && ++depth > limit)
      return false;
    else if (c == ']' || c == '}')
      --depth;
  }
  return true;
}

bool TuningTable::load(const std::string &path, std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error =
        "cannot read tuning table " + path + ": " + buffer.getError().message();
    return false;
  }
  if (!nestsWithin((*buffer)->getBuffer(), kMaxTableNesting)) {
    error = path + ": arrays and objects nested more than " +
            std::to_string(kMaxTableNesting) + " deep; a tuning table is " +
            "{\"entries\": [{...}, ...]}";
    return false;
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    error = path + ": " + llvm::toString(parsed.takeError());
    return false;
  }
  const llvm::json::Object *root = parsed->getAsObject();
  const llvm::json::Array *list = root ? root->getArray("entries") : nullptr;
  if (!list) {
    error = path + ": expected an object with an \"entries\" array";
    return false;
  }
  for (const llvm::json::Value &v : *list) {
    const llvm::json::Object *e = v.getAsObject();
    auto field = [&](const char *name, int64_t unset = 0) -> int64_t {
      return e ? e->getInteger(name).value_or(unset) : unset;
    };
    TuningKey key{field("n"), field("element_bytes"), field("full_operands"),
                  field("column_outputs"), field("row_reductions")};
    TuningChoice choice{field("register_budget"), field("rows_per_block"),
                        field("num_stages"), field("min_blocks_per_sm"),
                        field("shared_stages", /*unset=*/-1)};
    if (const llvm::json::Value *stream = e ? e->get("stream_rows") : nullptr) {
      if (!stream->getAsBoolean()) {
        error = path + ": stream_rows must be true or false";
        return false;
      }
      choice.streamRows = *stream->getAsBoolean();
    }
    if (const llvm::json::Value *bulk = e ? e->get("bulk_stores") : nullptr) {
      if (!bulk->getAsBoolean()) {
        error = path + ": bulk_stores must be true or false";
        return false;
      }
      choice.bulkStores = *bulk->getAsBoolean() ? 1 : 0;
    }
    if (choice.sharedStages < -1 || choice.sharedStages > 4) {
      error = path + ": shared_stages must be 0 to 4";
      return false;
    }
    // The same bounds as the options these fields override: a table is
    // input like any other, and an out-of-range budget would make the
    // layout searches run for hours instead of failing.
    if (choice.registerBudget != 0) {
      if (std::string why = validateRegisterBudget(choice.registerBudget);
          !why.empty()) {
        error = path + ": register_budget: " + why;
        return false;
      }
    }
    if (choice.numStages < 0 || choice.numStages > 4) {
      error = path + ": num_stages must be 0 (unset) to 4";
      return false;
    }
    if (choice.minBlocksPerSM < 0 || choice.minBlocksPerSM > 32) {
      error = path + ": min_blocks_per_sm must be 0 (unset) to 32";
      return false;
    }
    if (choice.rowsPerBlock < 0) {
      error = path + ": rows_per_block must be 0 (unset) or positive";
      return false;
    }
    if (key.n <= 0 || key.elementBytes <= 0) {
      error = path + ": an entry needs positive n and element_bytes";
      return false;
    }
    add(key, choice);
  }
  return true;
}

void TuningTable::add(const TuningKey &key, const TuningChoice &choice) {
  for (auto &[k, c] : entries)
    if (k.n == key.n && k.elementBytes == key.elementBytes &&
        k.fullOperands == key.fullOperands &&
        k.columnOutputs == key.columnOutputs &&
        k.rowReductions == key.rowReductions) {
      c = choice;
      return;
    }
  entries.emplace_back(key, choice);
}

std::optional<TuningChoice> TuningTable::lookup(
    const TuningKey &key,
    llvm::function_ref<bool(const TuningChoice &)> applies) const {
  std::optional<TuningChoice> best;
  double bestDistance = 0;
  for (const auto &[k, c] : entries) {
    if (k.elementBytes != key.elementBytes ||
        k.fullOperands != key.fullOperands ||
        k.columnOutputs != key.columnOutputs ||
        k.rowReductions != key.rowReductions || (applies && !applies(c)))
      continue;
    double distance = std::fabs(
        std::log(static_cast<double>(k.n) / static_cast<double>(key.n)));
    if (!best || distance < bestDistance) {
      best = c;
      best->entryN = k.n;
      bestDistance = distance;
    }
  }
  return best;
}
