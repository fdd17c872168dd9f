// RUN: norm-opt %s --norm-attach-target | FileCheck %s
// RUN: norm-opt %s --norm-attach-target="chip=sm_90a features=+ptx83 O=3" | FileCheck %s --check-prefix=SM90A
// Blackwell's sm_100a: without features, the oldest PTX ISA version that
// names it (8.6); an older one is refused.
// RUN: norm-opt %s --norm-attach-target="chip=sm_100a" | FileCheck %s --check-prefix=SM100A
// RUN: not norm-opt %s --norm-attach-target="chip=sm_100a features=+ptx81" 2>&1 | FileCheck %s --check-prefix=SM100AOLD
// SM100A: gpu.module @a [#nvvm.target<chip = "sm_100a", features = "+ptx86">]
// SM100AOLD: error: norm-attach-target: features must name one PTX ISA version that the kernels can use on sm_100a and LLVM knows: +ptx86{{.*}}; got '+ptx81'
// Bad targets are refused before any IR is touched, in one line: an empty
// chip crashed upstream's nvvm-attach-target, other chips and PTX versions
// abort LLVM later.
// RUN: not norm-opt %s --norm-attach-target="chip=" 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: norm-attach-target: chip must be sm_90, sm_90a, sm_100 or sm_100a (the kernels use Hopper's clusters, bulk copies and mbarriers), got ''
// RUN: not norm-opt %s --norm-attach-target="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: error: norm-attach-target: chip must be sm_90, sm_90a, sm_100 or sm_100a{{.*}}got 'sm_80'
// RUN: not norm-opt %s --norm-attach-target="features=+ptx60" 2>&1 | FileCheck %s --check-prefix=PTX60
// PTX60: error: norm-attach-target: features must name one PTX ISA version that the kernels can use on sm_90 and LLVM knows: +ptx81{{.*}}got '+ptx60'
// RUN: not norm-opt %s --norm-attach-target="O=4" 2>&1 | FileCheck %s --check-prefix=BADO
// BADO: error: norm-attach-target: O must be 0 to 3, got 4

// Every gpu.module gets the target once; one it already carries is not
// repeated, and other targets stay.
// CHECK: gpu.module @a [#nvvm.target<chip = "sm_90", features = "+ptx81">]
// CHECK: gpu.module @b [#nvvm.target<chip = "sm_90", features = "+ptx81">]
// CHECK: gpu.module @c [#nvvm.target<O = 3>, #nvvm.target<chip = "sm_90", features = "+ptx81">]
// SM90A: gpu.module @a [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx83">]
module attributes {gpu.container_module} {
  gpu.module @a {
  }
  gpu.module @b [#nvvm.target<chip = "sm_90", features = "+ptx81">] {
  }
  gpu.module @c [#nvvm.target<O = 3>] {
  }
}
