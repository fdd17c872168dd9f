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
// EMPTY: error: norm-attach-target: chip must be sm_80 (any GPU since Ampere), sm_90, sm_90a, sm_100, sm_100a, sm_120 or sm_120a, got ''
// sm_80 (the kernels every GPU since Ampere runs) from PTX ISA 8.1 like
// Hopper; sm_120a from 8.7; Turing's sm_75 is refused.
// RUN: norm-opt %s --norm-attach-target="chip=sm_80" | FileCheck %s --check-prefix=SM80
// SM80: gpu.module @a [#nvvm.target<chip = "sm_80", features = "+ptx81">]
// RUN: norm-opt %s --norm-attach-target="chip=sm_120a" | FileCheck %s --check-prefix=SM120A
// SM120A: gpu.module @a [#nvvm.target<chip = "sm_120a", features = "+ptx87">]
// RUN: not norm-opt %s --norm-attach-target="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=SM75
// SM75: error: norm-attach-target: chip must be sm_80 {{.*}}got 'sm_75'
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
