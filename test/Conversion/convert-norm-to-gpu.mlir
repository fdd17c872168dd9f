// RUN: norm-opt %s --convert-norm-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// The mixed-order kernel: 16-byte vector loads of the row, a block
// reduction, dx stored with vector stores, column partials carried across
// the block's rows and stored once per block.
// CHECK-LABEL: func @bwd
// CHECK: %[[GRID:.+]] = arith.ceildivui %{{.+}}, %c64
// CHECK: gpu.launch_func @norm_kernels::@norm_fused blocks in (%[[GRID]], %{{.+}}, %{{.+}}) threads in (%c256
// CHECK: gpu.launch_func @norm_kernels::@norm_combine
// CHECK-LABEL: gpu.module @norm_kernels
// CHECK: gpu.func @norm_fused(%[[DY:arg[0-9]+]]: memref<?x4096xbf16>, %[[X:arg[0-9]+]]: memref<?x4096xbf16>, %[[DX:arg[0-9]+]]: memref<?x4096xbf16>, %[[P:arg[0-9]+]]: memref<?x4096xf32>) kernel
// CHECK-SAME: norm.block_size = 256
// CHECK-SAME: norm.rows_per_block = 64
// CHECK-SAME: norm.vector_width = 8
// CHECK: %[[B:.+]] = gpu.block_id x
// CHECK: %[[ROWS:.+]]:{{[0-9]+}} = scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
// CHECK: vector.load %[[DY]][%[[ROW]], %{{.+}}] {alignment = 16 : i64, norm.prefetch} : memref<?x4096xbf16>, vector<8xbf16>
// CHECK: vector.load %[[X]][%[[ROW]], %{{.+}}] {alignment = 16 : i64, norm.prefetch}
// CHECK: gpu.all_reduce add %{{.+}} uniform {
// CHECK-NEXT: } : (f32) -> f32
// CHECK-NEXT: gpu.barrier
// CHECK: vector.store %{{.+}}, %[[DX]][%[[ROW]], %{{.+}}] {alignment = 16 : i64} : memref<?x4096xbf16>, vector<8xbf16>
// CHECK: scf.yield
// CHECK: vector.store %{{.+}}, %[[P]][%[[B]], %{{.+}}] {{.+}} : memref<?x4096xf32>, vector<8xf32>
// CHECK: gpu.return
// CHECK: gpu.func @norm_combine
// CHECK-SAME: norm.cols_per_block = 256
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

// Short rows: a warp per row, reduced with shuffles (no shared memory, no
// barrier); four rows in flight per block (8 rows per warp by the tuning
// rule for 512-byte rows).
// CHECK-LABEL: func @short_rows
// CHECK: arith.ceildivui %{{.+}}, %c32
// CHECK: gpu.func @norm_fused
// CHECK-SAME: norm.rows_in_parallel = 4
// CHECK: %[[WARP:.+]] = arith.divui %{{.+}}, %c32
// CHECK: %[[LANE:.+]] = arith.remui %{{.+}}, %c32
// CHECK-COUNT-5: gpu.shuffle xor
// CHECK-NOT: gpu.all_reduce
// CHECK: gpu.return
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

// N = 1000: bf16 vectors of 8 still divide N, and the last chunk is guarded.
// CHECK-LABEL: func @guarded
// CHECK: gpu.func @norm_fused
// CHECK: arith.cmpi ult, %{{.+}}, %c1000
// CHECK: scf.if
// CHECK: vector.load
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

func.func @unsupported_body(%x: memref<?x64xf32>, %y: memref<?x64xf32>) {
  norm.fused ins(%x : full memref<?x64xf32>) outs(%y : full memref<?x64xf32>) {
  ^bb0(%a: f32):
    // expected-error @+1 {{'math.exp' op is not supported in a norm.fused body by the GPU lowering}}
    %e = math.exp %a : f32
    norm.yield %e : f32
  }
  return
}
