//===- Programs.h - compiled programs of the PyTorch ops --------*- C++ -*-===//
//
// The bundles the norm_mlir ops run, one per program (op kind, N, dtypes,
// flags) and device, loaded once and kept with their launch plans per row
// count. A program missing here is compiled (or found in the cache) by the
// Python package, which this library reaches through the dispatcher op
// norm_mlir::_bundle_directory; nothing here links MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef NORM_MLIR_CSRC_PROGRAMS_H
#define NORM_MLIR_CSRC_PROGRAMS_H

#include <ATen/core/Tensor.h>

#include <optional>
#include <string>
#include <vector>

namespace norm_mlir {

/// The ops' programs (norm_mlir.programs names them the same way).
enum class Kind {
  RmsForward,
  RmsBackward,
  LayerForward,
  LayerBackward,
  L2Forward,
  L2Backward,
  GatedForward,
  GatedBackward
};

/// What selects one compiled program.
struct ProgramKey {
  Kind kind = Kind::RmsForward;
  int64_t n = 0;
  c10::ScalarType dtype = c10::ScalarType::Float;
  /// The weight's dtype; nullopt for a program without weight.
  std::optional<c10::ScalarType> weightDtype;
  /// Forwards: epsilon. Ignored (0) for backwards.
  double eps = 0;
  /// RMSNorm: the weight offset (1 + w is offset 1).
  double offset = 0;
  /// LayerNorm: whether there is a bias (a dB for the backward).
  bool bias = false;
  /// Forwards: whether mean/rstd are returned (false: inference forward).
  bool stats = true;
  /// The pre-norm residual add (norm_mlir.programs' residual=True): a
  /// forward normalizes x + residual and returns it, a backward adds the
  /// residual's gradient to dx.
  bool residual = false;
  /// The gated RMSNorm: the gate's activation ("silu" or "sigmoid") and
  /// whether the norm comes before the gate (y = norm(x) act(z)) or after
  /// it (y = norm(x act(z))).
  std::string activation = "silu";
  bool normBeforeGate = true;
  /// Forwards: y quantized to FP8 e4m3 per row, returned with its scale
  /// (norm_mlir.programs' quant=True).
  bool quant = false;
  /// Groups of columns (0: none): the scales of a quantized forward, the
  /// statistics of a grouped gated norm, one a group of this many columns.
  int64_t groupSize = 0;
  c10::DeviceIndex device = 0;

  bool operator==(const ProgramKey &other) const;
};

/// Runs `key`'s program on `inputs` (contiguous, 16-byte aligned tensors on
/// `key.device` whose order and dtypes follow the program's signature, M =
/// `rows`), on the current stream of that device, and returns the
/// program's results, allocated through PyTorch's caching allocator.
/// Workspaces live until the launches are queued; the allocator's stream
/// order keeps them alive for the kernels. Errors are c10::Error.
std::vector<at::Tensor> runProgram(const ProgramKey &key,
                                   const std::vector<at::Tensor> &inputs,
                                   int64_t rows);

} // namespace norm_mlir

#endif // NORM_MLIR_CSRC_PROGRAMS_H
