//===- KernelShape.h - a kernel as the tuning rules see it ------*- C++ -*-===//
//
// The shape of one norm.fused kernel as the tuning rules see it: sizes,
// element widths and operand counts, never IR.
//
//===----------------------------------------------------------------------===//

#ifndef NORMDIALECT_TUNING_KERNEL_SHAPE_H
#define NORMDIALECT_TUNING_KERNEL_SHAPE_H

#include <cstdint>

namespace mlir::norm {

/// What the tuning rules need to know about one norm.fused kernel (built
/// from IR by describeKernel, NormDialect/Utils/KernelBody.h); its first
/// five fields are those of its TuningKey.
struct KernelShape {
  /// Normalized size.
  int64_t n = 0;
  /// Widest activation element (full inputs and outputs; the f32 column
  /// partials do not count).
  int64_t elementBytes = 2;
  /// Full (M x N) inputs the kernel reads.
  int64_t fullOperands = 1;
  /// Column-reduction outputs (dW, dB).
  int64_t columnOutputs = 0;
  /// norm.row_reduce ops per row.
  int64_t rowReductions = 1;
  /// Every output is a row output (a statistics kernel).
  bool onlyRowOutputs = false;
  /// Narrowest element of the full inputs (0: elementBytes).
  int64_t narrowestInputBytes = 0;
  /// Bytes per column of the column inputs (weight, bias) together: a
  /// staged kernel keeps one copy of them in shared memory.
  int64_t columnInputBytes = 0;
  /// Full (M x N) outputs the kernel writes (y, dx).
  int64_t fullOutputs = 0;
  /// Narrowest element of the full outputs (0: elementBytes).
  int64_t narrowestOutputBytes = 0;
  /// Row outputs (per-row statistics such as mean and rstd) the kernel
  /// writes.
  int64_t rowOutputs = 0;
  /// Column inputs (weight, bias) the kernel reads.
  int64_t columnInputs = 0;
  /// Row inputs (saved statistics such as a backward's rstd) the kernel
  /// reads; a forward computes its statistics and reads none.
  int64_t rowInputs = 0;
  /// Columns of a group (the kernel's group_size; 0: no groups).
  int64_t groupSize = 0;
  /// Full outputs computed from the elements alone, before any reduction
  /// (the residual add's h; earlyOutputIndices).
  int64_t earlyOutputs = 0;
};

/// Whether `shape` is a forward: full outputs from full inputs, its row
/// statistics computed rather than read (no row inputs), no column outputs.
/// Its full inputs are x, and for a fused prologue (the residual add) the
/// operands that make x.
inline bool isForward(const KernelShape &shape) {
  return shape.columnOutputs == 0 && shape.fullOutputs > 0 &&
         shape.rowInputs == 0;
}

/// Whether some full output of `shape` is narrower than its inputs (the FP8
/// forwards' quantized y).
inline bool hasNarrowerOutputs(const KernelShape &shape) {
  return shape.narrowestOutputBytes > 0 &&
         shape.narrowestOutputBytes < shape.elementBytes;
}

} // namespace mlir::norm

#endif // NORMDIALECT_TUNING_KERNEL_SHAPE_H
