// RUN: norm-opt %s --norm-set-target="num-sms=114 register-budget=48 max-cluster-size=8" --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-set-target --split-input-file | FileCheck %s --check-prefix=DEFAULT
// The planning passes read the module's target: 114 SMs give the RMSNorm
// backward's split fewer partial rows (min_partials two a SM) than 132.
// RUN: norm-opt %s --norm-set-target="num-sms=114" --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file | FileCheck %s --check-prefix=PLAN114
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file | FileCheck %s --check-prefix=PLAN132
// RUN: not norm-opt %s --norm-set-target="num-sms=-1" 2>&1 | FileCheck %s --check-prefix=BADSMS
// Resources far past any GPU's are errors: the rules multiply them.
// RUN: not norm-opt %s --norm-set-target="num-sms=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGESMS
// RUN: not norm-opt %s --norm-set-target="shared-memory-per-sm=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGESMEM
// RUN: not norm-opt %s --norm-set-target="threads-per-sm=9223372036854775807" 2>&1 | FileCheck %s --check-prefix=HUGETHREADS
// RUN: not norm-opt %s --norm-set-target="register-budget=0" 2>&1 | FileCheck %s --check-prefix=BADBUDGET
// An out-of-range budget is an error, not hours of layout search.
// RUN: not norm-opt %s --norm-set-target="register-budget=99999999999999" 2>&1 | FileCheck %s --check-prefix=HUGEBUDGET
// RUN: not norm-opt %s --norm-set-target="max-cluster-size=3" 2>&1 | FileCheck %s --check-prefix=BADCLUSTER
// RUN: not norm-opt %s --norm-set-target="max-threads=100" 2>&1 | FileCheck %s --check-prefix=BADTHREADS
// RUN: norm-opt %s --norm-set-target="max-threads=512" --split-input-file | FileCheck %s --check-prefix=THREADS
// An SM's resources, as the Python package reads them from the driver: half
// the registers halve the blocks an SM holds, and with them the partial
// rows (min_partials 132, not 264).
// RUN: norm-opt %s --norm-set-target="registers-per-sm=32768 shared-memory-per-block=166912 shared-memory-per-sm=167936 threads-per-sm=1536" --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file | FileCheck %s --check-prefix=SMRES
// RUN: not norm-opt %s --norm-set-target="shared-memory-per-block=300000" 2>&1 | FileCheck %s --check-prefix=BADSMEM
// RUN: not norm-opt %s --norm-set-target="registers-per-sm=16384" 2>&1 | FileCheck %s --check-prefix=BADREGS
// RUN: not norm-opt %s --norm-set-target="threads-per-sm=512" 2>&1 | FileCheck %s --check-prefix=BADSMTHREADS
// Options left 0 take the compute capability's GPU: 80 plans for an A100
// (108 SMs: 216 partial rows) without clusters, which it lacks.
// RUN: norm-opt %s --norm-set-target="compute-capability=80" --norm-decompose --norm-fuse-mixed-order --norm-plan-kernels --norm-split-reduction --split-input-file | FileCheck %s --check-prefix=AMPERE
// RUN: norm-opt %s --norm-set-target="compute-capability=100" --split-input-file | FileCheck %s --check-prefix=BLACKWELL
// RUN: not norm-opt %s --norm-set-target="compute-capability=80 max-cluster-size=16" 2>&1 | FileCheck %s --check-prefix=AMPERECLUSTER
// RUN: not norm-opt %s --norm-set-target="compute-capability=75" 2>&1 | FileCheck %s --check-prefix=TURING

// AMPERE: #norm.target<num_sms = 108, register_budget = 32, max_cluster_size = 1, shared_memory_per_block = 166912, shared_memory_per_sm = 167936, compute_capability = 80>
// AMPERE: min_partials = 216
// BLACKWELL: #norm.target<num_sms = 148, register_budget = 32, max_cluster_size = 16, compute_capability = 100>
// AMPERECLUSTER: error: norm-set-target: invalid #norm.target: max_cluster_size must be 1 below compute capability 90 (thread block clusters are Hopper's), got 16
// TURING: error: norm-set-target: invalid #norm.target: compute_capability must be at least 80 (Ampere: the kernels use bf16 arithmetic), got 75
// BADSMS: error: norm-set-target: invalid #norm.target: num_sms must be 1 to 65536, got -1
// HUGESMS: error: norm-set-target: invalid #norm.target: num_sms must be 1 to 65536, got 9223372036854775807
// HUGESMEM: error: norm-set-target: invalid #norm.target: shared memory and registers of an SM must be at most 1073741824, got 9223372036854775807 bytes and 65536 registers
// HUGETHREADS: error: norm-set-target: invalid #norm.target: threads a block and an SM must be at most 65536, got 1024 and 9223372036854775807
// BADBUDGET: error: norm-set-target: invalid #norm.target: register-budget must be 1 to 255 elements a thread, got 0
// HUGEBUDGET: error: norm-set-target: invalid #norm.target: register-budget must be 1 to 255 elements a thread, got 99999999999999
// BADCLUSTER: error: norm-set-target: invalid #norm.target: max-cluster-size must be 1, 2, 4, 8 or 16 (Hopper clusters hold at most 16 blocks), got 3
// BADTHREADS: error: norm-set-target: invalid #norm.target: max_threads_per_block must be a positive multiple of 32, got 100
// THREADS: #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 16, max_threads_per_block = 512>
// SMRES: #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 16, shared_memory_per_block = 166912, shared_memory_per_sm = 167936, threads_per_sm = 1536, registers_per_sm = 32768>
// SMRES: min_partials = 132
// BADSMEM: error: norm-set-target: invalid #norm.target: shared memory must be at least 48 KB a block and no more a block than an SM has, got 300000 a block and 233472 an SM
// BADREGS: error: norm-set-target: invalid #norm.target: registers_per_sm must hold 32 registers for each thread of a block of 1024, got 16384
// BADSMTHREADS: error: norm-set-target: invalid #norm.target: threads_per_sm must be a multiple of 32 that holds a block of 1024 threads, got 512
// An option error is checked before the pass sees the IR: no dump of the module.
// BADCLUSTER-NOT: see current operation

// CHECK: module attributes {norm.target = #norm.target<num_sms = 114, register_budget = 48, max_cluster_size = 8>}
// DEFAULT: module attributes {norm.target = #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 16>}
// PLAN114: min_partials = 228
// PLAN132: min_partials = 264
func.func @rms_bwd(%dy: tensor<?x4096xbf16>, %x: tensor<?x4096xbf16>, %rstd: tensor<?xf32>,
                   %w: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<4096xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<4096xbf16>)
      : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xf32> -> tensor<?x4096xbf16>, tensor<4096xbf16>
  return %dx, %dw : tensor<?x4096xbf16>, tensor<4096xbf16>
}

// -----

// A target already on the module is replaced; one written in the IR is
// read as it is (PLAN114's second case: no option, the IR's 114).
// CHECK: module attributes {norm.target = #norm.target<num_sms = 114, register_budget = 48, max_cluster_size = 8>}
// DEFAULT: module attributes {norm.target = #norm.target<num_sms = 132, register_budget = 32, max_cluster_size = 16>}
// PLAN132: min_partials = 228
module attributes {norm.target = #norm.target<num_sms = 114, register_budget = 32, max_cluster_size = 16>} {
  func.func @rms_bwd(%dy: tensor<?x4096xbf16>, %x: tensor<?x4096xbf16>, %rstd: tensor<?xf32>,
                     %w: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<4096xbf16>) {
    %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<4096xbf16>)
        : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xf32> -> tensor<?x4096xbf16>, tensor<4096xbf16>
    return %dx, %dw : tensor<?x4096xbf16>, tensor<4096xbf16>
  }
}
