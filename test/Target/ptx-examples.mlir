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
// RUN: FileCheck %s --check-prefix=ONEBLOCK < %t/rms_bwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/layer_norm_fwd.mlir -o %t/ln_fwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_fwd/kernels.ptx -o %t/ln_fwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/ln_fwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/layer_norm_bwd.mlir -o %t/ln_bwd --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_bwd/kernels.ptx -o %t/ln_bwd.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/ln_bwd/kernels.ptx
// RUN: FileCheck %s --check-prefix=BULKSTORE < %t/ln_bwd/kernels.ptx
// RUN: norm-compile %norm_src/examples/rms_norm_fwd_inference.mlir -o %t/rms_fwd_inference --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_fwd_inference/kernels.ptx -o %t/rms_fwd_inference.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/rms_fwd_inference/kernels.ptx
// The LayerNorm forward at N = 1024 from 3168 rows (chooseHeldRows): a
// block's four rows are all loaded before its first barrier, the last three
// predicated on their existence, then the weight and bias once for the four
// (predicated too, so ptxas keeps them there); nothing loaded after the
// barriers. No spills, but for the version that asks for nine blocks an SM
// at 4225-4752 rows (.minnctapersm 9: 56 registers), which may spill a
// little (16 bytes with CUDA 13.0's ptxas; 32 or more fails the check).
// RUN: norm-compile %S/Inputs/inference-forward.mlir -o %t/ln_fwd_held --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_fwd_held/kernels.ptx -o %t/ln_fwd_held.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS-CAPPED
// RUN: FileCheck %s --check-prefix=HELD < %t/ln_fwd_held/kernels.ptx
// The same with its warps owning the rows (--warp-rows=1; the rule gives
// them to RMSNorm at 3168-4223 rows, chooseHeldRows): each warp's 4 x 3
// vectors of x, the weight and the bias all predicated on its row, two
// reductions of five shuffles each, and no barrier anywhere.
// RUN: norm-compile %S/Inputs/inference-forward.mlir -o %t/ln_fwd_warps --quiet --warp-rows=1
// RUN: %ptxas -arch=sm_90 -v %t/ln_fwd_warps/kernels.ptx -o %t/ln_fwd_warps.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=WARPS < %t/ln_fwd_warps/kernels.ptx
// Long rows spread over thread block clusters (4 blocks for the forward at
// N = 65536; 16 for the RMSNorm backward at N = 131072 asked not to stage,
// which otherwise re-reads staged slices over 8): the cluster shape is
// compiled in, block totals are pushed to the other blocks with st.async
// completing on mbarriers.
// RUN: norm-compile %S/Inputs/rms_norm_fwd_long.mlir -o %t/rms_fwd_long --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_fwd_long/kernels.ptx -o %t/rms_fwd_long.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/rms_fwd_long/kernels.ptx
// RUN: FileCheck %s --check-prefix=CLUSTER4 < %t/rms_fwd_long/kernels.ptx
// RUN: FileCheck %s --check-prefix=PERSISTENT < %t/rms_fwd_long/manifest.json
// RUN: norm-compile %S/Inputs/rms_norm_fwd_long.mlir -o %t/rms_fwd_long_np --quiet --persistent=false
// RUN: FileCheck %s --check-prefix=NOTPERSISTENT < %t/rms_fwd_long_np/manifest.json
// RUN: norm-compile %S/Inputs/rms_norm_bwd_131072.mlir -o %t/rms_bwd_131072 --quiet --shared-stages=0
// RUN: %ptxas -arch=sm_90 -v %t/rms_bwd_131072/kernels.ptx -o %t/rms_bwd_131072.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=VEC < %t/rms_bwd_131072/kernels.ptx
// RUN: FileCheck %s --check-prefix=CLUSTER16 < %t/rms_bwd_131072/kernels.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST16 < %t/rms_bwd_131072/manifest.json
// The LayerNorm backward re-reads 3 staged slices over 4 blocks of 512
// threads at N = 65536 and 8 at N = 131072 (224 KB of dynamic shared memory
// each; chooseWideRereadCluster) instead of the split-rows path that reads
// x and dy twice; so does the RMSNorm backward at N = 131072, no spills.
// Below the short-rows limit (96 rows) the pair of kernels runs first
// (norm_fused_0 and norm_columns), the re-reading kernel is norm_fused_1.
// RUN: norm-compile %S/Inputs/layer_norm_bwd_long.mlir -o %t/ln_bwd_long --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_bwd_long/kernels.ptx -o %t/ln_bwd_long.cubin 2>&1 | FileCheck %s --check-prefix=REREAD
// RUN: FileCheck %s --check-prefix=VEC < %t/ln_bwd_long/kernels.ptx
// RUN: FileCheck %s --check-prefix=REREAD4 < %t/ln_bwd_long/kernels.ptx
// RUN: FileCheck %s --check-prefix=REREADMANIFEST4 < %t/ln_bwd_long/manifest.json
// RUN: norm-compile %S/Inputs/layer_norm_bwd_131072.mlir -o %t/ln_bwd_131072 --quiet
// RUN: %ptxas -arch=sm_90 -v %t/ln_bwd_131072/kernels.ptx -o %t/ln_bwd_131072.cubin 2>&1 | FileCheck %s --check-prefix=REREAD
// RUN: FileCheck %s --check-prefix=REREADMANIFEST8 < %t/ln_bwd_131072/manifest.json
// RUN: norm-compile %S/Inputs/rms_norm_bwd_131072.mlir -o %t/rms_bwd_131072_reread --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_bwd_131072_reread/kernels.ptx -o %t/rms_bwd_131072_reread.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=REREADMANIFEST8 < %t/rms_bwd_131072_reread/manifest.json
// N = 40000: block sizes of powers of two leave the last slice outside the
// row, so the backward's cluster takes 8 blocks of 320 threads (instead of
// the split-rows path); no spills.
// RUN: norm-compile %S/Inputs/rms_norm_bwd_40000.mlir -o %t/rms_bwd_40000 --quiet
// RUN: %ptxas -arch=sm_90 -v %t/rms_bwd_40000/kernels.ptx -o %t/rms_bwd_40000.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=RAGGED < %t/rms_bwd_40000/manifest.json
// Rows staged in shared memory by bulk copies (experimental option): ptxas
// accepts the copies and barriers, no spills.
// RUN: norm-compile %norm_src/examples/layer_norm_fwd.mlir -o %t/ln_fwd_staged --quiet --shared-stages=3
// RUN: %ptxas -arch=sm_90 -v %t/ln_fwd_staged/kernels.ptx -o %t/ln_fwd_staged.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: FileCheck %s --check-prefix=STAGED < %t/ln_fwd_staged/kernels.ptx
// Long rows for sm_80 (no clusters): the row's statistics are split out
// (--norm-split-rows) into kernels that need none, and ptxas takes them;
// a chip before Ampere is an error before any work.
// RUN: norm-compile %S/Inputs/rms_norm_fwd_long.mlir -o %t/sm80_long --quiet --chip=sm_80
// RUN: %ptxas -arch=sm_80 %t/sm80_long/kernels.ptx -o %t/sm80_long.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t/sm80_long/kernels.ptx
// RUN: not norm-compile %S/Inputs/rms_norm_fwd_long.mlir -o %t/sm75_long --quiet --chip=sm_75 2>&1 | FileCheck %s --check-prefix=SM75

// PTXAS: Compiling entry function 'norm_fused
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NOT: {{[1-9][0-9]*}} bytes spill

// PTXAS-CAPPED: Compiling entry function 'norm_fused_3'
// PTXAS-CAPPED-NEXT: Function properties for norm_fused_3
// PTXAS-CAPPED-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-CAPPED: Compiling entry function 'norm_fused_2'
// PTXAS-CAPPED-NEXT: Function properties for norm_fused_2
// PTXAS-CAPPED-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-CAPPED: Compiling entry function 'norm_fused_1'
// PTXAS-CAPPED-NEXT: Function properties for norm_fused_1
// PTXAS-CAPPED-NEXT: {{[0-9]+}} bytes stack frame, {{[0-9]|[12][0-9]|3[01]}} bytes spill stores
// PTXAS-CAPPED-NEXT: Used {{[0-9]|[1-4][0-9]|5[0-6]}} registers
// PTXAS-CAPPED: Compiling entry function 'norm_fused_0'
// PTXAS-CAPPED-NEXT: Function properties for norm_fused_0
// PTXAS-CAPPED-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-CAPPED: Compiling entry function 'norm_fused'
// PTXAS-CAPPED-NEXT: Function properties for norm_fused
// PTXAS-CAPPED-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// The re-reading clusters of 512 threads keep 64 f32 column accumulators a
// thread within 128 registers. ptxas spilled one value (4-8 bytes, the row
// loop's bound) until the row inputs loaded a row ahead and spills none
// now; the check still allows the fused kernel single-digit bytes, the
// combine none.
// REREAD: Compiling entry function 'norm_combine
// REREAD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// REREAD: Compiling entry function 'norm_fused
// REREAD: {{^ *[0-9] bytes stack frame, [0-9] bytes spill stores, [0-9] bytes spill loads}}
// REREAD-NOT: {{[1-9][0-9]+}} bytes spill
// REREAD4: .maxntid 512, 1, 1
// REREAD4: .reqnctapercluster 1, 4, 1
// REREAD4: st.async.shared::cluster
// REREAD4: ld.shared.v4.b32
// REREADMANIFEST4: "kernel": "norm_columns"
// REREADMANIFEST4: "block": 512
// REREADMANIFEST4-NEXT: "cluster": 4
// REREADMANIFEST4: "kernel": "norm_fused_1"
// REREADMANIFEST4: "shared_bytes": 229376
// REREADMANIFEST8: "kernel": "norm_columns"
// REREADMANIFEST8: "block": 512
// REREADMANIFEST8-NEXT: "cluster": 8
// REREADMANIFEST8: "kernel": "norm_fused_1"
// REREADMANIFEST8: "shared_bytes": 229376

// RAGGED: "block": 320
// RAGGED-NEXT: "cluster": 8

// The staged LayerNorm backward stores dx by bulk copies from shared
// memory (chooseBulkStores), which ptxas accepts (PTXAS above): in the row
// loop the slot wait before the reduction barrier and the previous row's
// copy after it, then the last row's copy behind a barrier.
// BULKSTORE: cp.async.bulk.wait_group.read 0;
// BULKSTORE: bar.sync
// BULKSTORE: cp.async.bulk.global.shared::cta.bulk_group [global]
// BULKSTORE: cp.async.bulk.commit_group;
// BULKSTORE: bar.sync
// BULKSTORE: cp.async.bulk.global.shared::cta.bulk_group [global]
// BULKSTORE: cp.async.bulk.commit_group;
// BULKSTORE: cp.async.bulk.wait_group.read 0;

// VEC: .target sm_90
// VEC: .entry norm_fused
// 16-byte loads, with an L2 eviction hint in the streamed forwards.
// VEC: {{ld\.global(\.L1::evict_last\.L2::cache_hint)?\.v4\.b32}}
// VEC: st.global.v4.b32

// CLUSTER4: .version 8.1
// CLUSTER4: .reqnctapercluster 1, 4, 1
// CLUSTER4: mbarrier.init.shared::cta.b64
// CLUSTER4: barrier.cluster.arrive.aligned
// CLUSTER4: barrier.cluster.wait.aligned
// CLUSTER4: mbarrier.arrive.expect_tx.shared::cta.b64
// CLUSTER4: mapa.shared::cluster.u64
// CLUSTER4: st.async.shared::cluster.mbarrier::complete_tx::bytes.f32
// CLUSTER4: mbarrier.try_wait.parity.shared::cta.b64
// CLUSTER16: .reqnctapercluster 1, 16, 1
// CLUSTER16-COUNT-16: st.async.shared::cluster
// MANIFEST16: "cluster": 16
// MANIFEST16: "persistent": false
// The forward over a cluster walks rows strided by its grid: one cluster
// per row at most, capped at launch (the grid is M); without persistence,
// a cluster per 16 rows.
// PERSISTENT: "cluster": 4
// PERSISTENT: "grid": "M"
// PERSISTENT: "persistent": true
// NOTPERSISTENT: "ceildiv": [
// NOTPERSISTENT-NEXT: "M",
// NOTPERSISTENT-NEXT: 8
// NOTPERSISTENT: "persistent": false
// SM80: .target sm_80
// SM80-NOT: .reqnctapercluster
// SM80-NOT: griddepcontrol
// SM75: error: chip must be sm_80 (any GPU since Ampere), sm_90, sm_90a, sm_100, sm_100a, sm_120 or sm_120a, got 'sm_75'
// STAGED: .shared .align 16 .b8
// STAGED: cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
// STAGED: mbarrier.try_wait.parity.shared::cta.b64
// STAGED: ld.shared.v4.b32

// The one-block backward (M = 1, the bundle's first kernel): the weights'
// load and the first row's predicated loads of dy and x come before any
// branch, so ptxas issues them together (with the row's loads behind the
// prologue's branch it issued them once the weights had arrived).
// ONEBLOCK: .entry norm_fused(
// ONEBLOCK-NOT: bra
// ONEBLOCK: ld.global.v4.b32
// ONEBLOCK-NOT: bra
// ONEBLOCK: @%p{{[0-9]+}} ld.global.v4.b32
// ONEBLOCK-NOT: bra
// ONEBLOCK: @%p{{[0-9]+}} ld.global.v4.b32
// ONEBLOCK: bra

// WARPS-LABEL: .entry norm_fused(
// WARPS-NOT: bar.sync
// WARPS-COUNT-12: @%p{{[0-9]+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32
// WARPS-NOT: ld.global
// WARPS-NOT: bar.sync
// WARPS-COUNT-10: shfl.sync.bfly.b32
// WARPS-NOT: bar.sync
// WARPS: ret;

// HELD-LABEL: .entry norm_fused(
// HELD: ld.global.L1::evict_last.L2::cache_hint.v4.b32
// HELD-COUNT-5: @%p{{[0-9]+}} ld.global.L1::evict_last.L2::cache_hint.v4.b32
// HELD-NOT: ld.global
// HELD: bar.sync
// HELD-NOT: ld.global
// HELD: bar.sync
// HELD-NOT: ld.global
// HELD: ret;
// The version at 4225-4752 rows asks ptxas for nine blocks an SM; the
// others leave the registers to ptxas.
// HELD-LABEL: .entry norm_fused_0(
// HELD-NOT: .minnctapersm
// HELD-LABEL: .entry norm_fused_1(
// HELD: .maxntid 128, 1, 1
// HELD-NEXT: .minnctapersm 9
// HELD-LABEL: .entry norm_fused_2(
// HELD-NOT: .minnctapersm
