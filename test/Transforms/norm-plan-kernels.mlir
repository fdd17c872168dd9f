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
// BADROWS: error: norm-plan-kernels: rows-per-block must be 0 (the tuning) or positive up to 2147483647, got -1
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

// A residual add's rows streamed from L2 (rows of 64 KB): the first pass
// stores h, and every pass loads the row's four sweeps before it stores;
// no L2 prefetch, whose rows would evict h before it is read back.
// RULE-LABEL: func @streamed_residual_add
// RULE: norm.plan = #norm.plan<kind = streaming, threads = 1024, vector_width = 8, sweeps_per_step = 4, stores_early_outputs = true>
func.func @streamed_residual_add(%x: memref<?x32768xbf16>, %r: memref<?x32768xbf16>, %w: memref<32768xbf16>, %y: memref<?x32768xbf16>, %h: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>, %r : full memref<?x32768xbf16>, %w : col memref<32768xbf16>) outs(%y : full memref<?x32768xbf16>, %h : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %c: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sum = arith.addf %af, %bf : f32
    %ht = arith.truncf %sum : f32 to bf16
    %hf = arith.extf %ht : bf16 to f32
    %sq = arith.mulf %hf, %hf : f32
    %s = norm.row_reduce <add> %sq : f32
    %inv = arith.constant 3.0517578125e-05 : f32
    %mean = arith.mulf %s, %inv : f32
    %rs = math.rsqrt %mean : f32
    %n = arith.mulf %hf, %rs : f32
    %cf = arith.extf %c : bf16 to f32
    %yv = arith.mulf %n, %cf : f32
    %yt = arith.truncf %yv : f32 to bf16
    norm.yield %yt, %ht : bf16, bf16
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

// -----

// Head rows (bf16 N = 64: 8 lanes a row, 16 rows a block at once): four
// rows a group, all four loads in flight (chooseRowGroupWalk), the block's
// rows spread by M over 8 blocks per SM (chooseMinBlocks). The table's entry
// at N = 2048, measured with a block a row, does not apply.
// RULE-LABEL: func @head_rows
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, row_groups = 16, rows_per_block = 4, num_stages = 4, min_blocks = 1056>
// CHECK-LABEL: func @head_rows
// CHECK: norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, row_groups = 16, rows_per_block = 4, num_stages = 4, min_blocks = 1056>
func.func @head_rows(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Groups of columns (FP8 group scales, grouped norms): a row kernel whose
// row threads are a multiple of a group's vectors, without staging or the
// table (which measured kernels without groups). bf16 N = 512 in groups of
// 128: vectors of 8, 16 lanes a group, a warp a row (2 chunks a lane).
// RULE-LABEL: func @group_scales
// RULE: group_size = 128 : i64, norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, chunks_per_thread = 2, row_groups = 4, rows_per_block = 8>
// CHECK-LABEL: func @group_scales
// CHECK: group_size = 128 : i64, norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, chunks_per_thread = 2, row_groups = 4, rows_per_block = 8>
func.func @group_scales(%x: memref<?x512xbf16>, %s: memref<?x4xf32>, %y: memref<?x512xbf16>) {
  norm.fused ins(%x : full memref<?x512xbf16>) outs(%s : group memref<?x4xf32>, %y : full memref<?x512xbf16>) attributes {group_size = 128 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %r = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %r : f32
    %g = norm.group_reduce <max> %d : f32
    %q = arith.divf %d, %g : f32
    %t = arith.truncf %q : f32 to bf16
    norm.yield %g, %t : f32, bf16
  }
  return
}

// -----

// Groups of 1024 bf16 (128 vectors) at N = 5120: the rule's 160 threads
// become 256 (a multiple of 128), 3 chunks each.
// RULE-LABEL: func @wide_groups
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 256, vector_width = 8, chunks_per_thread = 3, rows_per_block = 4, min_blocks = 1056>
func.func @wide_groups(%x: memref<?x5120xbf16>, %y: memref<?x5120xbf16>) {
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) attributes {group_size = 1024 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %g = norm.group_reduce <add> %af : f32
    %d = arith.mulf %af, %g : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A row with groups that a block holds only with all of its threads (a
// residual add with FP8 group scales at N = 16384): 1024 threads and no
// next row prefetched into registers beside it.
// RULE-LABEL: func @long_group_rows
// RULE: norm.plan = #norm.plan<kind = row_resident, threads = 1024, vector_width = 8, chunks_per_thread = 2, rows_per_block = 2, num_stages = 1, min_blocks = 1056>
func.func @long_group_rows(%x: memref<?x16384xbf16>, %r: memref<?x16384xbf16>, %h: memref<?x16384xbf16>, %s: memref<?x128xf32>, %y: memref<?x16384xf8E4M3FN>) {
  norm.fused ins(%x : full memref<?x16384xbf16>, %r : full memref<?x16384xbf16>) outs(%h : full memref<?x16384xbf16>, %s : group memref<?x128xf32>, %y : full memref<?x16384xf8E4M3FN>) attributes {group_size = 128 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %hf = arith.addf %af, %bf : f32
    %ht = arith.truncf %hf : f32 to bf16
    %hx = arith.extf %ht : bf16 to f32
    %sq = arith.mulf %hx, %hx : f32
    %ss = norm.row_reduce <add> %sq : f32
    %yn = arith.mulf %hx, %ss : f32
    %g = norm.group_reduce <max> %yn : f32
    %q = arith.divf %yn, %g : f32
    %t = arith.truncf %q : f32 to f8E4M3FN
    norm.yield %ht, %g, %t : bf16, f32, f8E4M3FN
  }
  return
}
