// A measured tuning table overrides the analytic rules for its shape class.
// RUN: norm-opt %s --convert-norm-to-gpu="tuning-table=%S/Inputs/tuning.json" --split-input-file | FileCheck %s
// RUN: not norm-opt %s --convert-norm-to-gpu="tuning-table=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not norm-opt %s --convert-norm-to-gpu="min-blocks-per-sm=-1" 2>&1 | FileCheck %s --check-prefix=BADBLOCKS
// BADBLOCKS: error: convert-norm-to-gpu: min-blocks-per-sm must be 0 (no limit) to 32, got -1
// RUN: norm-opt %s --convert-norm-to-gpu="tuning-table=%S/Inputs/tuning.json min-blocks-per-sm=4" --split-input-file | FileCheck %s --check-prefix=OPTBLOCKS
// RUN: not norm-opt %s --convert-norm-to-gpu="tuning-table=%S/Inputs/bad-stream-rows.json" 2>&1 | FileCheck %s --check-prefix=BADSTREAM
// BADSTREAM: error: convert-norm-to-gpu: {{.*}}bad-stream-rows.json: stream_rows must be true or false
// RUN: not norm-opt %s --convert-norm-to-gpu="tuning-table=%S/Inputs/bad-register-budget.json" 2>&1 | FileCheck %s --check-prefix=BADTABLEBUDGET
// BADTABLEBUDGET: error: convert-norm-to-gpu: {{.*}}bad-register-budget.json: register_budget: register-budget must be 1 to 255 elements a thread, got 100000
// A table nested 100,000 deep overflowed the stack of llvm::json's parser;
// past 16 levels it is refused before parsing.
// RUN: python3 -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not norm-opt %s --convert-norm-to-gpu="tuning-table=%t.deep.json" 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: convert-norm-to-gpu: {{.*}}deep.json: arrays and objects nested more than 16 deep
// RUN: not norm-compile %s -o %t.bundle --tuning-table=%t.deep.json 2>&1 | FileCheck %s --check-prefix=DEEP-COMPILE
// DEEP-COMPILE: deep.json: arrays and objects nested more than 16 deep
// RUN: not norm-opt %s --convert-norm-to-gpu="max-threads=100" 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// BADTHREADS: error: convert-norm-to-gpu: max-threads must be a positive multiple of 32, got 100

// The table's 3 rows a block (a short M still gets a block per row).
// CHECK-LABEL: func @fwd
// CHECK: arith.minui %c3, %{{.+}}
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.rows_per_block = 3
// CHECK-SAME: nvvm.minctasm = 2 : i32
// CHECK: scf.for
// CHECK: norm.num_stages = 3
// MISSING: error: convert-norm-to-gpu: cannot read tuning table {{.*}}missing.json
func.func @fwd(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// The table measured the streamed kernel faster for this class (N = 16384
// is nearest): rows streamed through L2, one row per block.
// CHECK-LABEL: func @streamed_by_table
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.streaming
// CHECK: ld.global.L1::evict_last.L2::cache_hint.v4.b32
func.func @streamed_by_table(%x: memref<?x12288xbf16>, %y: memref<?x12288xbf16>) {
  norm.fused ins(%x : full memref<?x12288xbf16>) outs(%y : full memref<?x12288xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A kernel's norm.min_blocks_per_sm (norm-short-rows sets it on the held
// rows' version that keeps one wave at 4225-4752 x 1024) outranks the
// table, and the option outranks both.
// CHECK-LABEL: func @min_blocks_by_attribute
// CHECK: gpu.func @norm_fused
// CHECK-SAME: nvvm.minctasm = 9 : i32
// OPTBLOCKS-LABEL: func @min_blocks_by_attribute
// OPTBLOCKS: gpu.func @norm_fused
// OPTBLOCKS-SAME: nvvm.minctasm = 4 : i32
func.func @min_blocks_by_attribute(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) attributes {norm.min_blocks_per_sm = 9 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
