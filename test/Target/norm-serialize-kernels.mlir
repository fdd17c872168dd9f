// Every gpu.module becomes a gpu.binary of its own, in module order, whether
// the modules serialize on threads or one after the other.
// RUN: norm-opt %s --norm-serialize-kernels --split-input-file --verify-diagnostics | FileCheck %s
// RUN: norm-opt %s --norm-serialize-kernels --split-input-file --verify-diagnostics --mlir-disable-threading | FileCheck %s
// RUN: norm-opt %s --norm-serialize-kernels="format=offloading" --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=LLVM
// RUN: not norm-opt %s --norm-serialize-kernels="format=elf" --split-input-file 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// BADFORMAT: error: norm-serialize-kernels: format 'elf' is none of isa, bin, fatbin, offloading
// A module that calls libdevice gets it linked (modules that call none skip
// reading it), and without a toolkit to find it in, that is an error rather
// than PTX with an unresolved call.
// RUN: %if libdevice %{ norm-opt %S/Inputs/calls-libdevice.mlir --norm-serialize-kernels="toolkit=%cuda_root" | FileCheck %s --check-prefix=LIBDEVICE %}
// RUN: env -u CUDA_HOME not norm-opt %S/Inputs/calls-libdevice.mlir --norm-serialize-kernels 2>&1 | FileCheck %s --check-prefix=NOLIBDEVICE
// LIBDEVICE: gpu.binary @exp
// LIBDEVICE-SAME: ex2.approx
// LIBDEVICE-NOT: __nv_expf
// NOLIBDEVICE: error: calls libdevice (__nv_expf) but no libdevice was found: set CUDA_HOME or the toolkit path

// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module
// No compile times among the properties: the output does not depend on the
// machine.
// CHECK: gpu.binary @first [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">, properties = {O = 3 : i32}, assembly = "{{.*}}.target sm_90{{.*}}.entry first(
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

// -----

// LLVM's SLP vectorizer does not run (PtxSerializer.h says why): two
// adjacent f16 products stay two instructions, where upstream's pipeline
// pairs them into one mul.rn.f16x2. The load/store vectorizer of code
// generation still pairs the accesses.
// CHECK-LABEL: gpu.binary @pairs
// CHECK-SAME: ld.global.v2.b16
// CHECK-NOT: f16x2
// CHECK-SAME: mul.rn.f16 \09{{[^\\]+}}\0A\09mul.rn.f16 \09
// CHECK-SAME: st.global.v2.b16
module attributes {gpu.container_module} {
  gpu.module @pairs [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @pairs(%p: !llvm.ptr<1>, %q: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %p1 = llvm.getelementptr %p[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
      %q1 = llvm.getelementptr %q[1] : (!llvm.ptr<1>) -> !llvm.ptr<1>, f16
      %a0 = llvm.load %p {alignment = 4 : i64} : !llvm.ptr<1> -> f16
      %a1 = llvm.load %p1 : !llvm.ptr<1> -> f16
      %b0 = llvm.load %q {alignment = 4 : i64} : !llvm.ptr<1> -> f16
      %b1 = llvm.load %q1 : !llvm.ptr<1> -> f16
      %c0 = llvm.fmul %a0, %b0 : f16
      %c1 = llvm.fmul %a1, %b1 : f16
      llvm.store %c0, %p {alignment = 4 : i64} : f16, !llvm.ptr<1>
      llvm.store %c1, %p1 : f16, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Modules serialize largest first, but their binaries keep module order.
// CHECK-LABEL: gpu.binary @small
// CHECK-NEXT: gpu.binary @large
module attributes {gpu.container_module} {
  gpu.module @small [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @small() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
  gpu.module @large [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx81">] {
    llvm.func @large(%p: !llvm.ptr<1>) attributes {gpu.kernel, nvvm.kernel} {
      %x = llvm.load %p : !llvm.ptr<1> -> f32
      %y = llvm.fmul %x, %x : f32
      %z = llvm.fadd %y, %x : f32
      llvm.store %z, %p : f32, !llvm.ptr<1>
      llvm.return
    }
  }
}

// -----

// Targets the kernels cannot be compiled for are errors on their module,
// not an LLVM abort (a chip before Ampere, a PTX version without st.async,
// or one LLVM does not know).
module attributes {gpu.container_module} {
  // expected-error @below {{chip must be sm_80 (any GPU since Ampere), sm_90, sm_90a, sm_100, sm_100a, sm_120 or sm_120a, got 'sm_75'}}
  gpu.module @turing [#nvvm.target<O = 3, chip = "sm_75", features = "+ptx81">] {
    llvm.func @turing() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A Hopper instruction in a module for sm_80 is upstream's target
// verification's error, not a selection failure inside LLVM.
module attributes {gpu.container_module} {
  gpu.module @ampere [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx81">] {
    llvm.func @ampere() attributes {gpu.kernel, nvvm.kernel} {
      // expected-error @below {{'nvvm.read.ptx.sreg.cluster.ctarank' op is not supported on sm_80}}
      %0 = nvvm.read.ptx.sreg.cluster.ctarank : i32
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error-re @below {{features must name one PTX ISA version that the kernels can use on sm_90 and LLVM knows: +ptx81, {{.*}}, +ptx90; got '+ptx78'}}
  gpu.module @old_ptx [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx78">] {
    llvm.func @old_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

// A target in the IR names its PTX version: empty features (which an
// option may leave to the chip's oldest) are refused here, and sm_100a's
// must be 8.6 or later.
module attributes {gpu.container_module} {
  // expected-error-re @below {{features must name one PTX ISA version that the kernels can use on sm_90 and LLVM knows: +ptx81, {{.*}}; got ''}}
  gpu.module @no_ptx [#nvvm.target<O = 3, chip = "sm_90", features = "">] {
    llvm.func @no_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error-re @below {{features must name one PTX ISA version that the kernels can use on sm_100a and LLVM knows: +ptx86, {{.*}}; got '+ptx81'}}
  gpu.module @blackwell_old_ptx [#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx81">] {
    llvm.func @blackwell_old_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  // expected-error-re @below {{features must name one PTX ISA version that the kernels can use on sm_90a and LLVM knows: +ptx81, {{.*}}, +ptx90; got '+ptx89'}}
  gpu.module @unknown_ptx [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx89">] {
    llvm.func @unknown_ptx() attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
