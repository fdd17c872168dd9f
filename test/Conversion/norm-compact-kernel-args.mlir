// RUN: norm-opt %s --norm-compact-kernel-args --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-compact-kernel-args --split-input-file --convert-gpu-to-nvvm --canonicalize --reconcile-unrealized-casts | FileCheck %s --check-prefix=NVVM

// A kernel over rows of a dynamic M: the activation becomes its aligned
// pointer and M, the weight (static) its pointer alone; inside, the
// descriptor is rebuilt (offset 0, strides [1000, 1]) and cast back to the
// memref the body uses. A memref with a strided layout keeps its
// descriptor. The launch passes the pointers and the size.
// CHECK-LABEL: func.func @host
// CHECK-SAME: (%[[X:.+]]: memref<?x1000xbf16>, %[[W:.+]]: memref<1000xbf16>, %[[S:.+]]: memref<4xf32, strided<[2]>>)
// CHECK: %[[XP:.+]] = memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: %[[XI:.+]] = arith.index_cast %[[XP]] : index to i64
// CHECK: %[[M:.+]] = memref.dim %[[X]], %c0
// CHECK: %[[MI:.+]] = arith.index_cast %[[M]] : index to i64
// CHECK: %[[WP:.+]] = memref.extract_aligned_pointer_as_index %[[W]]
// CHECK: %[[WI:.+]] = arith.index_cast %[[WP]] : index to i64
// CHECK: gpu.launch_func {{.*}}@kernels::@rows {{.+}} args(%[[XI]] : i64, %[[MI]] : i64, %[[WI]] : i64, %[[S]] : memref<4xf32, strided<[2]>>)
// CHECK: gpu.func @rows(%[[PX:.+]]: i64, %[[PM:.+]]: i64, %[[PW:.+]]: i64, %[[PS:.+]]: memref<4xf32, strided<[2]>>) kernel
// CHECK: %[[XPTR:.+]] = llvm.inttoptr %[[PX]] : i64 to !llvm.ptr
// CHECK: llvm.insertvalue %[[XPTR]], %{{.+}}[0]
// CHECK: llvm.insertvalue %[[XPTR]], %{{.+}}[1]
// CHECK: llvm.insertvalue %[[PM]], %{{.+}}[3, 0]
// CHECK: %[[XD:.+]] = llvm.insertvalue %{{.+}}, %{{.+}}[4, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[XREF:.+]] = builtin.unrealized_conversion_cast %[[XD]] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x1000xbf16>
// CHECK: %[[WPTR:.+]] = llvm.inttoptr %[[PW]] : i64 to !llvm.ptr
// CHECK: %[[WD:.+]] = llvm.insertvalue %{{.+}}, %{{.+}}[4, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK: %[[WREF:.+]] = builtin.unrealized_conversion_cast %[[WD]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)> to memref<1000xbf16>
// CHECK: memref.load %[[XREF]]
// CHECK: memref.store %{{.+}}, %[[WREF]]
// CHECK: memref.store %{{.+}}, %[[PS]]
// After the lowering to NVVM the descriptor folds away: the loads address
// the pointer parameter directly.
// NVVM-LABEL: llvm.func @rows(%{{.+}}: i64, %{{.+}}: i64, %{{.+}}: i64,
// NVVM-NOT: unrealized_conversion_cast
// NVVM: llvm.return
module attributes {gpu.container_module} {
  func.func @host(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %s: memref<4xf32, strided<[2]>>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@rows blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<?x1000xbf16>, %w : memref<1000xbf16>, %s : memref<4xf32, strided<[2]>>)
    return
  }
  gpu.module @kernels {
    gpu.func @rows(%x: memref<?x1000xbf16>, %w: memref<1000xbf16>, %s: memref<4xf32, strided<[2]>>) kernel {
      %c0 = arith.constant 0 : index
      %row = gpu.block_id x
      %v = memref.load %x[%row, %c0] : memref<?x1000xbf16>
      memref.store %v, %w[%c0] : memref<1000xbf16>
      %f = arith.extf %v : bf16 to f32
      memref.store %f, %s[%c0] : memref<4xf32, strided<[2]>>
      gpu.return
    }
  }
}

// -----

// Dynamic sizes in both dimensions: both are passed, after the pointer, in
// dimension order, and the outer stride is the inner size (1 x N).
// CHECK-LABEL: func.func @host_2d
// CHECK: gpu.func @both(%[[P:.+]]: i64, %[[ROWS:.+]]: i64, %[[COLS:.+]]: i64) kernel
// CHECK: %[[ONE:.+]] = llvm.mlir.constant(1 : i64) : i64
// CHECK: llvm.insertvalue %[[COLS]], %{{.+}}[3, 1]
// CHECK: llvm.insertvalue %[[ONE]], %{{.+}}[4, 1]
// CHECK: %[[STRIDE:.+]] = llvm.mul %[[ONE]], %[[COLS]] : i64
// CHECK: llvm.insertvalue %[[ROWS]], %{{.+}}[3, 0]
// CHECK: llvm.insertvalue %[[STRIDE]], %{{.+}}[4, 0]
module attributes {gpu.container_module} {
  func.func @host_2d(%x: memref<?x?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@both blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
        args(%x : memref<?x?xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @both(%x: memref<?x?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %x[%c0, %c0] : memref<?x?xf32>
      memref.store %v, %x[%c0, %c0] : memref<?x?xf32>
      gpu.return
    }
  }
}
