// Every example compiles to PTX that ptxas accepts for sm_90, without
// spills, with 16-byte vector loads and stores.
// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: norm-compile %norm_src/examples/rms_norm_fwd.mlir -o %t/rms_fwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_fwd/kernels.ptx -o %t/rms_fwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/rms_fwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/rms_norm_bwd.mlir -o %t/rms_bwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_bwd/kernels.ptx -o %t/rms_bwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/rms_bwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/layer_norm_fwd.mlir -o %t/ln_fwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_fwd/kernels.ptx -o %t/ln_fwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/ln_fwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/layer_norm_bwd.mlir -o %t/ln_bwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_bwd/kernels.ptx -o %t/ln_bwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/ln_bwd/kernels.ptx

// PTXAS: Compiling entry function 'norm_fused
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// VEC: .target sm_90
// VEC: .entry norm_fused
// VEC: ld.global.v4.b32
// VEC: st.global.v4.b32
