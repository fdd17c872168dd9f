// RUN: norm-opt %s --norm-plan-kernels --split-input-file | FileCheck %s --check-prefix=RULE
// RUN: norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/tuning.json" --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/tuning.json min-blocks-per-sm=4" --split-input-file | FileCheck %s --check-prefix=OPTBLOCKS
// RUN: norm-opt %s --norm-plan-kernels="rows-per-block=5 shared-stages=0 l2-prefetch-rows=0" --split-input-file | FileCheck %s --check-prefix=OPTIONS
// RUN: norm-opt %s --norm-set-target="max-threads=256" --norm-plan-kernels --split-input-file | FileCheck %s --check-prefix=THREADS256
// The lowering takes the plan as written: the table's rows, stages and
// blocks per SM reach the kernel.
// RUN: norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/tuning.json" --convert-norm-to-gpu --split-input-file | FileCheck %s --check-prefix=LOWERED
// RUN: not norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: norm-plan-kernels: cannot read tuning table {{.*}}missing.json
// RUN: not norm-opt %s --norm-plan-kernels="min-blocks-per-sm=-1" 2>&1 | FileCheck %s --check-prefix=BADBLOCKS
// BADBLOCKS: error: norm-plan-kernels: min-blocks-per-sm must be 0 (no limit) to 32, got -1
// RUN: not norm-opt %s --norm-plan-kernels="rows-per-block=-1" 2>&1 | FileCheck %s --check-prefix=BADROWS
// BADROWS: error: norm-plan-kernels: rows-per-block must be 0 (the tuning) or positive, got -1
// RUN: not norm-opt %s --norm-plan-kernels="shared-stages=5" 2>&1 | FileCheck %s --check-prefix=BADSTAGES
// BADSTAGES: error: norm-plan-kernels: shared-stages must be -1 (the tuning table, else the rule), 0 (off) or 1 to 4, got 5
// RUN: not norm-opt %s --norm-plan-kernels="l2-prefetch-rows=-2" 2>&1 | FileCheck %s --check-prefix=BADL2
// BADL2: error: norm-plan-kernels: l2-prefetch-rows
// RUN: not norm-opt %s --norm-plan-kernels="bulk-stores=2" 2>&1 | FileCheck %s --check-prefix=BADBULK
// BADBULK: error: norm-plan-kernels: bulk-stores
// RUN: not norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/bad-stream-rows.json" 2>&1 | FileCheck %s --check-prefix=BADSTREAM
// BADSTREAM: error: norm-plan-kernels: {{.*}}bad-stream-rows.json: stream_rows must be true or false
// RUN: not norm-opt %s --norm-plan-kernels="tuning-table=%S/Inputs/bad-register-budget.json" 2>&1 | FileCheck %s --check-prefix=BADTABLEBUDGET
// BADTABLEBUDGET: error: norm-plan-kernels: {{.*}}bad-register-budget.json: register_budget: register-budget must be 1 to 255 elements a thread, got 100000
// A table nested 100,000 deep overflowed the stack of llvm::json's parser;
// past 16 levels it is refused before parsing.
// RUN: python3 -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not norm-opt %s --norm-plan-kernels="tuning-table=%t.deep.json" 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: error: norm-plan-kernels: {{.*}}deep.json: arrays and objects nested more than 16 deep
// RUN: not norm-compile %s -o %t.bundle --tuning-table=%t.deep.json 2>&1 | FileCheck %s --check-prefix=DEEP-COMPILE
// DEEP-COMPILE: deep.json: arrays and objects nested more than 16 deep
// An option error is checked before the pass sees the IR: no dump of it.
// BADBLOCKS-NOT: see current operation

// The rule: 128 threads of 2 chunks of 8, rows staged 2 deep, 8 rows a
// block spread over up to 1056 blocks at a short M. The table: its 3 rows
// a block, 3 pipeline stages and 2 blocks per SM. The options override
// rule and table; a smaller block limit gives a wider thread's share.
// RULE-LABEL: func @fwd
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, chunks_per_thread = 2, shared_stages = 2, l2_prefetch_rows = 1024, rows_per_block = 8, min_blocks = 1056>
// CHECK-LABEL: func @fwd
// CHECK: norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, chunks_per_thread = 2, shared_stages = 2, l2_prefetch_rows = 1024, rows_per_block = 3, num_stages = 3, min_blocks_per_sm = 2, min_blocks = 1056>
// OPTIONS-LABEL: func @fwd
// OPTIONS: norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, chunks_per_thread = 2, rows_per_block = 5>
// THREADS256-LABEL: func @fwd
// THREADS256: norm.plan = #norm.plan<kind = row_resident, threads = {{32|64|128|256}},
// LOWERED-LABEL: func @fwd
// LOWERED: arith.minui %c3, %{{.+}}
// LOWERED: gpu.func @norm_fused
// LOWERED-SAME: norm.rows_per_block = 3
// LOWERED-SAME: nvvm.minctasm = 2 : i32
// LOWERED: scf.for
// LOWERED: norm.num_stages = 3

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
// is nearest); the rule holds the row in registers.
// RULE-LABEL: func @streamed_by_table
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 384, vector_width = 8, chunks_per_thread = 4, rows_per_block = 2, min_blocks = 1056>
// CHECK-LABEL: func @streamed_by_table
// CHECK: norm.plan = #norm.plan<kind = streaming, threads = 512, vector_width = 8, chunks_per_thread = 3, l2_prefetch_rows = 171, l2_prefetch_min_rows = 513, holds_row = true>
// LOWERED-LABEL: func @streamed_by_table
// LOWERED: gpu.func @norm_fused
// LOWERED-SAME: norm.streaming
// LOWERED: ld.global.L1::evict_last.L2::cache_hint.v4.b32
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
// CHECK: min_blocks_per_sm = 9,
// OPTBLOCKS-LABEL: func @min_blocks_by_attribute
// OPTBLOCKS: min_blocks_per_sm = 4,
// LOWERED-LABEL: func @min_blocks_by_attribute
// LOWERED: gpu.func @norm_fused
// LOWERED-SAME: nvvm.minctasm = 9 : i32
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

// -----

// A plan already on the kernel (written by hand) is kept.
// RULE-LABEL: func @kept
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 64, vector_width = 8, chunks_per_thread = 4>
func.func @kept(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) attributes {norm.plan = #norm.plan<kind = row_resident, threads = 64, vector_width = 8, chunks_per_thread = 4>} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
