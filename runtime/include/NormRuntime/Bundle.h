//===- Bundle.h - kernel bundles: manifest and PTX --------------*- C++ -*-===//
//
// Reads a bundle written by norm-compile (docs/bundle.md) and checks tensors
// against a function's signature. No CUDA and no MLIR here.
//
//===----------------------------------------------------------------------===//

#ifndef NORMRUNTIME_BUNDLE_H
#define NORMRUNTIME_BUNDLE_H

#include "NormRuntime/Json.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace norm::runtime {

/// Element types of bundle buffers.
enum class DType { BF16, F16, F32, F8E4M3FN };

/// Bytes per element.
int64_t dtypeBytes(DType dtype);
/// "bf16", "f16", "f32" or "f8e4m3fn".
const char *dtypeName(DType dtype);

/// A contiguous device tensor handed to or returned by the runtime.
struct TensorRef {
  void *data = nullptr;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
};

/// A named buffer of a function: an argument, a result or a workspace.
struct BufferDesc {
  std::string name;
  DType dtype;
  /// Size expressions (see evaluate()).
  std::vector<JsonValue> shape;
  /// A workspace the kernels need zeroed before the call's first launch (a
  /// block group's tickets and slots): the launcher zeroes it on the
  /// call's stream.
  bool zeroed = false;
};

/// Most dynamic shared memory a launch may ask for (Hopper: 227 KB).
constexpr int64_t kMaxSharedBytes = 227 * 1024;

/// One kernel parameter of a launch.
struct LaunchParam {
  enum class Kind {
    /// The buffer's memref descriptor: allocated and aligned pointer,
    /// offset, sizes, strides (MLIR's default GPU calling convention).
    Descriptor,
    /// The buffer's aligned pointer (norm-compact-kernel-args).
    AlignedPointer,
    /// A size: `value` evaluated for M (see evaluate()).
    Size,
  };
  Kind kind = Kind::Descriptor;
  /// The buffer of a descriptor or pointer (its rank comes with the tensor).
  std::string buffer;
  /// A size's expression.
  JsonValue value;
};

/// One kernel launch of a function.
struct LaunchDesc {
  std::string kernel;
  int64_t block = 0;
  JsonValue grid;
  /// Grid y (column slices); 1 when absent.
  JsonValue gridY;
  /// Dynamic shared memory of the launch (bytes); the launcher opts the
  /// kernel in to that much (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES),
  /// which kernels need once static and dynamic exceed 48 KB.
  int64_t sharedBytes = 0;
  /// Blocks per thread block cluster (compiled into the PTX; above 8 the
  /// launcher allows the non-portable size).
  int64_t cluster = 1;
  /// Blocks of a block group (0: none), which wait for each other's row
  /// totals: the launcher refuses a GPU that cannot hold that many of the
  /// kernel's blocks at once rather than let them wait forever.
  int64_t blockGroup = 0;
  /// The kernel walks rows strided by its grid (any grid is correct): the
  /// launcher caps the grid at the blocks (clusters) resident at once.
  bool persistent = false;
  /// A programmatic dependent launch of the launch before it (PDL): it may
  /// start before that one completes and waits for it itself.
  bool programmatic = false;
  /// The launch runs only where `when` (a condition on M: {"lt": [a, b]},
  /// {"ge": [a, b]}, {"and": [c, d]}, {"or": [c, d]}) evaluates to 1
  /// (norm-short-rows' versions).
  bool conditional = false;
  JsonValue when;
  /// The kernel's parameters, in order.
  std::vector<LaunchParam> params;
};

/// One launch a call makes for a given M, its grid settled.
struct PlannedLaunch {
  const LaunchDesc *launch = nullptr;
  int64_t grid = 0, gridY = 0;
  /// Whether the launch before it in the function was issued too: a
  /// programmatic launch after a skipped one is an ordinary launch, as it
  /// would otherwise overlap whatever came before the call in the stream.
  bool afterIssued = false;
};

/// What a call with M rows needs apart from the buffers' addresses, settled
/// once per M (Function::planCall): the shapes and bytes of every buffer,
/// and each launch with its grid and its parameter words. Callers that run
/// one function many times (the PyTorch extension) keep plans per M, so a
/// call evaluates no manifest expression.
struct CallPlan {
  int64_t rows = 0;
  /// Shapes and bytes of the function's slots: its arguments in order, then
  /// its buffers (outputs and workspaces) in manifest order.
  std::vector<std::vector<int64_t>> shapes;
  std::vector<int64_t> bytes;
  /// The slots of zeroed buffers (BufferDesc::zeroed), zeroed before the
  /// first launch.
  std::vector<uint32_t> zeroed;
  struct Launch {
    const LaunchDesc *desc = nullptr;
    int64_t grid = 0, gridY = 0;
    /// A programmatic launch whose predecessor in the call was issued.
    bool programmatic = false;
    /// The kernel's parameters, one 64-bit word each, with the words that
    /// take a buffer's address left 0.
    std::vector<int64_t> words;
    /// (word, slot): the words that take a slot's device address.
    std::vector<std::pair<uint32_t, uint32_t>> addresses;
  };
  std::vector<Launch> launches;
};

/// One compiled function of a bundle.
class Function {
public:
  std::string name;
  std::vector<BufferDesc> arguments;
  std::vector<BufferDesc> buffers;
  std::vector<std::string> results;
  std::vector<LaunchDesc> launches;

  /// Checks that `args` match the signature (count, dtype, rank, sizes; all
  /// "M" equal) and returns M through `rows`. False with `error` otherwise.
  bool bindRows(const std::vector<TensorRef> &args, int64_t &rows,
                std::string &error) const;

  /// The shape of `buffer` for M = rows.
  std::vector<int64_t> shapeOf(const BufferDesc &buffer, int64_t rows) const;

  /// The bytes of `buffer` for M = rows through `bytes`; false with `error`
  /// where a size is undefined at that M (a division by zero in the
  /// manifest) or the product overflows.
  bool bufferBytes(const BufferDesc &buffer, int64_t rows, int64_t &bytes,
                   std::string &error) const;

  /// The launches a call with M = rows makes, in order, with their grids
  /// (launches whose `when` fails or whose grid is empty are left out);
  /// false with `error` for an expression the manifest cannot evaluate at
  /// that M (grids, conditions, size parameters) or a grid past CUDA's
  /// limits. A persistent launch's x grid is not checked here: the
  /// launcher caps it at the blocks resident at once and checks it then.
  bool planLaunches(int64_t rows, std::vector<PlannedLaunch> &launches,
                    std::string &error) const;

  /// The CallPlan of a call with M = rows: planLaunches' launches with their
  /// parameter words, and every slot's shape and bytes. False with `error`
  /// where planLaunches or bufferBytes fails.
  bool planCall(int64_t rows, CallPlan &plan, std::string &error) const;
};

/// Evaluates a manifest size expression for M = rows: an integer, "M",
/// {"ceildiv": [a, b]}, {"min": [a, b]}, {"max": [a, b]}, or a condition
/// {"lt": [a, b]} / {"ge": [a, b]} / {"and": [c, d]} / {"or": [c, d]} (1
/// where it holds, else 0). Returns -1 for a malformed expression.
int64_t evaluate(const JsonValue &expr, int64_t rows);

/// CUDA's largest grid: 2^31 - 1 blocks in x, 65535 in y.
constexpr int64_t kMaxGridX = 2147483647;
constexpr int64_t kMaxGridY = 65535;

/// Empty when a launch of `kernel` over `gridX` x `gridY` blocks (for M =
/// `rows`) is within CUDA's grid limits, else why not. The launch
/// parameters are 32-bit, so a grid past them would silently run a
/// truncated grid over part of the rows.
std::string checkGrid(const std::string &kernel, int64_t gridX, int64_t gridY,
                      int64_t rows);

/// Whether PTX compiled for `chip` (sm_NN, sm_NNa or sm_NNf) runs on a GPU of
/// compute capability `major`.`minor`: on its own chip and, through the
/// driver's JIT, on every newer one, except arch-specific PTX (sm_NNa),
/// which runs on NN only. False for a name not of that form.
bool chipRunsOn(const std::string &chip, int major, int minor);

/// Of bundles compiled for `chips`, the index of the one to load on a GPU of
/// compute capability `major`.`minor`: the one compiled for that chip, else
/// the newest whose PTX runs there (chipRunsOn: sm_80's runs on every GPU
/// from Ampere on); -1 when none does.
int chooseChip(const std::vector<std::string> &chips, int major, int minor);

/// A loaded bundle.
class Bundle {
public:
  /// Loads `directory`/manifest.json and its PTX. Null with `error` on
  /// failure (missing files, malformed manifest, unknown buffer names).
  static std::unique_ptr<Bundle> load(const std::string &directory,
                                      std::string &error);

  /// The function named `name`, or the only one when `name` is empty.
  const Function *function(const std::string &name, std::string &error) const;

  /// The names of the bundle's functions, sorted.
  std::vector<std::string> functionNames() const;

  const std::string &ptx() const { return ptxText; }
  const std::string &target() const { return targetName; }

private:
  std::string ptxText;
  std::string targetName;
  std::map<std::string, Function> functions;
};

} // namespace norm::runtime

#endif // NORMRUNTIME_BUNDLE_H
