// Every gpu.module becomes a gpu.binary of its own, in module order, whether
// the modules serialize on threads or one after the other.
// RUN: norm-opt %s --norm-serialize-kernels --split-input-file --verify-diagnostics | FileCheck %s
// RUN: norm-opt %s --norm-serialize-kernels --split-input-file --verify-diagnostics --mlir-disable-threading | FileCheck %s
// RUN: norm-opt %s --norm-serialize-kernels="format=offloading" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=LLVM
// RUN: not norm-opt %s --norm-serialize-kernels="format=elf" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// BADFORMAT: error: norm-serialize-kernels: format 'elf' is none of isa, bin, fatbin, offloading

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module
// CHECK: gpu.binary @first [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, properties = {{.+}}, assembly = "{{.*}}.target sm_90{{.*}}.entry first(
// CHECK-NOT: .entry second
// CHECK-SAME: "
// CHECK: gpu.binary @second [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, properties = {{.+}}, assembly = "{{.*}}.entry second(
// CHECK-NOT: gpu.module
// LLVM: gpu.binary @first [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, offload =
// LLVM: gpu.binary @second [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, offload =
module attributes {gpu.container_module} {
  gpu.module @first [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @first() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @second [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @second() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A module without a target has nothing to be serialized for.
module attributes {gpu.container_module} {
  // expected-error @+1 {{has no target attributes to serialize for (run nvvm-attach-target first)}}
  gpu.module @untargeted {
    llvm.func @k() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
