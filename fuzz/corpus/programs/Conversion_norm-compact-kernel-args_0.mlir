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
