// The manifest describes arguments, buffers, results and launches in terms
// of the row count M.
// RUN: rm -rf %t && norm-compile %s -o %t --quiet --short-rows=0 && FileCheck %s < %t/manifest.json
// With the short-rows versions (the default below 512 rows at N = 256 f32):
// every launch carries its condition on M.
// RUN: rm -rf %t5 && norm-compile %s -o %t5 --quiet && FileCheck %s --check-prefix=SHORT < %t5/manifest.json
// RUN: FileCheck %s --check-prefix=PARAMS < %t5/manifest.json
// RUN: not norm-compile %s -o %t2 --split-size=-1 2>&1 | FileCheck %s --check-prefix=BADSPLIT
// --help lists norm-compile's options, not every linked library's; those
// still parse.
// RUN: norm-compile --help | FileCheck %s --check-prefix=HELP
// RUN: rm -rf %t6 && norm-compile %s -o %t6 --quiet --vectorize-slp=false
// HELP-NOT: --target-abi
// HELP: norm-compile options:
// HELP: --short-rows=
// HELP: --split-size=
// HELP-NOT: --target-abi
// RUN: not norm-compile %S/Inputs/dynamic-n.mlir -o %t3 2>&1 | FileCheck %s --check-prefix=DYNN
// Rows of no elements divided by zero in the row layout; the verifier
// refuses them first.
// RUN: not norm-compile %S/Inputs/empty-rows.mlir -o %t8 2>&1 | FileCheck %s --check-prefix=EMPTYROWS
// EMPTYROWS: empty-rows.mlir:2:15: error: 'norm.rms_norm' op x: the normalized dimension N must be positive, got 0
// A second dynamic row dimension is not a dynamic N: the message says which.
// RUN: not norm-compile %S/Inputs/two-dynamic-row-dims.mlir -o %t7 2>&1 | FileCheck %s --check-prefix=TWOROWDIMS
// TWOROWDIMS: error: bundle: argument #0 has dynamic dimension 1 of 'memref<?x?x64xf16>'; a bundle's one dynamic size is the row count M, dimension 0: collapse the leading dimensions into one
// An inference forward (mean and rstd unused) gets one buffer and a kernel
// that stores y alone: no 4-byte statistics stores, which cost 1-5% at
// N = 1024.
// RUN: rm -rf %t4 && norm-compile %S/Inputs/inference-forward.mlir -o %t4 --quiet
// RUN: FileCheck %s --check-prefix=INFER < %t4/manifest.json
// RUN: FileCheck %s --check-prefix=INFER-PTX < %t4/kernels.ptx
// At N = 1024 that LayerNorm forward streams its rows at every M
// (chooseStreamedRows), from 3168 rows with rows held in bands
// (chooseHeldRows): four a block from 16896 rows, three from 4753, four
// (at nine blocks an SM) from 4225, four from 3168, one below, and below
// 133 rows (a block an SM) one whose blocks load the weight and bias with
// the row (choosePreloadedColumnsRows); a launch each, whose conditions
// partition M; each held rows' kernel stores each of its rows' y alone.
// RUN: FileCheck %s --check-prefix=INFER-WHEN < %t4/manifest.json
// RMSNorm's one-warp blocks at N = 256 have a version of each band of held
// rows for M a multiple of four (norm.rows_multiple), whose condition is
// M's remainder below 1, and the band's other version its negation.
// RUN: rm -rf %t7 && norm-compile %S/Inputs/rms-norm-fwd-256.mlir -o %t7 --quiet
// RUN: FileCheck %s --check-prefix=WHOLE < %t7/manifest.json

// CHECK: "format": "norm-kernel-bundle"
// CHECK: "function": "rms_bwd"
// CHECK: "launches": [
// One block per partial row: ceil(M / max(max(min(ceil(M / 264), 4), 1),
// ceil(ceil(M / 1056) / max(ceil(M / 16896), 1)))) (N = 256 f32: two-warp
// blocks, eight per SM of 132 when M allows, of at least four rows while
// that leaves 264, in whole waves of them of at most 16 rows each).
// CHECK: "grid": {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: "M",
// CHECK-NEXT: {
// CHECK-NEXT: "max": [
// CHECK-NEXT: {
// CHECK-NEXT: "max": [
// CHECK-NEXT: {
// CHECK-NEXT: "min": [
// CHECK-NEXT: {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: "M",
// CHECK-NEXT: 264
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: 4
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: 1
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: "M",
// CHECK-NEXT: 1056
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: {
// CHECK-NEXT: "max": [
// CHECK-NEXT: {
// CHECK-NEXT: "ceildiv": [
// CHECK-NEXT: "M",
// CHECK-NEXT: 16896
// CHECK-NEXT: ]
// CHECK-NEXT: },
// CHECK-NEXT: 1
// CHECK: "kernel": "norm_fused"
// CHECK: "kernel": "norm_combine"
// CHECK: "results": [
// CHECK-NEXT: "buf0",
// CHECK-NEXT: "buf1"
// CHECK: "ptx": "kernels.ptx"
// CHECK: "target": "sm_90"
// SHORT: "launches": [
// At one row one block (the conditions joined by "and"), its operands
// the program's arguments and buffers through the one-row version's casts:
// their aligned pointers (norm-compact-kernel-args), and no sizes (static
// in the one-row version).
// SHORT: "grid": 1,
// SHORT: "kernel": "norm_fused",
// SHORT-NEXT: "params": [
// SHORT-NEXT: {
// SHORT-NEXT: "buffer": "arg0",
// SHORT-NEXT: "field": "aligned"
// SHORT-NEXT: },
// SHORT-NEXT: {
// SHORT-NEXT: "buffer": "arg1",
// SHORT-NEXT: "field": "aligned"
// SHORT-NOT: "value"
// SHORT: "programmatic": false,
// SHORT: "when": {
// SHORT-NEXT: "and": [
// SHORT-NEXT: {
// SHORT-NEXT: "lt": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 512
// SHORT-NEXT: ]
// SHORT-NEXT: },
// SHORT-NEXT: {
// SHORT-NEXT: "and": [
// SHORT-NEXT: {
// SHORT-NEXT: "ge": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 1
// SHORT-NEXT: ]
// SHORT-NEXT: },
// SHORT-NEXT: {
// SHORT-NEXT: "lt": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 2
// Then the row and whole-column kernels, at no row too (the negation: "or").
// SHORT: "kernel": "norm_fused_0",
// SHORT: "programmatic": false,
// SHORT: "when": {
// SHORT-NEXT: "and": [
// SHORT: "or": [
// SHORT-NEXT: {
// SHORT-NEXT: "lt": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 1
// SHORT: "ge": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 2
// SHORT: "kernel": "norm_columns",
// SHORT: "programmatic": true,
// SHORT: "when": {
// SHORT-NEXT: "and": [
// From the limit on, the split kernel and its combine.
// SHORT: "kernel": "norm_fused_1",
// SHORT: "when": {
// SHORT-NEXT: "ge": [
// SHORT-NEXT: "M",
// SHORT-NEXT: 512
// SHORT: "kernel": "norm_combine",
// SHORT: "programmatic": true,
// SHORT: "when": {
// SHORT-NEXT: "ge": [
// SHORT: "results": [
// SHORT-NEXT: "buf0",
// SHORT-NEXT: "buf1"
// The row kernel of the pair: each activation's pointer, then its M; the
// combine's workspace its partial rows.
// PARAMS: "kernel": "norm_fused_0",
// PARAMS-NEXT: "params": [
// PARAMS-NEXT: {
// PARAMS-NEXT: "buffer": "arg0",
// PARAMS-NEXT: "field": "aligned"
// PARAMS-NEXT: },
// PARAMS-NEXT: {
// PARAMS-NEXT: "value": "M"
// PARAMS-NEXT: },
// PARAMS: "kernel": "norm_combine",
// PARAMS-NEXT: "params": [
// PARAMS-NEXT: {
// PARAMS-NEXT: "buffer": "buf2",
// PARAMS-NEXT: "field": "aligned"
// PARAMS-NEXT: },
// PARAMS-NEXT: {
// PARAMS-NEXT: "value": {
// PARAMS-NEXT: "ceildiv": [
// PARAMS-NEXT: "M",
// BADSPLIT: error: norm-split-reduction: split size must be a positive number of rows, got -1
// BADSPLIT-NOT: see current operation
// DYNN: error: 'norm.fused' op the GPU lowering needs a static normalized dimension N

func.func @rms_bwd(%dy: tensor<?x256xf32>, %x: tensor<?x256xf32>, %rstd: tensor<?xf32>, %w: tensor<256xf32>) -> (tensor<?x256xf32>, tensor<256xf32>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<256xf32>) {norm.split_size = 16 : i64}
      : tensor<?x256xf32>, tensor<?x256xf32>, tensor<?xf32> -> tensor<?x256xf32>, tensor<256xf32>
  return %dx, %dw : tensor<?x256xf32>, tensor<256xf32>
}
// INFER-NOT: "buf1"
// INFER: "buffers": [
// INFER-NEXT: {
// INFER-NEXT: "dtype": "bf16",
// INFER-NEXT: "name": "buf0",
// INFER-NOT: "buf1"
// INFER: "results": [
// INFER-NEXT: "buf0"
// INFER-NEXT: ]
// INFER-NOT: "buf1"
// INFER-PTX-LABEL: .entry norm_fused(
// INFER-PTX-COUNT-4: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-PTX-LABEL: .entry norm_fused_0(
// INFER-PTX-COUNT-3: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-PTX-LABEL: .entry norm_fused_1(
// INFER-PTX-COUNT-4: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-PTX-LABEL: .entry norm_fused_2(
// INFER-PTX-COUNT-4: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// The one row (chooseOneRowForwardRows): 256 threads of 4 elements, its
// weight and bias loaded with the row.
// INFER-PTX-LABEL: .entry norm_fused_3(
// INFER-PTX: .maxntid 256, 1, 1
// INFER-PTX-COUNT-3: ld.global.v2.b32
// INFER-PTX-NOT: ld.global
// INFER-PTX: bar.sync
// INFER-PTX-NOT: ld.global
// INFER-PTX: st.global.v2.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-PTX-LABEL: .entry norm_fused_4(
// INFER-PTX-COUNT-3: ld.global
// INFER-PTX-NOT: ld.global
// INFER-PTX: bar.sync
// INFER-PTX-NOT: ld.global
// INFER-PTX: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-PTX-LABEL: .entry norm_fused_5(
// INFER-PTX: ld.global
// INFER-PTX-NOT: ld.global
// INFER-PTX: bar.sync
// INFER-PTX-COUNT-2: ld.global
// INFER-PTX: st.global.v4.b32
// INFER-PTX-NOT: st.global
// INFER-PTX: ret;
// INFER-WHEN: "launches": [
// INFER-WHEN: "grid": {
// INFER-WHEN-NEXT: "ceildiv": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 4
// INFER-WHEN: "kernel": "norm_fused",
// INFER-WHEN: "when": {
// INFER-WHEN-NEXT: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 16896
// INFER-WHEN: "grid": {
// INFER-WHEN-NEXT: "ceildiv": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 3
// INFER-WHEN: "kernel": "norm_fused_0",
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 4753
// INFER-WHEN: "kernel": "norm_fused_1",
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 4225
// INFER-WHEN: "kernel": "norm_fused_2",
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 3168
// INFER-WHEN: "block": 256,
// INFER-WHEN: "grid": 1,
// INFER-WHEN: "kernel": "norm_fused_3",
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 1
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 2
// INFER-WHEN: "grid": "M",
// INFER-WHEN: "kernel": "norm_fused_4",
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 16896
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 4753
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 4225
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 3168
// INFER-WHEN: "or": [
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 1
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 2
// INFER-WHEN: "lt": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 133
// INFER-WHEN: "grid": "M",
// INFER-WHEN: "kernel": "norm_fused_5",
// INFER-WHEN: "or": [
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 2
// INFER-WHEN: "ge": [
// INFER-WHEN-NEXT: "M",
// INFER-WHEN-NEXT: 133
// INFER-WHEN-NOT: "kernel"
// INFER-WHEN: "results"

// WHOLE: "kernel": "norm_fused",
// WHOLE: "when": {
// WHOLE-NEXT: "and": [
// WHOLE: "ge": [
// WHOLE-NEXT: "M",
// WHOLE-NEXT: 4753
// WHOLE: "lt": [
// WHOLE-NEXT: {
// WHOLE-NEXT: "rem": [
// WHOLE-NEXT: "M",
// WHOLE-NEXT: 4
// WHOLE-NEXT: ]
// WHOLE-NEXT: },
// WHOLE-NEXT: 1
// WHOLE: "kernel": "norm_fused_0",
// WHOLE: "ge": [
// WHOLE-NEXT: "M",
// WHOLE-NEXT: 4753
// WHOLE: "ge": [
// WHOLE-NEXT: {
// WHOLE-NEXT: "rem": [
// WHOLE-NEXT: "M",
// WHOLE-NEXT: 4
// WHOLE-NEXT: ]
// WHOLE-NEXT: },
// WHOLE-NEXT: 1
