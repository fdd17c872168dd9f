// Register prefetch (shared-stages=0) and rows staged in shared memory.
// RUN: norm-opt %s --norm-plan-kernels="shared-stages=0" --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s
// RUN: norm-opt %s --norm-plan-kernels="shared-stages=2 bulk-stores=0" --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=STAGED
// RUN: norm-opt %s --norm-plan-kernels="shared-stages=2 bulk-stores=1" --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=BULK
// RUN: norm-opt %s --norm-plan-kernels="shared-stages=2 l2-prefetch-rows=0" --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NOL2
// RUN: norm-opt %s --norm-plan-kernels="stream-rows=true" --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=STREAM
// RUN: norm-opt %s --norm-plan-kernels --convert-norm-to-gpu="fp-contract=false" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=NOCONTRACT
// RUN: not norm-opt %s --norm-plan-kernels --convert-norm-to-gpu="combine-lanes=24" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADLANES
// RUN: norm-opt %s --norm-plan-kernels="shared-stages=0" --convert-norm-to-gpu="combine-lanes=8 combine-threads=256" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=LANES
// Every kernel needs its plan (norm-plan-kernels or written in the IR).
// RUN: not norm-opt %s --convert-norm-to-gpu --split-input-file 2>&1 | FileCheck %s --check-prefix=NOPLAN
// Compute capability 80 (sm_80, run on any GPU since Ampere): the same
// kernels without Hopper's instructions. Asked to stage, the plans do not
// (no bulk copies); the split kernel and its combine are ordinary launches
// in stream order (no griddepcontrol, no norm.programmatic); the FP8
// rounding stays arith.truncf for norm-expand-float8's integer form.
// RUN: norm-opt %S/Inputs/ampere-kernels.mlir --norm-set-target="compute-capability=80" --norm-plan-kernels="shared-stages=2 bulk-stores=1" --convert-norm-to-gpu | FileCheck %s --check-prefix=AMPERE
// AMPERE-NOT: griddepcontrol
// AMPERE-NOT: norm.programmatic
// AMPERE-NOT: cp.async.bulk
// AMPERE-NOT: mbarrier
// Long rows with a column output: a block group of 8 (no cluster), its
// zeroed workspace (a ticket line and 2 x 8 slots a group) allocated at the
// launch and passed last; each block takes a ticket (group = ticket / 8,
// column slice = ticket % 8), thread 0 publishes its block total tagged
// with the row, warp 0 polls the peers' slots and combines them.
// AMPERE-LABEL: func.func @long_bwd
// AMPERE: %[[WS:.+]] = memref.alloc(%[[GROUPS:.+]]) : memref<?x64xf32>
// AMPERE: gpu.memset %[[WS]], %{{.+}} : memref<?x64xf32>, f32
// AMPERE: gpu.launch_func @norm_fused_1::@norm_fused_1 blocks in (%[[GROUPS]], %c8{{.*}}, %c1{{.*}}) threads in (%c512{{.*}}, %c1{{.*}}, %c1{{.*}}) args({{.+}}, %[[WS]] : memref<?x64xf32>)
// AMPERE-LABEL: gpu.module @norm_fused_0
// AMPERE: arith.truncf %{{.+}} : f32 to f8E4M3FN
// AMPERE-NOT: nvvm.convert.f32x2.to.f8x2
// AMPERE-LABEL: gpu.module @norm_fused_1
// AMPERE: gpu.func @norm_fused_1({{.+}}, %[[ARG:.+]]: memref<?x64xf32>) workgroup({{.+}}, %[[TICKET:.+]] : memref<1xi32, #gpu.address_space<workgroup>>, %[[TOTALS:.+]] : memref<2x1xf32, #gpu.address_space<workgroup>>) kernel
// AMPERE-NOT: known_cluster_size
// AMPERE-SAME: norm.block_group = 8
// AMPERE-SAME: norm.column_slices = 8
// AMPERE: atom.global.add.u32 $0, [$1], 1;
// AMPERE: memref.store %{{.+}}, %[[TICKET]]
// AMPERE: gpu.barrier
// AMPERE: %[[T:.+]] = arith.index_castui %{{.+}} : i32 to index
// AMPERE: %[[GROUP:.+]] = arith.divui %[[T]], %c8
// AMPERE: %[[RANK:.+]] = arith.remui %[[T]], %c8
// AMPERE: arith.muli %[[RANK]], %c8192
// AMPERE: scf.for
// AMPERE: gpu.barrier
// AMPERE: st.relaxed.gpu.global.b64
// AMPERE: ld.relaxed.gpu.global.b64
// AMPERE-COUNT-3: gpu.shuffle xor
// AMPERE: memref.store %{{.+}}, %[[TOTALS]]
// AMPERE: gpu.barrier
// AMPERE: memref.load %[[TOTALS]]
// AMPERE-NOT: nvvm.cluster
// AMPERE-LABEL: gpu.module @norm_combine_0
// A plan written for Hopper's staged rows is refused on that target.
// RUN: not norm-opt %S/Inputs/ampere-kernels.mlir --norm-plan-kernels="shared-stages=2" --norm-set-target="compute-capability=80" --convert-norm-to-gpu 2>&1 | FileCheck %s --check-prefix=AMPERESTAGED
// AMPERESTAGED: cannot be lowered as its norm.plan says: staged rows, bulk stores and the bulk L2 prefetch need the bulk copies of compute capability 90 or newer; the target's is 80
// BADLANES: error: convert-norm-to-gpu: combine-lanes must be 0 (the rule) or a power of two up to 1024, got 24

// The mixed-order kernel: 16-byte vector loads of the row (predicated
// ld.global from the inputs' global addresses, taken once), a block
// reduction (warp shuffles, warp totals through shared memory buffers that
// alternate with the row's parity, one barrier), dx stored with vector
// stores, column partials carried across the block's rows and stored once
// per block.
// CHECK-LABEL: func @bwd
// CHECK: %[[GRID:.+]] = arith.ceildivui %{{.+}}, %c64
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256
// CHECK: gpu.launch_func @norm_combine::@norm_combine blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%c1024
// CHECK-LABEL: gpu.module @norm_fused
// CHECK: gpu.func @norm_fused(%[[DY:arg[0-9]+]]: memref<?x4096xbf16>, %[[X:arg[0-9]+]]: memref<?x4096xbf16>, %[[DX:arg[0-9]+]]: memref<?x4096xbf16>, %[[P:arg[0-9]+]]: memref<?x4096xf32>) workgroup(%[[SLOTS:.+]] : memref<2x1x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-SAME: norm.block_size = 256
// CHECK-SAME: norm.rows_per_block = 64
// CHECK-SAME: norm.vector_width = 8
// CHECK: %[[DYP:.+]] = memref.extract_aligned_pointer_as_index %[[DY]]
// CHECK: %[[DYI:.+]] = arith.index_castui %[[DYP]]
// CHECK: %[[DYG:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;" ro(%[[DYI]] : i64) -> i64
// CHECK: %[[XP:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[B:.+]] = gpu.block_id x
// CHECK: %[[ROWS:.+]]:{{[0-9]+}} = scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK: %[[DYROW:.+]] = arith.muli %[[ROW]], %c4096
// CHECK: %[[DYCOL:.+]] = arith.addi %[[DYROW]], %{{.+}} : index
// CHECK: %[[DYOFF:.+]] = arith.muli %[[DYCOL]], %c2
// CHECK: %[[DYOFF64:.+]] = arith.index_castui %[[DYOFF]] : index to i64
// CHECK: %[[DYA:.+]] = arith.addi %[[DYG]], %[[DYOFF64]] : i64
// CHECK: nvvm.inline_ptx "{ mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; @$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4]; }" ro(%[[DYA]], %{{.+}} : i64, i1) {norm.predicate_operand = 1 : i64, norm.prefetch} -> i32, i32, i32, i32
// CHECK: ld.global.v4.b32 {{.+}} {norm.predicate_operand = 1 : i64, norm.prefetch}
// CHECK: %[[PARITY:.+]] = arith.andi %[[ROW]], %c1
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK: scf.if
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%[[PARITY]], %c0{{.*}}, %{{.+}}]
// CHECK: gpu.barrier
// CHECK: %[[SRC:.+]] = arith.remui %{{.+}}, %c8
// CHECK-NEXT: memref.load %[[SLOTS]][%[[PARITY]], %c0{{.*}}, %[[SRC]]]
// CHECK-COUNT-3: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.all_reduce
// CHECK: vector.store %{{.+}}, %[[DX]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x4096xbf16>, vector<8xbf16>
// CHECK: scf.yield
// The combine after it may launch once every block has passed the loop
// (programmatic dependent launch); it waits for the kernel to complete.
// CHECK: griddepcontrol.launch_dependents;
// The f32 partials of a vector of eight bf16 columns: two 16-byte stores,
// the widest access sm_90 has.
// CHECK: vector.store %{{.+}}, %[[P]][%[[B]], %{{.+}}] {alignment = 16 : i64} : memref<?x4096xf32>, vector<4xf32>
// CHECK: vector.store %{{.+}}, %[[P]][%[[B]], %{{.+}}] {alignment = 16 : i64} : memref<?x4096xf32>, vector<4xf32>
// CHECK: gpu.return
// The combine: a block owns 32 columns (lane = column), its warps are row
// groups summing every G-th partial row with 8 accumulators (8 loads in
// flight), warp totals meet in shared memory after one barrier and warp 0
// adds the other 31 to its own in group order: a fixed order, no atomics. N = 4096 gives a grid
// of 128 blocks, so blocks of 1024 threads (G = 32 groups, rounds of 256
// partial rows) keep the chain of L2 round trips short.
// CHECK: gpu.func @norm_combine(%[[PART:.+]]: memref<?x4096xf32>, %[[DW:.+]]: memref<4096xbf16>) workgroup(%[[TOT:.+]] : memref<32x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// CHECK-SAME: norm.block_size = 1024
// CHECK-SAME: norm.cols_per_block = 32
// CHECK-SAME: norm.programmatic
// CHECK: griddepcontrol.wait;
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c32
// CHECK: %[[GROUP:.+]] = arith.divui %{{.+}}, %c32
// CHECK: %[[ROUNDS:.+]] = arith.ceildivui %{{.+}}, %c256
// CHECK: %[[ACC:.+]]:8 = scf.for %{{.+}} = %{{.+}} to %[[ROUNDS]]
// CHECK-COUNT-8: memref.load %[[PART]]
// CHECK: memref.store %{{.+}}, %[[TOT]][%[[GROUP]], %[[LANE]]]
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-31: memref.load %[[TOT]]
// CHECK-NOT: memref.load %[[TOT]]
// Lanes and threads overridden (combine-lanes=8 combine-threads=256): 8
// scalar lanes (8 columns a block), 32 row groups.
// LANES: gpu.func @norm_combine(%[[PART:.+]]: memref<?x4096xf32>, %{{.+}}: memref<4096xbf16>) workgroup(%[[TOT:.+]] : memref<32x8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// LANES-SAME: norm.block_size = 256
// LANES-SAME: norm.cols_per_block = 8
// LANES-COUNT-8: memref.load %[[PART]]
// LANES: gpu.barrier
// LANES-COUNT-31: memref.load %[[TOT]]
// CHECK: memref.store %{{.+}}, %[[DW]]
// With shared-stages=2, thread 0 copies whole rows of dy and x into shared
// memory with bulk copies one row ahead (the first before the loop), each
// row completing on its stage's mbarrier; the row loop waits on it and
// reads the row from shared memory; no register prefetch (no norm.row_loop).
// STAGED-LABEL: func @bwd
// STAGED: gpu.launch_func @norm_fused::@norm_fused {{.+}} dynamic_shared_memory_size %c32768_i32
// STAGED: memref.global "public" @norm_dynamic_shared : memref<0xi8, #gpu.address_space<workgroup>> {alignment = 16 : i64}
// STAGED: gpu.func @norm_fused({{.+}}) workgroup(%{{.+}} : memref<2x1x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[BARS:.+]] : memref<2xi64, #gpu.address_space<workgroup>>) kernel
// STAGED-SAME: norm.dynamic_shared_bytes = 32768
// STAGED-SAME: norm.shared_stages = 2
// STAGED: %[[DYN:.+]] = memref.get_global @norm_dynamic_shared
// STAGED: %[[SDY:.+]] = memref.view %[[DYN]][%c0{{.*}}][] : memref<0xi8, #gpu.address_space<workgroup>> to memref<2x512xvector<8xbf16>, #gpu.address_space<workgroup>>
// STAGED: %[[SX:.+]] = memref.view %[[DYN]][%c16384{{.*}}][] : memref<0xi8, #gpu.address_space<workgroup>> to memref<2x512xvector<8xbf16>, #gpu.address_space<workgroup>>
// STAGED-COUNT-2: mbarrier.init.shared::cta.b64
// STAGED: fence.mbarrier_init.release.cluster
// STAGED: gpu.barrier
// STAGED: mbarrier.arrive.expect_tx.shared::cta.b64 state, [$0], $1; }" ro(%{{.+}}, %c16384_i32
// STAGED-COUNT-2: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// STAGED: %[[ROWS:.+]]:16 = scf.for
// STAGED: fence.proxy.async.shared::cta
// STAGED: mbarrier.arrive.expect_tx
// STAGED-COUNT-2: cp.async.bulk.shared::cluster.global
// Stage and parity of the row in 32 bits (a 64-bit remainder is a 128-bit
// multiply-high).
// STAGED: %[[SLOT:.+]] = arith.remui %{{.+}}, %c2_i32 : i32
// STAGED-NEXT: %[[STAGE:.+]] = arith.index_castui %[[SLOT]] : i32 to index
// STAGED: arith.divui %{{.+}}, %c2_i32{{.*}} : i32
// STAGED: mbarrier.try_wait.parity.shared::cta.b64
// STAGED: memref.load %[[SDY]][%[[STAGE]], %{{.+}}] : memref<2x512xvector<8xbf16>
// STAGED: memref.load %[[SX]][%[[STAGE]], %{{.+}}]
// STAGED: gpu.barrier
// The row loop is --norm-pipeline's, with a predicated epilogue (RowStaging
// pipelines the rows; only row inputs, none here, load early).
// STAGED: } {norm.predicate_epilogue, norm.row_loop}
// STAGED: gpu.func @norm_combine
// With bulk-stores=1 (the rule's choice for this backward, N = 4096) the
// block writes each row of dx into one of two slots after the stages, and
// thread 0 stores it with one bulk copy after the next row's reduction
// barrier (the first row has none before it), the last row's after the
// loop; before each row's barrier it waits until the copies so far have
// read their slots.
// BULK-LABEL: func @bwd
// BULK: dynamic_shared_memory_size %c49152_i32
// BULK: gpu.func @norm_fused(%{{.+}}, %{{.+}}, %[[DX:.+]]: memref<?x4096xbf16>, %{{.+}}) workgroup
// BULK-SAME: norm.bulk_stores
// BULK-SAME: norm.dynamic_shared_bytes = 49152
// BULK: %[[SLOTS:.+]] = memref.view %{{.+}}[%c32768][] : memref<0xi8, #gpu.address_space<workgroup>> to memref<2x512xvector<8xbf16>, #gpu.address_space<workgroup>>
// BULK: scf.for %[[R:.+]] = %[[BEGIN:.+]] to %{{.+}} step
// BULK:   %[[K:.+]] = arith.subi %[[R]], %[[BEGIN]] : index
// BULK:   cp.async.bulk.wait_group.read 0;
// BULK:   %[[K32:.+]] = arith.index_castui %[[K]] : index to i32
// BULK-NEXT: %[[REM:.+]] = arith.remui %[[K32]], %c2_i32 : i32
// BULK-NEXT: %[[SLOT:.+]] = arith.index_castui %[[REM]] : i32 to index
// BULK:   %[[PREV:.+]] = arith.cmpi ugt, %[[K]], %c0{{.*}} : index
// BULK:   mbarrier.try_wait.parity
// BULK:   gpu.barrier
// BULK:   %[[GO:.+]] = arith.andi %{{.+}}, %[[PREV]] : i1
// BULK-NEXT: scf.if %[[GO]] {
// BULK:     memref.extract_aligned_pointer_as_index %[[SLOTS]]
// BULK:     memref.extract_aligned_pointer_as_index %[[DX]]
// BULK:     cp.async.bulk.global.shared::cta.bulk_group [global], [$1], $2; }" ro(%{{.+}}, %{{.+}}, %c8192_i32
// BULK-NEXT: cp.async.bulk.commit_group;
// BULK:   memref.store %{{.+}}, %[[SLOTS]][%[[SLOT]], %{{.+}}]
// BULK-NOT: vector.store {{.+}} %[[DX]]
// BULK:   fence.proxy.async.shared::cta;
// BULK-NEXT: scf.yield
// BULK: gpu.barrier
// BULK: cp.async.bulk.global.shared::cta.bulk_group
// BULK-NEXT: cp.async.bulk.commit_group;
// BULK: cp.async.bulk.wait_group.read 0;
// BULK: gpu.func @norm_combine
// BADBULK: bulk-stores must be -1 (the tuning rule), 0 (off) or 1 (on), got 2
func.func @bwd(%dy: memref<?x4096xbf16>, %x: memref<?x4096xbf16>, %dx: memref<?x4096xbf16>, %p: memref<?x4096xf32>, %dw: memref<4096xbf16>) {
  norm.fused ins(%dy : full memref<?x4096xbf16>, %x : full memref<?x4096xbf16>) outs(%dx : full memref<?x4096xbf16>, %p : col memref<?x4096xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %m = arith.mulf %af, %bf : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %m : bf16, f32
  }
  norm.combine ins(%p : memref<?x4096xf32>) outs(%dw : memref<4096xbf16>)
  return
}

// -----

// A row input (rstd) of staged rows: the block copies its rows' values into
// shared memory after issuing its first stages, and each row reads its own
// there instead of loading it from global memory after the stage wait.
// STAGED-LABEL: func @bwd_row_inputs
// STAGED: gpu.func @norm_fused(%{{.+}}, %{{.+}}, %[[RSTD:.+]]: memref<?xf32>, %{{.+}}, %{{.+}}) workgroup({{.+}}, %[[ROWIN:.+]] : memref<64xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// STAGED: cp.async.bulk.shared::cluster.global
// STAGED: %[[LOCAL:.+]] = arith.addi %{{.+}}, %c0
// STAGED: %[[ROW:.+]] = arith.addi %[[BEGIN:.+]], %[[LOCAL]]
// STAGED: %[[INSIDE:.+]] = arith.cmpi ult, %[[ROW]], %[[END:.+]] : index
// STAGED: scf.if %[[INSIDE]] {
// STAGED:   %[[V:.+]] = memref.load %[[RSTD]][%[[ROW]]]
// STAGED:   memref.store %[[V]], %[[ROWIN]][%[[LOCAL]]]
// STAGED: gpu.barrier
// STAGED: scf.for %[[R:.+]] = %[[BEGIN]] to %[[END]]
// STAGED:   mbarrier.try_wait.parity
// STAGED:   %[[K:.+]] = arith.subi %[[R]], %[[BEGIN]]
// STAGED:   memref.load %[[ROWIN]][%[[K]]]
// STAGED-NOT: memref.load %[[RSTD]]
// STAGED: gpu.func @norm_combine
func.func @bwd_row_inputs(%dy: memref<?x4096xbf16>, %x: memref<?x4096xbf16>, %rstd: memref<?xf32>, %dx: memref<?x4096xbf16>, %p: memref<?x4096xf32>, %dw: memref<4096xbf16>) {
  norm.fused ins(%dy : full memref<?x4096xbf16>, %x : full memref<?x4096xbf16>, %rstd : row memref<?xf32>) outs(%dx : full memref<?x4096xbf16>, %p : col memref<?x4096xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16, %b: bf16, %r: f32):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %xh = arith.mulf %bf, %r : f32
    %m = arith.mulf %af, %xh : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %r, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %m : bf16, f32
  }
  norm.combine ins(%p : memref<?x4096xf32>) outs(%dw : memref<4096xbf16>)
  return
}

// -----

// A staged forward (blocks of a few rows): thread 0 issues each row's bulk
// copy, then asks L2 for the row 4 MB of inputs ahead (4096 bf16: 512
// rows), bounded by M, so a block that starts later finds its first rows
// in L2 (chooseL2PrefetchRows); l2-prefetch-rows=0 turns it off.
// Its 4 rows a block (the rule's) follow M: min(4, max(1, ceil(M / 1056))),
// a block per row up to 1056 rows (8 per SM, chooseMinBlocks), divided by
// constants only; the kernel computes the same rows.
// STAGED-LABEL: func @staged_forward
// STAGED: %[[HM:.+]] = memref.dim %arg0, %c0
// STAGED: %[[SPREAD:.+]] = arith.ceildivui %[[HM]], %c1056
// STAGED: %[[ATLEAST:.+]] = arith.maxui %c1, %[[SPREAD]]
// STAGED: %[[R:.+]] = arith.minui %c4, %[[ATLEAST]]
// STAGED: %[[GRID:.+]] = arith.ceildivui %[[HM]], %[[R]]
// STAGED: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]],
// STAGED: gpu.func @norm_fused
// STAGED: %[[M:.+]] = memref.dim %arg0, %c0
// STAGED: %[[KSPREAD:.+]] = arith.ceildivui %[[M]], %c1056
// STAGED: arith.minui %c4{{.*}}, %{{.+}}
// STAGED: cp.async.bulk.shared::cluster.global
// STAGED-NEXT: %[[D:.+]] = arith.constant 512 : index
// STAGED-NEXT: %[[AHEAD:.+]] = arith.addi %[[ROW:.+]], %[[D]] : index
// STAGED-NEXT: %[[EXISTS:.+]] = arith.cmpi ult, %[[AHEAD]], %[[M]] : index
// STAGED-NEXT: scf.if %[[EXISTS]] {
// STAGED: %[[FIRST:.+]] = arith.muli %[[AHEAD]], %c4096
// STAGED: cp.async.bulk.prefetch.L2.global [global], $1; }" ro(%{{.+}}, %c8192_i32{{.*}} : i64, i32)
// STAGED: scf.for
// STAGED: cp.async.bulk.prefetch.L2.global
// STAGED: gpu.return
// NOL2-LABEL: func @staged_forward
// NOL2: cp.async.bulk.shared::cluster.global
// NOL2-NOT: prefetch.L2
// NOL2: gpu.return
// BADL2: l2-prefetch-rows must be -1 (the tuning rule), 0 (off) or a number of rows ahead up to 2147483647, got -2
func.func @staged_forward(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x4096xbf16>) outs(%y : full memref<?x4096xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %s : bf16, f32
  }
  return
}

// -----

// Short rows: a warp per row, reduced with shuffles (no shared memory, no
// barrier); four rows in flight per block, and up to four rows a warp
// (chooseRowGroupWalk), fewer as M spreads them over 1056 blocks.
// CHECK-LABEL: func @short_rows
// CHECK: arith.ceildivui %{{.+}}, %c1056
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.rows_in_parallel = 4
// CHECK: %[[WARP:.+]] = arith.divui %{{.+}}, %c32
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c32
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// Float products and sums may fuse into FMAs (fp-contract, the default).
// CHECK: arith.mulf %{{.+}}, %{{.+}} fastmath<contract> : f32
// CHECK: gpu.return
// NOCONTRACT-LABEL: func @short_rows
// NOCONTRACT-NOT: fastmath<contract>
// NOCONTRACT: gpu.return
func.func @short_rows(%x: memref<?x256xbf16>, %y: memref<?x256xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x256xbf16>) outs(%y : full memref<?x256xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %s : bf16, f32
  }
  return
}

// -----

// Rows of 65536 bf16 do not fit one block: a cluster of 4 blocks (grid y)
// each keeps a 16384-column slice in registers, 512 threads of 32 elements
// (one row reduction: twice the threads the rule gives LayerNorm). Thread 0 of each block
// pushes the block total into every block's slot [rank] with st.async,
// completing bytes on the receiver's mbarrier (expect-tx: 4 x 4 bytes);
// every thread waits on its own mbarrier and sums the slots in rank order.
// Cluster barriers only after the mbarrier initialization and before exit.
// Only slice 0 writes the row output. The grid is persistent: one cluster
// per row at most (the launch caps it at the clusters that fit), cluster b
// walking rows b, b + G, ... by a local step k, ceil((M - b) / G) of them.
// CHECK-LABEL: func @cluster_rows
// CHECK: %[[GRID:.+]] = arith.ceildivui %{{.+}}, %c1
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %c4{{.*}}, %{{.+}}) threads in (%c512
// CHECK: gpu.func @norm_fused({{.+}}) workgroup(%[[WARPS:.+]] : memref<2x1x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %[[TOTALS:.+]] : memref<2x1x4xf32, #gpu.address_space<workgroup>>, %[[BARS:.+]] : memref<2x1xi64, #gpu.address_space<workgroup>>) kernel
// CHECK-SAME: known_cluster_size = array<i32: 1, 4, 1>
// CHECK-SAME: norm.cluster_size = 4
// CHECK-SAME: norm.column_slices = 4
// CHECK-SAME: norm.persistent
// CHECK-SAME: norm.rows_per_block = 1
// CHECK: %[[BID:.+]] = gpu.block_id x
// CHECK: %[[SLICE:.+]] = gpu.block_id y
// CHECK-COUNT-2: mbarrier.init.shared::cta.b64
// CHECK: fence.mbarrier_init.release.cluster
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: %[[G:.+]] = gpu.grid_dim x
// CHECK: %[[HAS:.+]] = arith.cmpi ult, %[[BID]], %[[M:.+]] : index
// CHECK: %[[LEFT:.+]] = arith.subi %[[M]], %[[BID]]
// CHECK: %[[STEPS:.+]] = arith.ceildivui %[[LEFT]], %[[G]]
// CHECK: %[[COUNT:.+]] = arith.select %[[HAS]], %[[STEPS]], %[[ZERO:.+]] : index
// CHECK: scf.for %[[K:.+]] = %[[ZERO]] to %[[COUNT]] step
// CHECK: %[[STRIDE:.+]] = arith.muli %[[K]], %[[G]]
// CHECK: %[[ROW:.+]] = arith.addi %[[BID]], %[[STRIDE]]
// Thread 0 asks L2 for its slice of the row two steps ahead in the walk
// (the next one is prefetched into registers): G rows, ~4 MB past it.
// CHECK: %[[TWO:.+]] = arith.constant 2 : index
// CHECK: %[[STEPS2:.+]] = arith.muli %[[G]], %[[TWO]]
// CHECK: %[[AHEAD:.+]] = arith.addi %[[ROW]], %[[STEPS2]]
// CHECK: arith.cmpi ult, %[[AHEAD]], %[[M]]
// CHECK: %[[FIRST:.+]] = arith.muli %[[AHEAD]], %c65536
// CHECK: arith.addi %[[FIRST]], %{{.+}}
// CHECK: cp.async.bulk.prefetch.L2.global
// CHECK: arith.muli %[[ROW]], %c65536
// CHECK: ld.global.v4.b32
// CHECK: gpu.barrier
// CHECK-NOT: nvvm.cluster.arrive
// CHECK: mbarrier.arrive.expect_tx.shared::cta.b64 state, [$0], $1; }" ro(%[[BAR:.+]], %c16_i32
// CHECK-COUNT-4: st.async.shared::cluster.mbarrier::complete_tx::bytes.f32
// CHECK: mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; @!done bra waitTotals; }" ro(%[[BAR]],
// CHECK: memref.load %[[TOTALS]][%{{.+}}, %c0{{.*}}, %c0{{.*}}]
// CHECK: memref.load %[[TOTALS]][%{{.+}}, %c0{{.*}}, %c1{{.*}}]
// CHECK: memref.load %[[TOTALS]][%{{.+}}, %c0{{.*}}, %c2{{.*}}]
// CHECK: memref.load %[[TOTALS]][%{{.+}}, %c0{{.*}}, %c3{{.*}}]
// CHECK: arith.cmpi eq, %[[SLICE]], %c0
// CHECK: nvvm.cluster.arrive {aligned}
// CHECK-NEXT: nvvm.cluster.wait {aligned}
// CHECK: gpu.return
// Staged, each block of the cluster copies only its 16384-column slice:
// 2 stages x 32 KB of dynamic shared memory (over the 48 KB of static shared
// memory), from element row * 65536 + slice * 16384.
// STAGED-LABEL: func @cluster_rows
// STAGED: gpu.launch_func @norm_fused::@norm_fused blocks in (%{{.+}}, %c4{{.*}}, %{{.+}}) {{.+}} dynamic_shared_memory_size %c65536_i32
// STAGED: gpu.func @norm_fused
// STAGED-SAME: norm.cluster_size = 4
// STAGED-SAME: norm.dynamic_shared_bytes = 65536
// STAGED: %[[SLICE:.+]] = gpu.block_id y
// STAGED: %[[BASE:.+]] = arith.muli %[[SLICE]], %c16384
// STAGED: %[[SX:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<0xi8, #gpu.address_space<workgroup>> to memref<2x2048xvector<8xbf16>, #gpu.address_space<workgroup>>
// STAGED: scf.for
// STAGED: %[[FIRST:.+]] = arith.muli %{{.+}}, %c65536
// STAGED: arith.addi %[[FIRST]], %[[BASE]]
// STAGED: cp.async.bulk.shared::cluster.global
// STAGED: mbarrier.try_wait.parity.shared::cta.b64
// STAGED: %[[LOCAL:.+]] = arith.subi %{{.+}}, %[[BASE]]
// STAGED: %[[VEC:.+]] = arith.divui %[[LOCAL]], %c8
// STAGED: memref.load %[[SX]][%{{.+}}, %[[VEC]]]
// STAGED: st.async.shared::cluster.mbarrier::complete_tx::bytes.f32
// Streamed (stream-rows): one row per block of 1024 threads (rows of 64 KB
// and more), a pass over the row in 16-byte vectors for the sum (eight
// sweeps of one vector per thread, loaded in one loop step:
// chooseStreamSweeps), loaded with L2 evict_last (the row is read again),
// then a second pass that reads the row again with evict_first, all eight
// vectors before it stores the first; the row output by thread 0. The cache policies and the
// input's global address are made once per kernel.
// STREAM-LABEL: func @cluster_rows
// STREAM: gpu.launch_func @norm_fused::@norm_fused blocks in (%{{.+}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024
// STREAM: gpu.func @norm_fused
// STREAM-SAME: norm.streaming
// STREAM: %[[ROW:.+]] = gpu.block_id x
// STREAM: %[[FIRST:.+]] = nvvm.inline_ptx "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;" -> i64
// STREAM: %[[LAST:.+]] = nvvm.inline_ptx "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;" -> i64
// STREAM: %[[BASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// A streamed forward's blocks (a row each) ask L2 for the row 4 MB ahead,
// when M is at least three such distances (else the bound is 0: none).
// STREAM: %[[AHEAD:.+]] = arith.addi %[[ROW]], %c32{{.*}} : index
// STREAM: %[[ENOUGH:.+]] = arith.cmpi uge, %[[M:.+]], %c96 : index
// STREAM: %[[BOUND:.+]] = arith.select %[[ENOUGH]], %[[M]], %c0{{.*}} : index
// STREAM: arith.cmpi ult, %[[AHEAD]], %[[BOUND]] : index
// STREAM: cp.async.bulk.prefetch.L2.global [global], $1; }" ro(%{{.+}}, %c131072_i32 : i64, i32)
// STREAM: %[[SUM:.+]] = scf.for %{{.+}} = %c0{{.*}} to %c1{{.*}} step %c1{{.*}} iter_args(%{{.+}} = %{{.+}}) -> (f32)
// STREAM: %[[ADDR:.+]] = arith.addi %[[BASE]], %{{.+}} : i64
// STREAM: nvvm.inline_ptx "ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;" ro(%[[ADDR]], %[[LAST]] : i64, i64) -> i32, i32, i32, i32
// STREAM: vector.bitcast %{{.+}} : vector<4xi32> to vector<8xbf16>
// STREAM-COUNT-7: ld.global.L1::evict_last
// STREAM-NOT: ld.global
// The block's sum as in the row kernels: a butterfly of shuffles, lane 0
// of each warp stores its total, one barrier, the warp totals reduced again.
// STREAM: gpu.shuffle xor %[[SUM]], %c16_i32
// STREAM: memref.store %{{.+}}, %[[SLOTS:.+]][%{{.+}}, %c0{{.*}}, %{{.+}}] : memref<2x1x32xf32, #gpu.address_space<workgroup>>
// STREAM-NEXT: }
// STREAM-NEXT: gpu.barrier
// STREAM-NOT: gpu.barrier
// STREAM: memref.load %[[SLOTS]]
// STREAM: gpu.shuffle xor
// STREAM: scf.for %{{.+}} = %c0{{.*}} to %c1{{.*}} step %c1
// STREAM-COUNT-8: nvvm.inline_ptx "ld.global.L1::evict_first.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;" ro(%{{.+}}, %[[FIRST]] : i64, i64)
// STREAM-NOT: ld.global
// STREAM: vector.store %{{.+}}, %arg1[%[[ROW]], %{{.+}}] {alignment = 16 : i64}
// STREAM: memref.store %{{.+}}, %arg2[%[[ROW]]]
func.func @cluster_rows(%x: memref<?x65536xbf16>, %y: memref<?x65536xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x65536xbf16>) outs(%y : full memref<?x65536xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %s : bf16, f32
  }
  return
}

// -----

// Forward rows of 32768 bf16 (64 KB) do not fit one block either, but one
// wave of 1024-thread blocks streaming each row twice (the second time from
// L2) beats a cluster there (streamsLongForwardRows): no cluster, one vector
// per thread per sweep. RMSNorm's passes take the row's four sweeps in one
// step (chooseStreamSweeps), every load before the output pass's first
// store.
// CHECK-LABEL: func @long_forward_rows
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%{{.+}}, %c1{{.*}}, %c1{{.*}}) threads in (%c1024
// CHECK: gpu.func @norm_fused
// CHECK-NOT: norm.cluster_size
// CHECK-SAME: norm.streaming
// CHECK: scf.for %{{.+}} = %c0{{.*}} to %c1{{.*}} step %c1
// CHECK-COUNT-4: ld.global.L1::evict_last
// CHECK-NOT: ld.global.L1::evict_last
// CHECK: gpu.shuffle xor
// CHECK: gpu.barrier
// CHECK: scf.for %{{.+}} = %c0{{.*}} to %c1{{.*}} step %c1
// CHECK-COUNT-4: ld.global.L1::evict_first
// CHECK-NOT: ld.global
// CHECK: vector.store
// The row's rsqrt is PTX rsqrt.approx through its NVVM intrinsic, not
// math.rsqrt (which the NVVM lowering would turn into a libdevice call);
// the ftz form, as its operand (mean square + 1e-6) is never denormal.
// CHECK-NOT: math.rsqrt
// CHECK: llvm.call_intrinsic "llvm.nvvm.rsqrt.approx.ftz.f"(%{{.+}}) : (f32) -> f32
// CHECK-NOT: math.rsqrt
// CHECK: gpu.return
func.func @long_forward_rows(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %rs : bf16, f32
  }
  return
}

// -----

// LayerNorm's mean and variance over a streamed row (N = 32768 bf16): one
// pass over the row, each thread's count, mean and M2 merged per vector
// (a division by the running count), the pairs of mean and M2 merged over
// butterflies of shuffles, one barrier for the warps' moments, then the
// output pass (fusesRowMoments). Built as written it would take a pass and
// a barrier per reduction.
// CHECK-LABEL: func @layer_norm_moments
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.streaming
// CHECK: %[[MOMENTS:.+]]:3 = scf.for {{.+}} -> (f32, f32, f32)
// CHECK: arith.divf
// CHECK: scf.yield
// CHECK: gpu.shuffle xor %[[MOMENTS]]#1, %c16_i32
// CHECK: gpu.shuffle xor %[[MOMENTS]]#2, %c16_i32
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: scf.for
// CHECK: vector.store
// CHECK: gpu.return
func.func @layer_norm_moments(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %inv = arith.constant 3.05175781E-5 : f32
    %mean = arith.mulf %s, %inv : f32
    %af2 = arith.extf %a : bf16 to f32
    %dev = arith.subf %af2, %mean : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %var = arith.mulf %v, %inv : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %var, %eps : f32
    %rs = math.rsqrt %e : f32
    %n = arith.mulf %dev, %rs : f32
    %t = arith.truncf %n : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// The mean as a division by N, the constant on the left of a multiply, and
// the same x extended once for both sums: still the pair, one barrier.
// CHECK-LABEL: func @layer_norm_moments_divided
// CHECK: gpu.func @norm_fused
// CHECK: %[[MOMENTS:.+]]:3 = scf.for {{.+}} -> (f32, f32, f32)
// CHECK: gpu.shuffle xor %[[MOMENTS]]#1, %c16_i32
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @layer_norm_moments_divided(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %n = arith.constant 32768.0 : f32
    %mean = arith.divf %s, %n : f32
    %dev = arith.subf %af, %mean : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %inv = arith.constant 3.05175781E-5 : f32
    %var = arith.mulf %inv, %v : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %var, %eps : f32
    %rs = math.rsqrt %e : f32
    %o = arith.mulf %dev, %rs : f32
    %t = arith.truncf %o : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// The same body with the variance about a value other than the mean (here
// half the sum) is not a mean and variance pair: two passes, two barriers.
// CHECK-LABEL: func @not_the_mean
// CHECK: gpu.func @norm_fused
// CHECK-NOT: arith.divf
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @not_the_mean(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %half = arith.constant 0.5 : f32
    %c = arith.mulf %s, %half : f32
    %dev = arith.subf %af, %c : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %e = arith.addf %v, %half : f32
    %rs = math.rsqrt %e : f32
    %n = arith.mulf %dev, %rs : f32
    %t = arith.truncf %n : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A cluster kernel with two column outputs (the LayerNorm backward's shape)
// re-reads its staged slices after the row reduction instead of keeping
// them in registers: the weight's 4096-column slice is copied to shared
// memory once (after the two inputs' 2 x 8 KB stages), the next row is issued only after the
// reduction's barrier, and the elementwise ops after the reduction read dy,
// x and w from shared memory again.
// The two combines (dw, db) share one launch: blocks [0, 128) sum the
// first partials, blocks [128, 256) the second.
// STAGED-LABEL: func @reread_cluster_rows
// STAGED: gpu.launch_func @norm_fused::@norm_fused
// STAGED: gpu.launch_func @norm_combine::@norm_combine {{.+}} args(%arg4 : memref<?x32768xf32>, %arg6 : memref<32768xbf16>, %arg5 : memref<?x32768xf32>, %arg7 : memref<32768xbf16>)
// STAGED-NOT: gpu.launch_func
// STAGED: gpu.func @norm_fused
// STAGED-SAME: norm.cluster_size = 8
// STAGED-SAME: norm.dynamic_shared_bytes = 40960
// STAGED: %[[SDY:.+]] = memref.view %[[DYN:.+]][%c0{{.*}}][] : memref<0xi8, #gpu.address_space<workgroup>> to memref<2x512xvector<8xbf16>
// STAGED: %[[SX:.+]] = memref.view %[[DYN]][%c16384{{.*}}][] : {{.+}} to memref<2x512xvector<8xbf16>
// STAGED: %[[SW:.+]] = memref.view %[[DYN]][%c32768{{.*}}][] : {{.+}} to memref<512xvector<8xbf16>
// STAGED: memref.store %{{.+}}, %[[SW]][%{{.+}}] : memref<512xvector<8xbf16>
// STAGED: scf.for
// STAGED: mbarrier.try_wait.parity.shared::cta.b64
// STAGED: memref.load %[[SDY]][%[[STAGE:.+]], %{{.+}}]
// STAGED: memref.load %[[SX]][%[[STAGE]], %{{.+}}]
// STAGED: gpu.barrier
// STAGED: st.async.shared::cluster.mbarrier::complete_tx::bytes.f32
// STAGED: mbarrier.try_wait.parity.shared::cta.b64 done, [$0], $1; @!done bra waitTotals;
// STAGED: fence.proxy.async.shared::cta
// STAGED: cp.async.bulk.shared::cluster.global
// STAGED: memref.load %[[SDY]][%[[STAGE]], %{{.+}}]
// STAGED: memref.load %[[SX]][%[[STAGE]], %{{.+}}]
// STAGED: memref.load %[[SW]][%{{.+}}]
// STAGED: vector.store
// N = 32768 (65536 columns in all, a few partial rows from one wave of
// clusters): 16-byte loads, 64 lanes a block (256 columns) and 4 row
// groups of 256 threads, 2 x 128 blocks.
// STAGED: gpu.func @norm_combine(%[[PW:.+]]: memref<?x32768xf32>, %[[DW:.+]]: memref<32768xbf16>, %[[PB:.+]]: memref<?x32768xf32>, %[[DB:.+]]: memref<32768xbf16>) workgroup(%[[TOT:.+]] : memref<4x64xvector<4xf32>, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel
// STAGED-SAME: norm.block_size = 256
// STAGED-SAME: norm.cols_per_block = 256
// STAGED: %[[BID:.+]] = gpu.block_id x
// STAGED: %[[LANE:.+]] = arith.remui %{{.+}}, %c64
// STAGED: %[[GROUP:.+]] = arith.divui %{{.+}}, %c64
// STAGED: %[[NW:.+]] = memref.dim %[[PW]], %c1
// STAGED: %[[END:.+]] = arith.ceildivui %[[NW]], %c256
// STAGED: %[[MINE:.+]] = arith.cmpi ult, %[[BID]], %[[END]]
// STAGED: scf.if %[[MINE]]
// STAGED: vector.load %[[PW]][%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x32768xf32>, vector<4xf32>
// STAGED: memref.store %{{.+}}, %[[TOT]][%[[GROUP]], %[[LANE]]] : memref<4x64xvector<4xf32>
// STAGED-NEXT: gpu.barrier
// STAGED-COUNT-3: memref.load %[[TOT]]
// STAGED-NOT: memref.load %[[TOT]]
// STAGED: vector.store %{{.+}}, %[[DW]][%{{.+}}] {{.+}} : memref<32768xbf16>, vector<4xbf16>
// STAGED: %[[AFTER:.+]] = arith.cmpi uge, %[[BID]], %[[END]]
// STAGED: scf.if
// STAGED: arith.subi %[[BID]], %[[END]]
// STAGED: vector.load %[[PB]]
// STAGED: gpu.barrier
// STAGED: vector.store %{{.+}}, %[[DB]]
// STAGED-NOT: gpu.func @norm_combine_0
func.func @reread_cluster_rows(%dy: memref<?x32768xbf16>, %x: memref<?x32768xbf16>, %w: memref<32768xbf16>, %dx: memref<?x32768xbf16>, %pw: memref<?x32768xf32>, %pb: memref<?x32768xf32>, %dw: memref<32768xbf16>, %db: memref<32768xbf16>) {
  norm.fused ins(%dy : full memref<?x32768xbf16>, %x : full memref<?x32768xbf16>, %w : col memref<32768xbf16>) outs(%dx : full memref<?x32768xbf16>, %pw : col memref<?x32768xf32>, %pb : col memref<?x32768xf32>) attributes {rows_per_partial = 32 : i64} {
  ^bb0(%g: bf16, %a: bf16, %v: bf16):
    %gf = arith.extf %g : bf16 to f32
    %af = arith.extf %a : bf16 to f32
    %vf = arith.extf %v : bf16 to f32
    %gw = arith.mulf %gf, %vf : f32
    %m = arith.mulf %gw, %af : f32
    %s = norm.row_reduce <add> %m : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.subf %gw, %d : f32
    %t = arith.truncf %e : f32 to bf16
    %gx = arith.mulf %gf, %af : f32
    norm.yield %t, %gx, %gf : bf16, f32, f32
  }
  norm.combine ins(%pw : memref<?x32768xf32>) outs(%dw : memref<32768xbf16>)
  norm.combine ins(%pb : memref<?x32768xf32>) outs(%db : memref<32768xbf16>)
  return
}

// -----

// Two row reductions that do not depend on each other (LayerNorm
// backward's sums) share one exchange: both warp totals are stored, one
// barrier, both are reduced again. A reduction that depends on another
// (LayerNorm forward's variance after the mean) gets an exchange of its own.
// CHECK-LABEL: func @independent_sums
// CHECK: gpu.func @norm_fused
// CHECK: scf.for
// CHECK-COUNT-10: gpu.shuffle xor
// CHECK: memref.store %{{.+}}, %[[S:arg[0-9]+]][%{{.+}}, %c0{{.*}}, %{{.+}}] : memref<2x2x32xf32
// CHECK: memref.store %{{.+}}, %[[S]][%{{.+}}, %c1{{.*}}, %{{.+}}] : memref<2x2x32xf32
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
// CHECK: gpu.func @norm_fused_0
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.return
func.func @independent_sums(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>, %z: memref<?x4096xf32>) {
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%y : full memref<?x4096xf32>) {
  ^bb0(%a: f32):
    %sq = arith.mulf %a, %a : f32
    %s1 = norm.row_reduce <add> %a : f32
    %s2 = norm.row_reduce <add> %sq : f32
    %t = arith.mulf %s1, %s2 : f32
    %d = arith.mulf %a, %t : f32
    norm.yield %d : f32
  }
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%z : full memref<?x4096xf32>) {
  ^bb0(%a: f32):
    %s1 = norm.row_reduce <add> %a : f32
    %c = arith.subf %a, %s1 : f32
    %sq = arith.mulf %c, %c : f32
    %s2 = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %c, %s2 : f32
    norm.yield %d : f32
  }
  return
}

// -----

// N = 1000: bf16 vectors of 8 still divide N, and the last chunk's load is
// predicated on its column: no branch.
// CHECK-LABEL: func @guarded
// CHECK: gpu.func @norm_fused
// CHECK: %[[INSIDE:.+]] = arith.cmpi ult, %{{.+}}, %c1000
// CHECK-NOT: scf.if
// CHECK: @$5 ld.global.v4.b32 {$0, $1, $2, $3}, [$4]; }" ro(%{{.+}}, %[[INSIDE]] : i64, i1)
func.func @guarded(%x: memref<?x1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>) outs(%y : full memref<?x1000xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  return
}

// -----

func.func @needs_split(%x: memref<?x64xf32>, %dw: memref<64xf32>) {
  // expected-error @+1 {{column outputs need a split on the GPU: run --norm-split-reduction before convert-norm-to-gpu}}
  norm.fused ins(%x : full memref<?x64xf32>) outs(%dw : col memref<64xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}

// -----

func.func @dynamic_n(%x: memref<?x?xf32>, %y: memref<?x?xf32>) {
  // expected-error @+1 {{the GPU lowering needs a static normalized dimension N}}
  norm.fused ins(%x : full memref<?x?xf32>) outs(%y : full memref<?x?xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}

// -----

func.func @strided(%x: memref<?x64xf32, strided<[?, 1], offset: ?>>, %y: memref<?x64xf32>) {
  // expected-error @+1 {{the GPU lowering needs contiguous (identity layout) memrefs}}
  norm.fused ins(%x : full memref<?x64xf32, strided<[?, 1], offset: ?>>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    norm.yield %a : f32
  }
  return
}

// -----

// Rows of 64 bf16 (8 vectors) share a warp: groups of 8 lanes, 16 rows of
// a block at once, each group's reduction a butterfly over its own lanes
// (xor 4, 2, 1; no shuffle crosses into a neighbouring row). The block's
// rows follow M (chooseMinBlocks: 1056 blocks at 132 SMs, a row a group at
// least, four at most): min(64, max(16, ceil(M / 1056))), and its groups
// walk them in turn, every group ceil(rows / 16) steps.
// CHECK-LABEL: func @heads_share_a_warp
// CHECK: %[[SPREAD:.+]] = arith.ceildivui %[[M:.+]], %c1056
// CHECK: %[[ATLEAST:.+]] = arith.maxui %c16, %[[SPREAD]]
// CHECK: %[[ROWS:.+]] = arith.minui %c64, %[[ATLEAST]]
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[M]], %[[ROWS]]
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]],
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.rows_in_parallel = 16
// CHECK: %[[GROUP:.+]] = arith.divui %thread_id_x, %c8
// CHECK: %[[LANE:.+]] = arith.remui %thread_id_x, %c8
// CHECK-NOT: gpu.shuffle xor %{{.+}}, %c16_i32
// CHECK-NOT: gpu.shuffle xor %{{.+}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c4_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c2_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c1_i32
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @heads_share_a_warp(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 1.0e-06 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// With a column output (a backward's dW partials) the row groups share their
// block's rows and partial row: group g takes rows first + g + 16 k, every
// group the same number of steps (a step past the block's rows reads its
// last row again, stores nothing and adds nothing), then the groups' sums
// are added (xor 8 and 16 within a warp, the four warps through shared
// memory, in warp order) and the first group stores one partial row. The
// grid is a block per partial row: ceil(M / 64).
// CHECK-LABEL: func @heads_share_a_partial_row
// CHECK: %[[PARTIALS:.+]] = arith.ceildivui %{{.+}}, %c64
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[PARTIALS]], %{{.+}}, %{{.+}}) threads in (%c128
// CHECK: gpu.func @norm_fused({{.+}}) workgroup(%[[SUMS:.+]] : memref<4x8x8xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: norm.rows_in_parallel = 16
// CHECK: %[[GROUP:.+]] = arith.divui %thread_id_x, %c8
// CHECK: %[[FIRST:.+]] = arith.muli %block_id_x, %c64
// CHECK: %[[STEPS:.+]] = arith.ceildivui %{{.+}}, %c16
// CHECK: %[[START:.+]] = arith.addi %[[FIRST]], %[[GROUP]]
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %[[STEPS]]
// CHECK: %[[TURN:.+]] = arith.addi %[[START]], %{{.+}}
// CHECK: %[[VALID:.+]] = arith.cmpi ult, %[[TURN]], %[[END:[^ ]+]]
// CHECK: %[[ROW:.+]] = arith.minui %[[TURN]],
// CHECK: gpu.shuffle xor %{{.+}}, %c4_i32
// CHECK: scf.if %[[VALID]] {
// CHECK-NEXT: vector.store %{{.+}}, %{{.+}}[%[[ROW]], %{{.+}}]
// CHECK: %[[SUM:.+]] = arith.addf %{{.+}}, %{{.+}}
// CHECK-NEXT: arith.select %[[VALID]], %[[SUM]], %{{.+}} : f32
// CHECK: } {norm.row_loop}
// CHECK: gpu.shuffle xor %{{.+}}, %c8_i32
// CHECK: gpu.shuffle xor %{{.+}}, %c16_i32
// CHECK: memref.store %{{.+}}, %[[SUMS]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SUMS]][%c0
// CHECK: memref.load %[[SUMS]][%c1
// CHECK: memref.load %[[SUMS]][%c2
// CHECK: memref.load %[[SUMS]][%c3
// CHECK: %[[LEADS:.+]] = arith.cmpi eq, %[[GROUP]], %c0
// CHECK: %[[STORES:.+]] = arith.andi %{{.+}}, %[[LEADS]]
// CHECK: scf.if %[[STORES]] {
// CHECK: vector.store %{{.+}}, %{{.+}}[%block_id_x, %{{.+}}] {{.+}} : memref<?x64xf32>, vector<4xf32>
func.func @heads_share_a_partial_row(%dy: memref<?x64xbf16>, %x: memref<?x64xbf16>, %r: memref<?xf32>, %dx: memref<?x64xbf16>, %ws: memref<?x64xf32>) {
  norm.fused ins(%dy : full memref<?x64xbf16>, %x : full memref<?x64xbf16>, %r : row memref<?xf32>) outs(%dx : full memref<?x64xbf16>, %ws : col memref<?x64xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%g: bf16, %a: bf16, %rs: f32):
    %gf = arith.extf %g : bf16 to f32
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %rs : f32
    %p = arith.mulf %gf, %xh : f32
    %s = norm.row_reduce <add> %p : f32
    %c = arith.constant 1.562500e-02 : f32
    %m = arith.mulf %s, %c : f32
    %q = arith.mulf %xh, %m : f32
    %d = arith.subf %gf, %q : f32
    %o = arith.mulf %d, %rs : f32
    %t = arith.truncf %o : f32 to bf16
    norm.yield %t, %p : bf16, f32
  }
  return
}

// -----

// A gate's sigmoid: f32 math.exp becomes x * log2(e) and PTX ex2.approx.f32
// through its NVVM intrinsic (no libdevice call), in every kernel.
// CHECK-LABEL: func @sigmoid_gate
// CHECK: gpu.func @norm_fused
// CHECK-NOT: math.exp
// CHECK: %[[L:.+]] = arith.constant 1.44269502 : f32
// CHECK: %[[P:.+]] = arith.mulf %{{.+}}, %[[L]]{{.*}} : f32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[P]]) : (f32) -> f32
// CHECK-NOT: math.exp
// CHECK: gpu.return
func.func @sigmoid_gate(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    %n = arith.negf %a : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %one, %d : f32
    norm.yield %s : f32
  }
  return
}

// -----

// A division marked afn (the gates' sigmoid) becomes PTX div.full.f32 through
// its NVVM intrinsic; one without the flag (an FP8 scale's) stays IEEE.
// CHECK-LABEL: func @approx_division
// CHECK: gpu.func @norm_fused
// CHECK: llvm.call_intrinsic "llvm.nvvm.div.full"(%{{.+}}, %{{.+}}) : (f32, f32) -> f32
// CHECK: arith.divf %{{.+}}, %{{.+}} : f32
// CHECK-NOT: llvm.call_intrinsic "llvm.nvvm.div.full"
// CHECK: gpu.return
func.func @approx_division(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %d = arith.addf %one, %a : f32
    %s = arith.divf %one, %d fastmath<afn> : f32
    %t = arith.divf %s, %d : f32
    norm.yield %t : f32
  }
  return
}

// -----

// An FP8 output: f32 -> f8E4M3FN becomes PTX cvt.rn.satfinite.e4m3x2.f32
// (nvvm.convert.f32x2.to.f8x2 with 0 as its other half) and the low byte.
// CHECK-LABEL: func @fp8_output
// CHECK: gpu.func @norm_fused
// CHECK-NOT: arith.truncf %{{.+}} : f32 to f8E4M3FN
// CHECK: %[[P:.+]] = nvvm.convert.f32x2.to.f8x2 %{{.+}}, %{{.+}} {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : i16(f8E4M3FN)
// CHECK: %[[B:.+]] = arith.trunci %[[P]] : i16 to i8
// CHECK: arith.bitcast %[[B]] : i8 to f8E4M3FN
// CHECK: gpu.return
func.func @fp8_output(%x: memref<?x64xf32>, %y: memref<?x64xf8E4M3FN>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf8E4M3FN>) {
  ^bb0(%a: f32):
    %t = arith.truncf %a : f32 to f8E4M3FN
    norm.yield %t : f8E4M3FN
  }
  return
}

// -----

func.func @fp8_from_f16(%x: memref<?x64xf32>, %y: memref<?x64xf8E4M3FN>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf8E4M3FN>) {
  ^bb0(%a: f32):
    %h = arith.truncf %a : f32 to f16
    // expected-error @+1 {{rounds to f8E4M3FN from a type other than f32}}
    %t = arith.truncf %h : f16 to f8E4M3FN
    norm.yield %t : f8E4M3FN
  }
  return
}

// -----

func.func @unsupported_body(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{'math.log' op is not supported in a norm.fused body by the GPU lowering}}
    %e = math.log %a : f32
    norm.yield %e : f32
  }
  return
}

// -----

// Staged cluster slices of a row that the slices do not divide (N = 40000
// over 4 blocks of 10240 columns): every block copies min(10240, 40000 -
// slice base) elements, which is 9280 for the last, and expects as many
// bytes on its stage's mbarrier.
// STAGED-LABEL: func @ragged_cluster_rows
// STAGED: gpu.func @norm_fused
// STAGED-SAME: norm.cluster_size = 4
// STAGED: %[[BASE:.+]] = arith.muli %{{.+}}, %c10240
// STAGED: %[[REST:.+]] = arith.subi %c40000{{.*}}, %[[BASE]]
// STAGED: %[[COUNT:.+]] = arith.minui %c10240{{.*}}, %[[REST]]
// STAGED: %[[EXPECT:.+]] = arith.muli %[[COUNT]], %c2
// STAGED: %[[TX:.+]] = arith.index_castui %[[EXPECT]] : index to i32
// STAGED: mbarrier.arrive.expect_tx{{.+}}ro(%{{.+}}, %[[TX]] :
// STAGED: %[[SIZE:.+]] = arith.muli %[[COUNT]], %c2
// STAGED: %[[COPY:.+]] = arith.index_castui %[[SIZE]] : index to i32
// STAGED: cp.async.bulk.shared::cluster.global{{.+}}ro(%{{.+}}, %{{.+}}, %[[COPY]],
func.func @ragged_cluster_rows(%x: memref<?x40000xbf16>, %y: memref<?x40000xbf16>, %r: memref<?xf32>) {
  norm.fused ins(%x : full memref<?x40000xbf16>) outs(%y : full memref<?x40000xbf16>, %r : row memref<?xf32>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %s : bf16, f32
  }
  return
}

// -----

// Combines share a launch only when adjacent: an op between them (here a
// store to the first one's output) keeps them in two kernels, in order.
// CHECK-LABEL: func @combines_apart
// CHECK: gpu.launch_func @norm_combine::@norm_combine {{.+}} args(%arg0 : memref<?x1024xf32>, %arg1 : memref<1024xf32>)
// CHECK: memref.store
// CHECK: gpu.launch_func @norm_combine_0::@norm_combine_0 {{.+}} args(%arg2 : memref<?x1024xf32>, %arg3 : memref<1024xf32>)
func.func @combines_apart(%pw: memref<?x1024xf32>, %dw: memref<1024xf32>, %pb: memref<?x1024xf32>, %db: memref<1024xf32>) {
  norm.combine ins(%pw : memref<?x1024xf32>) outs(%dw : memref<1024xf32>)
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %dw[%c0] : memref<1024xf32>
  norm.combine ins(%pb : memref<?x1024xf32>) outs(%db : memref<1024xf32>)
  return
}

// -----

// norm-short-rows' two parts: the row kernel (dx) signals its dependents
// as it starts, and the whole-column kernel beside it (dw: a programmatic
// dependent) sums every row of its 32 columns (4 lanes of 8 bf16) over 64
// row groups of 4 rows a round, meets the groups in shared memory, and
// waits for the row kernel only at its end. Its grid is N / 32.
// CHECK-LABEL: func @side_by_side
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in
// CHECK: %[[C32:.+]] = arith.constant 32 : index
// CHECK: gpu.launch_func @norm_columns::@norm_columns blocks in (%[[C32]], %{{.+}}, %{{.+}}) threads in (%c256
// CHECK: gpu.func @norm_fused(
// CHECK-NEXT: nvvm.inline_ptx "griddepcontrol.launch_dependents;"
// CHECK: gpu.func @norm_columns({{.+}}) workgroup(%[[TOTALS:.+]] : memref<1x64x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}) kernel attributes {{{.*}}norm.cols_per_block = 32 : i64, norm.programmatic}
// CHECK: scf.for
// CHECK-COUNT-8: vector.load %{{.+}} : memref<?x1024xbf16>, vector<8xbf16>
// CHECK: arith.select
// CHECK: scf.yield
// CHECK: memref.store %{{.+}}, %[[TOTALS]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK: memref.store %{{.+}} : memref<1024xbf16>
// CHECK: nvvm.inline_ptx "griddepcontrol.wait;"
// CHECK-NEXT: gpu.return
func.func @side_by_side(%dy: memref<?x1024xbf16>, %x: memref<?x1024xbf16>, %rstd: memref<?xf32>, %w: memref<1024xbf16>,
                        %dx: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%dy : full memref<?x1024xbf16>, %x : full memref<?x1024xbf16>, %rstd : row memref<?xf32>, %w : col memref<1024xbf16>) outs(%dx : full memref<?x1024xbf16>) {
  ^bb0(%g: bf16, %a: bf16, %r: f32, %wt: bf16):
    %gf = arith.extf %g : bf16 to f32
    %wf = arith.extf %wt : bf16 to f32
    %gw = arith.mulf %gf, %wf : f32
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %p = arith.mulf %gw, %xh : f32
    %s = norm.row_reduce <add> %p : f32
    %d = arith.mulf %xh, %s : f32
    %e = arith.subf %gw, %d : f32
    %f = arith.mulf %r, %e : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%dy : full memref<?x1024xbf16>, %x : full memref<?x1024xbf16>, %rstd : row memref<?xf32>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%g: bf16, %a: bf16, %r: f32):
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %gf = arith.extf %g : bf16 to f32
    %v = arith.mulf %gf, %xh : f32
    norm.yield %v : f32
  }
  return
}

// -----

// At N = 12288 bf16 one block of the row kernel (768 threads) leaves its SM
// too few registers for a column block, so its rows spread over the 132 -
// 48 SMs the 48 column blocks leave (chooseMinBlocks), not 1056 blocks:
// min(4, max(1, ceil(M / 84))) rows a block, two from 85 rows.
// CHECK-LABEL: func @side_by_side_full_sms
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK: %[[SPREAD:.+]] = arith.ceildivui %[[M]], %c84
// CHECK: %[[ATLEAST:.+]] = arith.maxui %c1{{.*}}, %[[SPREAD]]
// CHECK: %[[ROWS:.+]] = arith.minui %c4{{.*}}, %[[ATLEAST]]
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[M]], %[[ROWS]]
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c768
// CHECK: %[[C48:.+]] = arith.constant 48 : index
// CHECK: gpu.launch_func @norm_columns::@norm_columns blocks in (%[[C48]], %{{.+}}, %{{.+}}) threads in (%c256
// CHECK: gpu.func @norm_fused(
// CHECK: arith.ceildivui %{{.+}}, %c84
func.func @side_by_side_full_sms(%dy: memref<?x12288xbf16>, %x: memref<?x12288xbf16>, %rstd: memref<?xf32>, %w: memref<12288xbf16>,
                                 %dx: memref<?x12288xbf16>, %dw: memref<12288xbf16>) {
  norm.fused ins(%dy : full memref<?x12288xbf16>, %x : full memref<?x12288xbf16>, %rstd : row memref<?xf32>, %w : col memref<12288xbf16>) outs(%dx : full memref<?x12288xbf16>) {
  ^bb0(%g: bf16, %a: bf16, %r: f32, %wt: bf16):
    %gf = arith.extf %g : bf16 to f32
    %wf = arith.extf %wt : bf16 to f32
    %gw = arith.mulf %gf, %wf : f32
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %p = arith.mulf %gw, %xh : f32
    %s = norm.row_reduce <add> %p : f32
    %d = arith.mulf %xh, %s : f32
    %e = arith.subf %gw, %d : f32
    %f = arith.mulf %r, %e : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%dy : full memref<?x12288xbf16>, %x : full memref<?x12288xbf16>, %rstd : row memref<?xf32>) outs(%dw : col memref<12288xbf16>) attributes {norm.whole_columns} {
  ^bb0(%g: bf16, %a: bf16, %r: f32):
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %gf = arith.extf %g : bf16 to f32
    %v = arith.mulf %gf, %xh : f32
    norm.yield %v : f32
  }
  return
}

// -----

// A whole-column kernel reading what the kernel before it writes is an
// ordinary launch: no programmatic start, no wait, no early signal.
// CHECK-LABEL: func @columns_after_producer
// CHECK: gpu.func @norm_fused(
// CHECK-NOT: griddepcontrol
// CHECK: gpu.func @norm_columns(
// CHECK-NOT: norm.programmatic
// CHECK-NOT: griddepcontrol
// CHECK: gpu.return
func.func @columns_after_producer(%x: memref<?x1024xbf16>, %y: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%y : full memref<?x1024xbf16>) {
  ^bb0(%a: bf16):
    norm.yield %a : bf16
  }
  norm.fused ins(%y : full memref<?x1024xbf16>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    norm.yield %af : f32
  }
  return
}

// -----

// norm.stream_rows (norm-short-rows' short forward) asks for the streamed
// kernel whatever the options: no shared stages.
// CHECK-LABEL: func @streamed_by_attribute
// CHECK: gpu.func @norm_fused({{.*}} kernel attributes {{{.*}}norm.streaming
// CHECK-NOT: mbarrier
// CHECK: gpu.return
func.func @streamed_by_attribute(%x: memref<?x4096xbf16>, %y: memref<?x4096xbf16>) {
  norm.fused ins(%x : full memref<?x4096xbf16>) outs(%y : full memref<?x4096xbf16>) attributes {norm.stream_rows} {
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

// A streamed row that one vector a thread covers (N = 1000: 125 vectors,
// 128 threads) stays in registers: x is loaded once, before the reduction,
// with evict_last (evict_first lost 15-22% there on the H200); no loop and
// no second load of x. Its one column input (the weight) is loaded with it,
// predicated on the row lying below M, which ptxas cannot prove and so
// does not sink the load to the barrier (preloadsColumns).
// CHECK-LABEL: func @row_in_registers
// CHECK: gpu.func @norm_fused({{.*}} kernel attributes {{{.*}}norm.streaming
// CHECK: %[[BLOCK:.+]] = gpu.block_id x
// CHECK: %[[LAST:.+]] = nvvm.inline_ptx "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;" -> i64
// CHECK: %[[XBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[WBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK-NOT: scf.for
// The loads of the last vectors are predicated on the column (no branch).
// CHECK: %[[INSIDE:.+]] = arith.cmpi ult, %{{.+}}, %c1000 : index
// CHECK-NOT: scf.if
// CHECK: %[[XADDR:.+]] = arith.addi %[[XBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{ mov.b32 $0, 0; mov.b32 $1, 0; mov.b32 $2, 0; mov.b32 $3, 0; @$6 ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5; }" ro(%[[XADDR]], %[[LAST]], %[[INSIDE]] : i64, i64, i1) {norm.predicate_operand = 2 : i64}
// CHECK: %[[HAS_ROW:.+]] = arith.cmpi ult, %[[BLOCK]], %[[M]]
// CHECK: %[[WHERE:.+]] = arith.andi %[[INSIDE]], %[[HAS_ROW]]
// CHECK: %[[WADDR:.+]] = arith.addi %[[WBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5; }" ro(%[[WADDR]], %[[LAST]], %[[WHERE]] : i64, i64, i1)
// CHECK-NOT: scf.for
// CHECK: gpu.barrier
// CHECK-NOT: ld.global
// CHECK: scf.if %[[INSIDE]] {
// CHECK-NEXT: vector.store %{{.+}}, %arg2[%{{.+}}, %{{.+}}] {alignment = 16 : i64} : memref<?x1000xbf16>, vector<8xbf16>
// CHECK: gpu.return
func.func @row_in_registers(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Two column inputs (LayerNorm's weight and bias) in a block of one row
// are loaded where the output pass uses them, after the reduction (loaded
// with the row they lost up to 16% on the H200).
// CHECK-LABEL: func @row_in_registers_two_columns
// CHECK: %[[XBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[WBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[BBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[XADDR:.+]] = arith.addi %[[XBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[XADDR]],
// CHECK-NOT: ld.global
// CHECK: gpu.barrier
// CHECK-NOT: %[[XBASE]],
// CHECK: %[[WADDR:.+]] = arith.addi %[[WBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[WADDR]],
// CHECK: %[[BADDR:.+]] = arith.addi %[[BBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[BADDR]],
// CHECK: gpu.return
func.func @row_in_registers_two_columns(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %b: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>, %b : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16, %bv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %f = arith.addf %e, %bf : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Its one-row version (a static M of 1) first asks L1 for the weight and
// bias (prefetchesColumnsToL1), before the row's load: ptxas sinks the
// column loads to the barrier, the prefetches have no result to sink.
// CHECK-LABEL: func @one_row_two_columns_prefetched
// CHECK: nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[WBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[BBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[WPRE:.+]] = arith.addi %[[WBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "@$1 prefetch.global.L1 [$0];" ro(%[[WPRE]], %{{.+}} : i64, i1)
// CHECK: %[[BPRE:.+]] = arith.addi %[[BBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "@$1 prefetch.global.L1 [$0];" ro(%[[BPRE]], %{{.+}} : i64, i1)
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}"
// CHECK: gpu.barrier
// CHECK-NOT: prefetch
// CHECK: gpu.return
func.func @one_row_two_columns_prefetched(%x: memref<1x1000xbf16>, %w: memref<1000xbf16>, %b: memref<1000xbf16>, %y: memref<1x1000xbf16>) {
  norm.fused ins(%x : full memref<1x1000xbf16>, %w : col memref<1000xbf16>, %b : col memref<1000xbf16>) outs(%y : full memref<1x1000xbf16>) attributes {norm.preload_columns, norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16, %bv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %f = arith.addf %e, %bf : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// With norm.preload_columns (norm-short-rows' version of a few rows) the
// weight and bias are loaded with the row, before the reduction's barrier.
// CHECK-LABEL: func @row_in_registers_two_columns_preloaded
// CHECK: %[[XBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[WBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[BBASE:.+]] = nvvm.inline_ptx "cvta.to.global.u64 $0, $1;"
// CHECK: %[[XADDR:.+]] = arith.addi %[[XBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[XADDR]],
// CHECK: %[[WADDR:.+]] = arith.addi %[[WBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[WADDR]],
// CHECK: %[[BADDR:.+]] = arith.addi %[[BBASE]], %{{.+}} : i64
// CHECK: nvvm.inline_ptx "{{.+}}ld.global{{.+}}" ro(%[[BADDR]],
// CHECK: gpu.barrier
// CHECK-NOT: ld.global
// CHECK: gpu.return
func.func @row_in_registers_two_columns_preloaded(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %b: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>, %b : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.preload_columns, norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16, %bv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %f = arith.addf %e, %bf : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A kernel of one row (a static M of 1, norm-short-rows' one-row version) is
// a grid of one block, which spreads the row over 256 threads of 4 elements
// (chooseOneRowLayout) where any other M gets 128 threads of 8. Its
// reduction is built for latency (RowLayout::latencyBoundReductions): each
// thread's four elements sum as a tree, and after the barrier every thread
// reads all 8 warp totals and sums them as a tree, without shuffles.
// CHECK-LABEL: func @one_row_wider_block
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in ({{.+}}) threads in (%c256,
// CHECK: gpu.func @norm_fused({{.+}}) workgroup(%[[SLOTS:[^ ]+]] : memref<2x1x32xf32, {{.+}}known_block_size = array<i32: 256, 1, 1>
// CHECK: %[[ROW:.+]]:2 = nvvm.inline_ptx "{{.+}}ld.global.v2.b32{{.+}}"
// CHECK: vector.bitcast %{{.+}} : vector<2xi32> to vector<4xbf16>
// CHECK: %[[E0:.+]] = arith.select
// CHECK: %[[E1:.+]] = arith.select
// CHECK: %[[E2:.+]] = arith.select
// CHECK: %[[E3:.+]] = arith.select
// CHECK: %[[P01:.+]] = arith.addf %[[E0]], %[[E1]]
// CHECK: %[[P23:.+]] = arith.addf %[[E2]], %[[E3]]
// CHECK: arith.addf %[[P01]], %[[P23]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-8: memref.load %[[SLOTS]]
// CHECK-NOT: gpu.shuffle
// CHECK: %[[T01:.+]] = arith.addf
// CHECK: %[[T23:.+]] = arith.addf
// CHECK: %[[T45:.+]] = arith.addf
// CHECK: %[[T67:.+]] = arith.addf
// CHECK: %[[T0123:.+]] = arith.addf %[[T01]], %[[T23]]
// CHECK: %[[T4567:.+]] = arith.addf %[[T45]], %[[T67]]
// CHECK: arith.addf %[[T0123]], %[[T4567]]
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @one_row_wider_block(%x: memref<1x1000xbf16>, %w: memref<1000xbf16>, %y: memref<1x1000xbf16>) {
  norm.fused ins(%x : full memref<1x1000xbf16>, %w : col memref<1000xbf16>) outs(%y : full memref<1x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Any other M gets 128 threads of 8. A row a block that loads its one
// column input with the row (preloadsColumns) has nothing to hide latency
// behind either, so it too reads its 4 warp totals without shuffles
// (rowABlockReducesForLatency)...
// CHECK-LABEL: func @many_rows_block
// CHECK: threads in (%c128,
// CHECK: gpu.func @norm_fused({{.+}}) workgroup(%[[SLOTS:[^ ]+]] : memref<2x1x32xf32,
// CHECK: ld.global{{.*}}.v4.b32
// CHECK: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK-COUNT-4: memref.load %[[SLOTS]]
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @many_rows_block(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// ...while one that loads its two column inputs (weight and bias) after the
// reduction keeps the shuffled exchange: its registers count more.
// CHECK-LABEL: func @row_a_block_columns_late
// CHECK: threads in (%c128,
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor
func.func @row_a_block_columns_late(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %bias: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>, %bias : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows} {
  ^bb0(%a: bf16, %wv: bf16, %bv: bf16):
    %af = arith.extf %a : bf16 to f32
    %wf = arith.extf %wv : bf16 to f32
    %bf = arith.extf %bv : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %wf : f32
    %f = arith.addf %e, %bf : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A streamed block that holds its rows takes norm.rows_per_block of them
// (norm-short-rows sets 4 from 3168 rows, chooseHeldRows): rows b * 2 and
// b * 2 + 1, the second's loads predicated on its existence (below M), both
// rows' loads before the one barrier that reduces both (slots [.][0][.] and
// [.][1][.]), the weight loaded once for both with the rows, predicated on
// the first row being below M (so ptxas does not sink it to the barrier),
// the second row's store guarded; the grid is ceil(M / 2).
// CHECK-LABEL: func @held_rows
// CHECK: %[[ROWS:.+]] = memref.dim %arg0, %c0
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[ROWS]], %c2
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]],
// CHECK: gpu.func @norm_fused({{.*}} workgroup(%[[SLOTS:.+]] : memref<2x2x32xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64})
// CHECK-SAME: norm.rows_per_block = 2 : i64
// CHECK: %[[BLOCK:.+]] = gpu.block_id x
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK: %[[FIRST:.+]] = arith.muli %[[BLOCK]], %c2
// CHECK: %[[SECOND:.+]] = arith.addi %[[FIRST]], %c1
// CHECK: %[[EXISTS:.+]] = arith.cmpi ult, %[[SECOND]], %[[M]]
// CHECK: nvvm.inline_ptx "{{.*}}ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %{{.+}} : i64, i64, i1)
// CHECK: %[[BOTH:.+]] = arith.andi %{{.+}}, %[[EXISTS]]
// CHECK: nvvm.inline_ptx "{{.*}}ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %[[BOTH]] : i64, i64, i1)
// CHECK: %[[HAS_ROWS:.+]] = arith.cmpi ult, %[[FIRST]], %{{.+}}
// CHECK: %[[WEIGHT_WHERE:.+]] = arith.andi %{{.+}}, %[[HAS_ROWS]]
// CHECK: nvvm.inline_ptx "{{.*}}ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %[[WEIGHT_WHERE]] : i64, i64, i1)
// CHECK-NOT: ld.global
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}, %c0{{[_0-9]*}}, %{{.+}}]
// CHECK: memref.store %{{.+}}, %[[SLOTS]][%{{.+}}, %c1{{[_0-9]*}}, %{{.+}}]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK-NOT: ld.global
// CHECK: vector.store %{{.+}}, %arg2[%[[FIRST]],
// CHECK: %[[STORE:.+]] = arith.andi %{{.+}}, %[[EXISTS]]
// CHECK: scf.if %[[STORE]]
// CHECK: vector.store %{{.+}}, %arg2[%[[SECOND]],
// CHECK: gpu.return
func.func @held_rows(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Held rows of at most 1 KiB (predicatesRowStores) store their 16-byte
// vectors as st.global: the first row's unpredicated, the second's
// predicated on its existence (no scf.if, whose branch LLVM would sink the
// row's normalization into), its predicate marked for --norm-pipeline.
// CHECK-LABEL: func @held_short_rows
// CHECK: gpu.func @norm_fused(
// CHECK: %[[FIRST:.+]] = arith.muli %{{.+}}, %c2
// CHECK: %[[SECOND:.+]] = arith.addi %[[FIRST]], %c1
// CHECK: %[[EXISTS:.+]] = arith.cmpi ult, %[[SECOND]], %{{.+}}
// CHECK: gpu.shuffle xor
// CHECK-NOT: vector.store
// CHECK: nvvm.inline_ptx "st.global.v4.b32 [$0], {$1, $2, $3, $4};" ro(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : i64, i32, i32, i32, i32)
// CHECK-NOT: scf.if
// CHECK: nvvm.inline_ptx "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};" ro(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[EXISTS]] : i64, i32, i32, i32, i32, i1) {norm.predicate_operand = 5 : i64}
// CHECK-NEXT: gpu.return
func.func @held_short_rows(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Where M is a multiple of a block's rows (norm.rows_multiple, set by
// norm-short-rows on the versions for such M) every held row exists: no
// comparison with M but the one that keeps the weight load from sinking,
// and the second row's loads and store unpredicated; one column input
// needs no fence.
// CHECK-LABEL: func @held_whole_blocks
// CHECK: gpu.func @norm_fused(
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK: %[[FIRST:.+]] = arith.muli %{{.+}}, %c2
// CHECK: %[[SECOND:.+]] = arith.addi %[[FIRST]], %c1
// CHECK-NOT: arith.cmpi ult, %[[SECOND]]
// CHECK: %[[HAS_ROWS:.+]] = arith.cmpi ult, %[[FIRST]], %[[M]]
// CHECK-NOT: arith.cmpi ult
// CHECK-NOT: nvvm.memory.barrier
// CHECK: nvvm.inline_ptx "st.global.v4.b32 [$0], {$1, $2, $3, $4};"
// CHECK-NOT: scf.if
// CHECK: nvvm.inline_ptx "st.global.v4.b32 [$0], {$1, $2, $3, $4};"
// CHECK-NEXT: gpu.return
func.func @held_whole_blocks(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.rows_multiple = 4 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// norm.whole_blocks_branch (set by norm-short-rows on the versions for M
// that is not a multiple of the block's rows) branches on whether the
// block's rows all exist, M read once above the branch: the whole blocks
// take the code without row bounds (with the fence of the weight and bias
// loads), the grid's last block the bounded code.
// CHECK-LABEL: func @held_whole_blocks_branch
// CHECK: gpu.func @norm_fused(
// CHECK: %[[BLOCK:.+]] = gpu.block_id x
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK: %[[NEXT:.+]] = arith.addi %[[BLOCK]], %c1
// CHECK: %[[END:.+]] = arith.muli %[[NEXT]], %c2
// CHECK: %[[WHOLE:.+]] = arith.cmpi ule, %[[END]], %[[M]]
// CHECK: scf.if %[[WHOLE]] {
// CHECK: %[[FIRST:.+]] = arith.muli %[[BLOCK]], %c2
// CHECK: %[[SECOND:.+]] = arith.addi %[[FIRST]], %c1
// CHECK-NOT: arith.cmpi ult, %[[SECOND]]
// CHECK: nvvm.memory.barrier <cta>
// CHECK: gpu.shuffle
// CHECK-NOT: @$5 st.global
// CHECK: } else {
// CHECK: %[[FIRST1:.+]] = arith.muli %[[BLOCK]], %c2
// CHECK: %[[SECOND1:.+]] = arith.addi %[[FIRST1]], %c1
// CHECK: %[[EXISTS:.+]] = arith.cmpi ult, %[[SECOND1]], %[[M]]
// CHECK-NOT: nvvm.memory.barrier
// CHECK: nvvm.inline_ptx "@$5 st.global.v4.b32 [$0], {$1, $2, $3, $4};" ro({{.*}}, %[[EXISTS]] : {{.*}}norm.predicate_operand = 5 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @held_whole_blocks_branch(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %b: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>, %b : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.whole_blocks_branch} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %e = arith.mulf %af, %s : f32
    %f = arith.mulf %e, %cf : f32
    %g = arith.addf %f, %df : f32
    %t = arith.truncf %g : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A static M that the block's rows divide keeps the bounds without the
// attribute (where they go is the tuning's choice, made in norm-short-rows);
// with it, none, and a kernel that preloads two column inputs (LayerNorm's
// weight and bias) fences their loads (nvvm.memory.barrier, membar.cta) so
// that ptxas keeps them ahead of the first reduction (fencesColumnLoads).
// CHECK-LABEL: func @held_whole_blocks_static
// CHECK: gpu.func @norm_fused(
// CHECK: %[[SECOND:.+]] = arith.addi %{{.+}}, %c1
// CHECK: arith.cmpi ult, %[[SECOND]]
// CHECK-NOT: nvvm.memory.barrier
// CHECK: gpu.return
// CHECK: gpu.func @norm_fused_0(
// CHECK: %[[SECOND0:.+]] = arith.addi %{{.+}}, %c1
// CHECK-NOT: arith.cmpi ult, %[[SECOND0]]
// CHECK: ld.global
// CHECK: ld.global
// CHECK: ld.global
// CHECK: ld.global
// CHECK-NOT: gpu.shuffle
// CHECK: nvvm.memory.barrier <cta>
// CHECK-NOT: ld.global
// CHECK: gpu.shuffle
// CHECK: gpu.return
func.func @held_whole_blocks_static(%x: memref<4096x256xbf16>, %w: memref<256xbf16>, %b: memref<256xbf16>, %y: memref<4096x256xbf16>) {
  norm.fused ins(%x : full memref<4096x256xbf16>, %w : col memref<256xbf16>, %b : col memref<256xbf16>) outs(%y : full memref<4096x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %e = arith.mulf %af, %s : f32
    %g = arith.mulf %e, %cf : f32
    %h = arith.addf %g, %df : f32
    %t = arith.truncf %h : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<4096x256xbf16>, %w : col memref<256xbf16>, %b : col memref<256xbf16>) outs(%y : full memref<4096x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.rows_multiple = 4 : i64} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %e = arith.mulf %af, %s : f32
    %g = arith.mulf %e, %cf : f32
    %h = arith.addf %g, %df : f32
    %t = arith.truncf %h : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A multiple that the block's rows do not divide keeps the bounds.
// CHECK-LABEL: func @held_rows_multiple_not_whole
// CHECK: gpu.func @norm_fused(
// CHECK: %[[SECOND:.+]] = arith.addi %{{.+}}, %c1
// CHECK: arith.cmpi ult, %[[SECOND]]
// CHECK: gpu.return
func.func @held_rows_multiple_not_whole(%x: memref<?x256xbf16>, %w: memref<256xbf16>, %y: memref<?x256xbf16>) {
  norm.fused ins(%x : full memref<?x256xbf16>, %w : col memref<256xbf16>) outs(%y : full memref<?x256xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.rows_multiple = 3 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// norm.warp_rows shares a held-rows block's rows out among its warps
// (norm-short-rows sets it on RMSNorm at 3168-4223 x 1024, chooseHeldRows):
// warp w of block b holds row b * 4 + w, 32 lanes x 4 vectors of it, all
// loads predicated on that row existing (the weights' too), and reduces it
// by shuffles alone: no shared memory and no barrier. The grid is
// ceil(M / 4) of 128 threads; the kernel counts rows per warp.
// CHECK-LABEL: func @warp_rows
// CHECK: %[[ROWS:.+]] = memref.dim %arg0, %c0
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[ROWS]], %c4
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c128,
// CHECK: gpu.func @norm_fused(
// CHECK-NOT: workgroup
// CHECK-SAME: norm.rows_in_parallel = 4 : i64, norm.rows_per_block = 1 : i64
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: %[[BLOCK:.+]] = gpu.block_id x
// CHECK: %[[LANE:.+]] = arith.remui %[[TID]], %c32
// CHECK: %[[WARP:.+]] = arith.divui %[[TID]], %c32
// CHECK: %[[M:.+]] = memref.dim %arg0, %c0
// CHECK: %[[FIRST:.+]] = arith.muli %[[BLOCK]], %c4
// CHECK: %[[ROW0:.+]] = arith.addi %[[FIRST]], %c0
// CHECK: %[[ROW:.+]] = arith.addi %[[ROW0]], %[[WARP]]
// CHECK: %[[EXISTS:.+]] = arith.cmpi ult, %[[ROW]], %[[M]]
// The fourth vector of the lane: column (96 + lane) * 8.
// CHECK: %[[V3:.+]] = arith.addi %c96, %[[LANE]]
// CHECK-COUNT-4: ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %[[EXISTS]] : i64, i64, i1)
// CHECK: %[[HAS_ROWS:.+]] = arith.cmpi ult, %[[ROW]], %[[M]]
// CHECK-COUNT-4: ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %[[HAS_ROWS]] : i64, i64, i1)
// CHECK-NOT: ld.global
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: scf.if %[[EXISTS]]
// CHECK-NEXT: vector.store %{{.+}}, %arg2[%[[ROW]], %{{.+}}]
// CHECK: gpu.return
func.func @warp_rows(%x: memref<?x1024xbf16>, %w: memref<1024xbf16>, %y: memref<?x1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>, %w : col memref<1024xbf16>) outs(%y : full memref<?x1024xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 4 : i64, norm.warp_rows} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A warp-rows block of fewer rows than the layout's warps has a warp a
// row: one row of 768 is a block of one warp, its lane holding three
// vectors (columns lane * 8, (32 + lane) * 8 and (64 + lane) * 8), the
// weight and bias preloaded with them (predicated on the row being in M),
// and the sum reduced by the warp's shuffles alone.
// CHECK-LABEL: func @warp_rows_one_warp
// CHECK: %[[ROWS:.+]] = memref.dim %arg0, %c0
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[ROWS]], %c1
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c32,
// CHECK: gpu.func @norm_fused(
// CHECK-NOT: norm.rows_in_parallel
// CHECK-SAME: norm.block_size = 32 : i64, norm.rows_per_block = 1 : i64
// CHECK: %[[TID:.+]] = gpu.thread_id x
// CHECK: arith.addi %c32{{.*}}, %[[TID]]
// CHECK: arith.addi %c64{{.*}}, %[[TID]]
// CHECK-COUNT-3: ld.global.L1::evict_last.L2::cache_hint.v4.b32 {$0, $1, $2, $3}, [$4], $5;" ro(
// CHECK: %[[HAS_ROW:.+]] = arith.cmpi ult, %{{.+}}, %{{.+}}
// CHECK-COUNT-6: @$6 ld.global{{.*}}" ro(%{{.+}}, %{{.+}}, %[[HAS_ROW]] : i64, i64, i1)
// CHECK-NOT: ld.global
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.barrier
// CHECK-NOT: gpu.shuffle
// CHECK: gpu.return
func.func @warp_rows_one_warp(%x: memref<?x768xbf16>, %w: memref<768xbf16>, %b: memref<768xbf16>, %y: memref<?x768xbf16>) {
  norm.fused ins(%x : full memref<?x768xbf16>, %w : col memref<768xbf16>, %b : col memref<768xbf16>) outs(%y : full memref<?x768xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 1 : i64, norm.warp_rows} {
  ^bb0(%a: bf16, %c: bf16, %d: bf16):
    %af = arith.extf %a : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %df = arith.extf %d : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %m = arith.mulf %af, %s : f32
    %e = arith.mulf %m, %cf : f32
    %f = arith.addf %e, %df : f32
    %t = arith.truncf %f : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Two rows of 1024 (four warps' worth of threads): a block of two warps.
// CHECK-LABEL: func @warp_rows_two_warps
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%{{.+}}, %{{.+}}, %{{.+}}) threads in (%c64,
// CHECK: gpu.func @norm_fused(
// CHECK-SAME: norm.rows_in_parallel = 2 : i64, norm.rows_per_block = 1 : i64
func.func @warp_rows_two_warps(%x: memref<?x1024xbf16>, %y: memref<?x1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%y : full memref<?x1024xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64, norm.warp_rows} {
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

// A warp-rows block of as many rows as its warps or more shares them out
// among its warps: a count that does not divide is an error, as is a row
// the warps cannot hold in registers (f32 at N = 4096: two vectors a
// thread of 512 threads).
func.func @warp_rows_uneven(%x: memref<?x1024xbf16>, %y: memref<?x1024xbf16>) {
  // expected-error @+1 {{norm.rows_per_block must be a multiple of the 4 warps that share a warp-rows block, got 6}}
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%y : full memref<?x1024xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 6 : i64, norm.warp_rows} {
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

// A block's held rows all stay in registers: at N = 1000 (a vector of 8
// elements a thread) past 31 of them is an error, not spilled rows and an
// unrolled kernel that takes minutes to compile.
func.func @held_rows_past_the_registers(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %y: memref<?x1000xbf16>) {
  // expected-error @+1 {{a streaming kernel holding its rows in registers holds at most 31 rows a block here (8 elements a thread each), got 32}}
  norm.fused ins(%x : full memref<?x1000xbf16>, %w : col memref<1000xbf16>) outs(%y : full memref<?x1000xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 32 : i64} {
  ^bb0(%a: bf16, %b: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %e = arith.mulf %d, %bf : f32
    %t = arith.truncf %e : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// norm.vector_width = 4 at N = 384 bf16: 96 vectors of 8 bytes, three warps
// a block, each holding a row of its own in three vectors a lane (columns
// lane * 4, (32 + lane) * 4 and (64 + lane) * 4), reduced by its shuffles
// alone; without it, 48 vectors of 16 bytes.
// CHECK-LABEL: func @vector_width_half
// CHECK: %[[ROWS:.+]] = memref.dim %arg0, %c0
// CHECK: %[[GRID:.+]] = arith.ceildivui %[[ROWS]], %c3
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c96,
// CHECK: gpu.func @norm_fused(
// CHECK-SAME: norm.block_size = 96 : i64, norm.rows_in_parallel = 3 : i64
// CHECK-COUNT-3: ld.global.v2.b32 {$0, $1}, [$2]; }" ro(
// CHECK-NOT: v4.b32
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return
func.func @vector_width_half(%x: memref<?x384xbf16>, %y: memref<?x384xbf16>) {
  norm.fused ins(%x : full memref<?x384xbf16>) outs(%y : full memref<?x384xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 3 : i64, norm.warp_rows, norm.vector_width = 4 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %m = arith.mulf %af, %s : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// Elementwise work never streams (no row reduction): nothing to give the
// narrower vectors to.
func.func @vector_width_not_streamed(%x: memref<?x384xbf16>, %y: memref<?x384xbf16>) {
  // expected-error @+1 {{norm.vector_width needs a streamed forward}}
  norm.fused ins(%x : full memref<?x384xbf16>) outs(%y : full memref<?x384xbf16>) attributes {norm.stream_rows, norm.vector_width = 4 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %m = arith.mulf %af, %af : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

func.func @warp_rows_not_held(%x: memref<?x4096xf32>, %y: memref<?x4096xf32>) {
  // expected-error @+1 {{norm.warp_rows needs a streamed forward whose block holds its row in registers, one vector a thread}}
  norm.fused ins(%x : full memref<?x4096xf32>) outs(%y : full memref<?x4096xf32>) attributes {norm.stream_rows, norm.warp_rows} {
  ^bb0(%a: f32):
    %s = norm.row_reduce <add> %a : f32
    %d = arith.mulf %a, %s : f32
    norm.yield %d : f32
  }
  return
}

// -----

// A streamed kernel that re-reads its row from L2 (N = 32768 bf16: 512
// threads x 4 vectors, four sweeps) takes one row a block.
func.func @held_rows_rereading(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  // expected-error @+1 {{a streaming kernel that re-reads its row from L2 takes one row per block, got 2}}
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) attributes {norm.stream_rows, norm.rows_per_block = 2 : i64} {
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

// A whole-column kernel cannot reduce rows: the error points at the
// reduction.
func.func @whole_columns_with_row_reduce(%x: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%x : full memref<?x1024xbf16>) outs(%dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    // expected-error @+1 {{has no lowering in a whole-column kernel}}
    %s = norm.row_reduce <add> %af : f32
    %v = arith.mulf %af, %s : f32
    norm.yield %v : f32
  }
  return
}

// -----

// norm-short-rows' one-row version (which it casts to 1 x N; the lowering
// takes any M): the mixed kernel with its column outputs summing whole
// columns runs as one block over every row (grid 1, even at M = 0, where
// it writes sums of no rows), keeps its row in
// registers (no staging, whatever the option asks) and stores dw itself,
// rounded, instead of a partial row.
// CHECK-LABEL: func @one_block
// CHECK: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: gpu.launch_func @norm_fused::@norm_fused blocks in (%[[ONE]], %{{.+}}, %{{.+}})
// CHECK: gpu.func @norm_fused(
// CHECK-NOT: memref<?x1024xf32>
// CHECK: arith.maxui
// CHECK: vector.store %{{.+}}, %arg4[
// CHECK: vector.store %{{.+}}, %arg5[%{{.+}}] {alignment = 16 : i64} : memref<1024xbf16>, vector<8xbf16>
// STAGED-LABEL: func @one_block
// STAGED-NOT: dynamic_shared_memory_size
// STAGED: gpu.func @norm_fused(
// STAGED-NOT: nvgpu.mbarrier
// STAGED: gpu.return
func.func @one_block(%dy: memref<?x1024xbf16>, %x: memref<?x1024xbf16>, %rstd: memref<?xf32>, %w: memref<1024xbf16>,
                     %dx: memref<?x1024xbf16>, %dw: memref<1024xbf16>) {
  norm.fused ins(%dy : full memref<?x1024xbf16>, %x : full memref<?x1024xbf16>, %rstd : row memref<?xf32>, %w : col memref<1024xbf16>) outs(%dx : full memref<?x1024xbf16>, %dw : col memref<1024xbf16>) attributes {norm.whole_columns} {
  ^bb0(%g: bf16, %a: bf16, %r: f32, %wt: bf16):
    %gf = arith.extf %g : bf16 to f32
    %wf = arith.extf %wt : bf16 to f32
    %gw = arith.mulf %gf, %wf : f32
    %af = arith.extf %a : bf16 to f32
    %xh = arith.mulf %af, %r : f32
    %p = arith.mulf %gw, %xh : f32
    %s = norm.row_reduce <add> %p : f32
    %d = arith.mulf %xh, %s : f32
    %e = arith.subf %gw, %d : f32
    %f = arith.mulf %r, %e : f32
    %t = arith.truncf %f : f32 to bf16
    %v = arith.mulf %gf, %xh : f32
    norm.yield %t, %v : bf16, f32
  }
  return
}

// -----

// The ftz form of rsqrt only where flushing denormals cannot change the
// result (RsqrtForms.h): the operand is a sum of a value that is never
// negative and a constant of at least FLT_MIN. Row-resident kernels emit it
// as inline PTX.
// CHECK-LABEL: func @rsqrt_forms
// CHECK: gpu.func @norm_fused(
// A centred square (LayerNorm's variance) times 1/N plus eps = 1e-5: ftz.
// CHECK: nvvm.inline_ptx "rsqrt.approx.ftz.f32 $0, $1;"
// CHECK-NOT: rsqrt.approx
// CHECK: gpu.func @norm_fused_0(
// eps = 0: a mean square may be denormal.
// CHECK: nvvm.inline_ptx "rsqrt.approx.f32 $0, $1;"
// CHECK-NOT: rsqrt.approx.ftz
// CHECK: gpu.func @norm_fused_1(
// eps below FLT_MIN (a denormal constant).
// CHECK: nvvm.inline_ptx "rsqrt.approx.f32 $0, $1;"
// CHECK-NOT: rsqrt.approx.ftz
// CHECK: gpu.func @norm_fused_2(
// A sum of signed values: no bound from below.
// CHECK: nvvm.inline_ptx "rsqrt.approx.f32 $0, $1;"
// CHECK-NOT: rsqrt.approx.ftz
// CHECK: gpu.return
func.func @rsqrt_forms(%x: memref<?x5120xbf16>, %y: memref<?x5120xbf16>) {
  %inv = arith.constant 1.95312500e-04 : f32
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %mean = arith.mulf %s, %inv : f32
    %dev = arith.subf %af, %mean : f32
    %sq = arith.mulf %dev, %dev : f32
    %v = norm.row_reduce <add> %sq : f32
    %var = arith.mulf %v, %inv : f32
    %eps = arith.constant 1.0e-05 : f32
    %e = arith.addf %var, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %dev, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 0.0 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %eps = arith.constant 1.0e-40 : f32
    %e = arith.addf %eps, %s : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %eps = arith.constant 1.0e-05 : f32
    %e = arith.addf %s, %eps : f32
    %rs = math.rsqrt %e : f32
    %d = arith.mulf %af, %rs : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A streamed version that only runs below the rows its L2 prefetch starts
// at (norm.rows_below <= 3 x 32 rows ahead at N = 65536) has no prefetch
// code; one that may reach them keeps it, behind the bound on M.
// CHECK-LABEL: func @rows_below_prefetch
// CHECK: gpu.func @norm_fused(
// CHECK-NOT: prefetch.L2
// CHECK: gpu.return
// CHECK: gpu.func @norm_fused_0(
// CHECK: arith.cmpi uge, %{{.+}}, %c96
// CHECK: cp.async.bulk.prefetch.L2.global
// CHECK: gpu.return
func.func @rows_below_prefetch(%x: memref<?x65536xbf16>, %y: memref<?x65536xbf16>) {
  norm.fused ins(%x : full memref<?x65536xbf16>) outs(%y : full memref<?x65536xbf16>) attributes {norm.stream_rows, norm.rows_below = 96 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  norm.fused ins(%x : full memref<?x65536xbf16>) outs(%y : full memref<?x65536xbf16>) attributes {norm.stream_rows, norm.rows_below = 97 : i64} {
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

// Rows that neither a block nor a cluster holds, in a kernel no streamed
// version takes (column outputs beside the row reduction): refused, where
// the plan's layout would have unrolled 2^31 elements a block.
func.func @rows_off_chip(%x: memref<?x2147483648xbf16>, %y: memref<?x2147483648xbf16>, %p: memref<?x2147483648xf32>) {
  // expected-error @+1 {{rows of 2147483648 elements fit neither a block's registers nor a thread block cluster: run --norm-split-rows before convert-norm-to-gpu}}
  norm.fused ins(%x : full memref<?x2147483648xbf16>) outs(%y : full memref<?x2147483648xbf16>, %p : col memref<?x2147483648xf32>) attributes {rows_per_partial = 64 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %d = arith.mulf %af, %s : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t, %d : bf16, f32
  }
  return
}

// -----

// A body op that reads only a captured constant (what canonicalization
// leaves of math.rsqrt of a constant): the constant is copied into the body,
// so every element's mapping holds it.
// CHECK-LABEL: func @captured_constant_only
// CHECK: gpu.func @norm_fused(
// CHECK: %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: nvvm.inline_ptx "rsqrt.approx.ftz.f32 $0, $1;" ro(%[[TWO]] : f32)
// CHECK: gpu.return
func.func @captured_constant_only(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  %c = arith.constant 2.0 : f32
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %r = math.rsqrt %c : f32
    %s = norm.row_reduce <add> %r : f32
    %m = arith.mulf %af, %s : f32
    %t = arith.truncf %m : f32 to bf16
    norm.yield %t : bf16
  }
  return
}

// -----

// A plan written in the IR is lowered as written, whatever the tuning rules
// would choose: 64 threads of 4 vectors of 8, 2 rows a block, registers for
// 3 blocks an SM, no staging.
// CHECK-LABEL: func @explicit_plan
// CHECK: gpu.launch_func @norm_fused{{.*}}::@norm_fused blocks in (%{{.+}}, %c1{{.*}}) threads in (%c64{{.*}}, %c1{{.*}}, %c1{{.*}})
// CHECK: gpu.func @norm_fused(
// CHECK-SAME: known_block_size = array<i32: 64, 1, 1>
// CHECK-SAME: norm.rows_per_block = 2
// CHECK-SAME: nvvm.minctasm = 3 : i32
// CHECK-NOT: cp.async.bulk
// CHECK: gpu.return
// NOPLAN: error: 'norm.fused' op has no norm.plan: run --norm-plan-kernels before convert-norm-to-gpu
func.func @explicit_plan(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) attributes {norm.plan = #norm.plan<kind = row_resident, threads = 64, vector_width = 8, chunks_per_thread = 4, rows_per_block = 2, min_blocks_per_sm = 3>} {
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

// Row groups sharing a warp with a fixed walk (2 rows a group, no spread by
// M) take their block's 32 rows in turn too: group g rows g and g + 16,
// every group two steps, the second past the block's rows neither stored
// nor read beyond its last row, so that the lanes of a warp reach their
// shuffles together in the grid's last block.
// CHECK-LABEL: func @explicit_head_rows
// CHECK: %[[GRID:.+]] = arith.ceildivui %{{.+}}, %c32
// CHECK: gpu.launch_func @norm_fused{{.*}}::@norm_fused blocks in (%[[GRID]],
// CHECK: gpu.func @norm_fused(
// CHECK: %[[GROUP:.+]] = arith.divui %thread_id_x, %c8
// CHECK: %[[FIRST:.+]] = arith.muli %block_id_x, %c32
// CHECK: %[[STEPS:.+]] = arith.ceildivui %{{.+}}, %c16
// CHECK: scf.for %[[K:.+]] = %{{.+}} to %[[STEPS]]
// CHECK: %[[TURN:.+]] = arith.muli %[[K]], %c16
// CHECK: arith.cmpi ult
// CHECK: gpu.shuffle xor %{{.+}}, %c4_i32
func.func @explicit_head_rows(%x: memref<?x64xbf16>, %y: memref<?x64xbf16>) {
  norm.fused ins(%x : full memref<?x64xbf16>) outs(%y : full memref<?x64xbf16>) attributes {norm.plan = #norm.plan<kind = row_resident, threads = 128, vector_width = 8, row_groups = 16, rows_per_block = 2>} {
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

// A streamed row's output computed from its elements alone (the residual
// add's h), where the plan says so (stores_early_outputs), is stored by the
// first pass, which issues all four of the row's sweeps of loads (x and
// residual, their last reads: evict_first) before its stores; the output
// pass reads h back instead of x and residual, its four sweeps of h and the
// weight before its stores.
// CHECK-LABEL: func @streamed_residual_add
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.streaming
// CHECK: scf.for
// CHECK-COUNT-8: ld.global.L1::evict_first
// CHECK-NOT: st.global
// CHECK-COUNT-4: st.global.v4.b32
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-NOT: gpu.barrier
// CHECK: ld.global.L1::evict_last
// CHECK: ld.global.L1::evict_first
// CHECK: ld.global.L1::evict_last
// CHECK: ld.global.L1::evict_first
// CHECK: ld.global.L1::evict_last
// CHECK: ld.global.L1::evict_first
// CHECK: ld.global.L1::evict_last
// CHECK: ld.global.L1::evict_first
// CHECK-NOT: ld.global
// CHECK-COUNT-4: vector.store %{{.+}}, %arg3[
// CHECK-NOT: ld.global
// CHECK: gpu.return
func.func @streamed_residual_add(%x: memref<?x32768xbf16>, %r: memref<?x32768xbf16>, %w: memref<32768xbf16>, %y: memref<?x32768xbf16>, %h: memref<?x32768xbf16>) {
  norm.fused ins(%x : full memref<?x32768xbf16>, %r : full memref<?x32768xbf16>, %w : col memref<32768xbf16>) outs(%y : full memref<?x32768xbf16>, %h : full memref<?x32768xbf16>) attributes {norm.plan = #norm.plan<kind = streaming, threads = 1024, vector_width = 8, sweeps_per_step = 4, stores_early_outputs = true>} {
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

// A plan that stores early outputs where the kernel computes none from the
// elements alone is refused.
func.func @early_outputs_without_any(%x: memref<?x32768xbf16>, %y: memref<?x32768xbf16>) {
  // expected-error @+1 {{cannot be lowered as its norm.plan says: storing early outputs needs a streamed kernel that re-reads its row and an output computed from the elements alone}}
  norm.fused ins(%x : full memref<?x32768xbf16>) outs(%y : full memref<?x32768xbf16>) attributes {norm.plan = #norm.plan<kind = streaming, threads = 1024, vector_width = 8, stores_early_outputs = true>} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    %s = norm.row_reduce <add> %sq : f32
    %rs = math.rsqrt %s : f32
    %n = arith.mulf %af, %rs : f32
    %yt = arith.truncf %n : f32 to bf16
    norm.yield %yt : bf16
  }
  return
}

// -----

// A plan whose threads do not cover the row is refused, not lowered into a
// kernel that skips columns.
func.func @plan_short_of_the_row(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  // expected-error @+1 {{cannot be lowered as its norm.plan says: 64 threads of 4 elements in 1 slices cover 256 of the row's 2048 elements}}
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) attributes {norm.plan = #norm.plan<kind = row_resident, threads = 64, vector_width = 4>} {
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

// Nor one whose chunks go past the row: they are unrolled, and a million of
// them would not finish.
func.func @plan_past_the_row(%x: memref<?x2048xbf16>, %y: memref<?x2048xbf16>) {
  // expected-error @+1 {{cannot be lowered as its norm.plan says: 1048576 chunks a thread, 256 elements each, go past the row's 2048 elements}}
  norm.fused ins(%x : full memref<?x2048xbf16>) outs(%y : full memref<?x2048xbf16>) attributes {norm.plan = #norm.plan<kind = row_resident, threads = 64, vector_width = 4, chunks_per_thread = 1048576>} {
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

// FP8-style group scales (groups of 128 bf16, 16 vectors): each chunk's
// group is 16 consecutive lanes, reduced by xor shuffles of 8, 4, 2 and 1
// (once per chunk; the row is a warp's, 2 chunks a lane); each group's
// first lane stores its scale at (row, column / 128). Staging is off for
// kernels with groups, whatever the options ask.
// CHECK-LABEL: func @group_scales
// CHECK: gpu.func @norm_fused(%{{.*}}: memref<?x512xbf16>, %[[S:.*]]: memref<?x4xf32>, %{{.*}}: memref<?x512xbf16>)
// CHECK-NOT: workgroup
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c4_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK-NOT: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}}, %[[S]][%{{.*}}, %{{.*}}] : memref<?x4xf32>
// STAGED-LABEL: func @group_scales
// STAGED-NOT: nvvm.cp.async.bulk
// STAGED: gpu.return
func.func @group_scales(%x: memref<?x512xbf16>, %s: memref<?x4xf32>, %y: memref<?x512xbf16>) {
  norm.fused ins(%x : full memref<?x512xbf16>) outs(%s : group memref<?x4xf32>, %y : full memref<?x512xbf16>) attributes {group_size = 128 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %g = norm.group_reduce <max> %af : f32
    %q = arith.divf %af, %g : f32
    %t = arith.truncf %q : f32 to bf16
    norm.yield %g, %t : f32, bf16
  }
  return
}

// -----

// Groups of 1024 bf16 (128 vectors, 4 warps): a warp's butterfly, then the
// warp totals of each chunk through shared memory [parity][reduction]
// [chunk][warp], one barrier, and each thread combines its group's 4 warps.
// CHECK-LABEL: func @wide_groups
// CHECK: gpu.func @norm_fused({{.*}}) workgroup(%[[W:.*]] : memref<2x1x3x8xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: memref.store %{{.*}}, %[[W]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[W]]
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

// A group that is not a power of two of vectors (640 bf16: 80 vectors of 8)
// has no lowering.
func.func @odd_groups(%x: memref<?x5120xbf16>, %y: memref<?x5120xbf16>) {
  // expected-error @+1 {{cannot be lowered as its norm.plan says: a group of 640 elements is 80 vectors of 8; the GPU lowering reduces groups of a power of two of vectors}}
  norm.fused ins(%x : full memref<?x5120xbf16>) outs(%y : full memref<?x5120xbf16>) attributes {group_size = 640 : i64} {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %g = norm.group_reduce <add> %af : f32
    %d = arith.mulf %af, %g : f32
    %t = arith.truncf %d : f32 to bf16
    norm.yield %t : bf16
  }
  return
}
