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
