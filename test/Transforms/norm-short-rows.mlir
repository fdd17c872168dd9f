// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows --split-input-file | FileCheck %s
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows="short-rows=0" --split-input-file | FileCheck %s --check-prefix=OFF
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows --norm-plan-kernels --norm-split-reduction --split-input-file | FileCheck %s --check-prefix=SPLIT
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows --norm-short-rows --split-input-file | FileCheck %s --check-prefix=TWICE
// RUN: not norm-opt %s --norm-short-rows="short-rows=-2" 2>&1 | FileCheck %s --check-prefix=BADROWS
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows="warp-rows=0" --split-input-file | FileCheck %s --check-prefix=NOWARP
// RUN: norm-opt %s --norm-decompose --norm-fuse-mixed-order --norm-short-rows="warp-rows=1" --split-input-file | FileCheck %s --check-prefix=ALLWARP
// RUN: not norm-opt %s --norm-short-rows="warp-rows=2" 2>&1 | FileCheck %s --check-prefix=BADWARP

// BADROWS: error: norm-short-rows: short-rows must be -1 (the tuning rule), 0 (off) or a positive row count, got -2
// BADWARP: error: norm-short-rows: warp-rows must be -1 (the tuning rule), 0 or 1, got 2

// Dynamic M (LayerNorm backward, N = 4096): below 768 rows (six rounds
// of the column kernel's 32 row groups x 4 rows) the row part (dx, with
// both row reductions and the weight) and the column part (dw, db: no row
// reduction, no weight) write the same destinations as the fused kernel of
// the other branch; at one row the fused kernel itself runs as one block
// (norm.whole_columns with its row work) on operands cast to one row, so
// that its lowering knows M = 1 (no row loop); no row at all takes the
// parts.
// CHECK-LABEL: func @ln_bwd
// CHECK-DAG: %[[DX:.+]] = tensor.empty(%{{.+}}) : tensor<?x4096xbf16>
// CHECK-DAG: %[[DW:.+]] = tensor.empty() : tensor<4096xbf16>
// CHECK: %[[M:.+]] = tensor.dim %arg0
// CHECK: %[[SHORT:.+]] = arith.cmpi ult, %[[M]], %c768
// CHECK: %[[R:.+]]:3 = scf.if %[[SHORT]]
// CHECK: %[[M1:.+]] = tensor.dim %arg0
// CHECK: %[[BELOW2:.+]] = arith.cmpi ult, %[[M1]], %c2
// CHECK: %[[FROM1:.+]] = arith.cmpi uge, %[[M1]], %c1
// CHECK: %[[ONE:.+]] = arith.andi %[[FROM1]], %[[BELOW2]]
// CHECK: %[[S:.+]]:3 = scf.if %[[ONE]]
// CHECK: %[[DY1:.+]] = tensor.cast %arg0 : tensor<?x4096xbf16> to tensor<1x4096xbf16>
// CHECK: %[[MEAN1:.+]] = tensor.cast %arg2 : tensor<?xf32> to tensor<1xf32>
// CHECK: %[[DX1:.+]] = tensor.cast %[[DX]] : tensor<?x4096xbf16> to tensor<1x4096xbf16>
// CHECK: %[[WHOLE:.+]]:3 = norm.fused ins (%[[DY1]] : full tensor<1x4096xbf16>, %{{.+}} : full tensor<1x4096xbf16>, %[[MEAN1]] : row tensor<1xf32>, %{{.+}} : row tensor<1xf32>, %arg4 : col tensor<4096xbf16>) outs (%[[DX1]] : full tensor<1x4096xbf16>, %[[DW]] : col tensor<4096xbf16>, %{{.+}} : col tensor<4096xbf16>) -> tensor<1x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16> attributes {norm.whole_columns}
// CHECK-COUNT-2: norm.row_reduce
// CHECK: %[[WHOLEDX:.+]] = tensor.cast %[[WHOLE]]#0 : tensor<1x4096xbf16> to tensor<?x4096xbf16>
// CHECK: scf.yield %[[WHOLEDX]], %[[WHOLE]]#1, %[[WHOLE]]#2
// CHECK: } else {
// CHECK: %[[ROWS:.+]] = norm.fused ins ({{.*}}%arg4 : col tensor<4096xbf16>) outs (%[[DX]] : full
// CHECK-COUNT-2: norm.row_reduce
// CHECK: norm.yield %{{.+}} : bf16
// CHECK: %[[COLS:.+]]:2 = norm.fused ins (%arg0 : full {{.*}}, %arg3 : row tensor<?xf32>) outs (%[[DW]] : col tensor<4096xbf16>, %{{.+}} : col tensor<4096xbf16>) {{.*}}attributes {norm.whole_columns}
// CHECK-NOT: norm.row_reduce
// CHECK: norm.yield %{{.+}}, %{{.+}} : f32, f32
// CHECK: scf.yield %[[ROWS]], %[[COLS]]#0, %[[COLS]]#1
// CHECK: } {norm.short_rows}
// CHECK: scf.yield %[[S]]#0, %[[S]]#1, %[[S]]#2
// CHECK: } else {
// CHECK: %[[FUSED:.+]]:3 = norm.fused {{.*}}outs (%[[DX]] : full tensor<?x4096xbf16>, %[[DW]] : col
// CHECK: scf.yield %[[FUSED]]#0, %[[FUSED]]#1, %[[FUSED]]#2
// CHECK: } {norm.short_rows}
// CHECK: return %[[R]]#0, %[[R]]#1, %[[R]]#2
// Running the pass again leaves the versions as they are.
// TWICE-LABEL: func @ln_bwd
// TWICE-COUNT-2: scf.if
// TWICE-NOT: scf.if
// TWICE: return
// OFF-LABEL: func @ln_bwd
// OFF-NOT: scf.if
// OFF-NOT: norm.whole_columns
// The split leaves the whole-column kernel alone and splits the other.
// SPLIT-LABEL: func @ln_bwd
// SPLIT: scf.if
// SPLIT: norm.fused {{.*}}outs ({{.*}} : col tensor<4096xbf16>, {{.*}} : col tensor<4096xbf16>) {{.*}}norm.whole_columns
// SPLIT-NOT: norm.combine
// SPLIT: } else {
// SPLIT: rows_per_partial
// SPLIT-COUNT-2: norm.combine
func.func @ln_bwd(%dy: tensor<?x4096xbf16>, %x: tensor<?x4096xbf16>, %mean: tensor<?xf32>,
                  %rstd: tensor<?xf32>, %w: tensor<4096xbf16>)
    -> (tensor<?x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>) {
  %dx, %dw, %db = norm.layer_norm_grad %dy, %x, %mean, %rstd weight(%w : tensor<4096xbf16>) {has_bias}
      : tensor<?x4096xbf16>, tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
      -> tensor<?x4096xbf16> dw tensor<4096xbf16> db tensor<4096xbf16>
  return %dx, %dw, %db : tensor<?x4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>
}

// -----

// Static M picks the version here: 64 rows of RMSNorm at N = 1024 (limit
// 512) become the two parts, no scf.if.
// CHECK-LABEL: func @rms_bwd_short
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}outs (%{{.+}} : full tensor<64x1024xbf16>)
// CHECK: norm.fused {{.*}}outs (%{{.+}} : col tensor<1024xbf16>) {{.*}}norm.whole_columns
func.func @rms_bwd_short(%dy: tensor<64x1024xbf16>, %x: tensor<64x1024xbf16>, %rstd: tensor<64xf32>,
                         %w: tensor<1024xbf16>) -> (tensor<64x1024xbf16>, tensor<1024xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<1024xbf16>)
      : tensor<64x1024xbf16>, tensor<64x1024xbf16>, tensor<64xf32> -> tensor<64x1024xbf16>, tensor<1024xbf16>
  return %dx, %dw : tensor<64x1024xbf16>, tensor<1024xbf16>
}

// -----

// One static row: the mixed kernel itself over one block, no scf.if.
// CHECK-LABEL: func @rms_bwd_one_row
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}outs (%{{.+}} : full tensor<1x4096xbf16>, %{{.+}} : col tensor<4096xbf16>) {{.*}}attributes {norm.whole_columns}
// CHECK: norm.row_reduce
// CHECK-NOT: norm.fused
// CHECK: return
func.func @rms_bwd_one_row(%dy: tensor<1x4096xbf16>, %x: tensor<1x4096xbf16>, %rstd: tensor<1xf32>,
                           %w: tensor<4096xbf16>) -> (tensor<1x4096xbf16>, tensor<4096xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<4096xbf16>)
      : tensor<1x4096xbf16>, tensor<1x4096xbf16>, tensor<1xf32> -> tensor<1x4096xbf16>, tensor<4096xbf16>
  return %dx, %dw : tensor<1x4096xbf16>, tensor<4096xbf16>
}

// -----

// 512 static rows are not short: the fused kernel stays.
// CHECK-LABEL: func @rms_bwd_long
// CHECK-NOT: scf.if
// CHECK-NOT: norm.whole_columns
// CHECK: norm.fused {{.*}}outs (%{{.+}} : full tensor<512x1024xbf16>, %{{.+}} : col tensor<1024xbf16>)
func.func @rms_bwd_long(%dy: tensor<512x1024xbf16>, %x: tensor<512x1024xbf16>, %rstd: tensor<512xf32>,
                        %w: tensor<1024xbf16>) -> (tensor<512x1024xbf16>, tensor<1024xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<1024xbf16>)
      : tensor<512x1024xbf16>, tensor<512x1024xbf16>, tensor<512xf32> -> tensor<512x1024xbf16>, tensor<1024xbf16>
  return %dx, %dw : tensor<512x1024xbf16>, tensor<1024xbf16>
}

// -----

// A forward with one row reduction (RMSNorm) at N = 1000-4096 streams its
// rows at every M (chooseStreamedRows). At N = 4096 (blocks of 512 threads
// holding one vector of the row each) its blocks hold two rows from where a
// row a block takes a second wave (four blocks an SM: 529 rows on 132 SMs,
// chooseHeldRows): two versions, one comparison. Wider rows stay as they
// are.
// CHECK-LABEL: func @rms_fwd
// CHECK: %[[TWO:.+]] = arith.cmpi uge, %{{.+}}, %c529
// CHECK: scf.if %[[TWO]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 2 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 529 : i64, norm.stream_rows}
// CHECK: } {norm.short_rows}
// CHECK-LABEL: func @rms_fwd_8192
// CHECK-NOT: scf.if
// CHECK-NOT: norm.stream_rows
// LayerNorm's forward at N = 4096 streams below 5M elements (1280 rows),
// its blocks holding two rows from 529 rows (chooseHeldRows, as RMSNorm's),
// four where two-row blocks take two waves and four-row blocks one
// (793-1056 rows, registers for two blocks an SM), two again past that:
// a chain of versions, the highest first.
// CHECK-LABEL: func @ln_fwd
// CHECK: %[[SHORT:.+]] = arith.cmpi ult, %{{.+}}, %c1280
// CHECK: scf.if %[[SHORT]]
// CHECK: %[[TWO:.+]] = arith.cmpi uge, %{{.+}}, %c1057
// CHECK: %[[TWOBAND:.+]] = arith.andi %[[TWO]], %{{.+}}
// CHECK: scf.if %[[TWOBAND]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 1280 : i64, norm.rows_per_block = 2 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[FOUR:.+]] = arith.cmpi uge, %{{.+}}, %c793
// CHECK: %[[FOURBAND:.+]] = arith.andi %[[FOUR]], %{{.+}}
// CHECK: scf.if %[[FOURBAND]]
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 2 : i64, norm.rows_below = 1057 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[FROM:.+]] = arith.cmpi uge, %{{.+}}, %c529
// CHECK: %[[BAND:.+]] = arith.andi %[[FROM]], %{{.+}}
// CHECK: scf.if %[[BAND]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 793 : i64, norm.rows_per_block = 2 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 1280 : i64, norm.stream_rows}
// CHECK: } {norm.short_rows}
// CHECK: } {norm.short_rows}
// CHECK: } {norm.short_rows}
// CHECK: } else {
// CHECK: norm.fused
// CHECK-NOT: norm.stream_rows
// CHECK: } {norm.short_rows}
// At N = 1024 it streams at every M, and from 24 rows per SM (3168 rows
// on 132 SMs) its blocks hold rows (chooseHeldRows): four, asking for nine
// blocks an SM past 32 rows per SM (4225-4752), three past 36 and below
// 128 rows per SM (4753-16895), four again from 16896; a chain of
// versions, the highest first, each one comparison.
// CHECK-LABEL: func @ln_fwd_1024
// CHECK: %[[FOUR:.+]] = arith.cmpi uge, %{{.+}}, %c16896
// CHECK-NOT: arith.andi
// CHECK: scf.if %[[FOUR]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[THREE:.+]] = arith.cmpi uge, %{{.+}}, %c4753
// CHECK-NOT: arith.andi
// CHECK: scf.if %[[THREE]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 16896 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[CAPPED:.+]] = arith.cmpi uge, %{{.+}}, %c4225
// CHECK-NOT: arith.andi
// CHECK: scf.if %[[CAPPED]]
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 9 : i64, norm.rows_below = 4753 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[HELD:.+]] = arith.cmpi uge, %{{.+}}, %c3168
// CHECK-NOT: arith.andi
// CHECK: scf.if %[[HELD]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// The one row (a static M of 1: no norm.rows_below), then the rows below
// 3168.
// CHECK: norm.fused ins (%{{.+}} : full tensor<1x1024xbf16>
// CHECK-SAME: attributes {norm.stream_rows}
// CHECK: norm.fused
// CHECK-NOT: norm.rows_per_block
// CHECK-SAME: attributes {norm.rows_below = 3168 : i64, norm.stream_rows}
// CHECK: } {norm.short_rows}
// A static M picks the version: below the limit streamed, above it staged;
// streamed with four rows a block from 3168 rows.
// CHECK-LABEL: func @ln_fwd_512_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.stream_rows}
// CHECK-LABEL: func @ln_fwd_2048_rows
// CHECK-NOT: scf.if
// CHECK-NOT: norm.stream_rows
// CHECK-LABEL: func @rms_fwd_4096_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// RMSNorm's warp rows start at three quarters of a row per SM (99 rows on
// 132 SMs): 99 and 3167 rows take them, 98 a row a block.
// CHECK-LABEL: func @rms_fwd_3167_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-LABEL: func @rms_fwd_99_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-LABEL: func @rms_fwd_98_rows
// CHECK-NOT: scf.if
// CHECK-NOT: norm.rows_per_block
// CHECK: norm.fused {{.*}}attributes {norm.stream_rows}
// From 3 to 5 rows per SM (396-660 rows) a row a block again: 395 and 661
// rows take warp rows, 396 and 660 not.
// CHECK-LABEL: func @rms_fwd_395_rows
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-LABEL: func @rms_fwd_396_rows
// CHECK-NOT: norm.rows_per_block
// CHECK: norm.fused {{.*}}attributes {norm.stream_rows}
// CHECK-LABEL: func @rms_fwd_660_rows
// CHECK-NOT: norm.rows_per_block
// CHECK: norm.fused {{.*}}attributes {norm.stream_rows}
// CHECK-LABEL: func @rms_fwd_661_rows
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// One wave of four-row blocks ends at 4224 rows inclusive; nine of them an
// SM take it to 4752.
// CHECK-LABEL: func @rms_fwd_4224_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-LABEL: func @rms_fwd_4752_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 9 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-LABEL: func @rms_fwd_6144_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 3 : i64, norm.stream_rows}
// The three-row band's last M and the four-row band's first.
// CHECK-LABEL: func @rms_fwd_16895_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 3 : i64, norm.stream_rows}
// CHECK-LABEL: func @rms_fwd_16896_rows
// CHECK-NOT: scf.if
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// Ragged rows (N = 1000: 125 of the block's 128 threads hold a vector)
// take four rows a block from 16 rows per SM, 2112 rows.
// CHECK-LABEL: func @rms_fwd_1000
// CHECK: %[[HELD:.+]] = arith.cmpi uge, %{{.+}}, %c2112
// CHECK: scf.if %[[HELD]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 2112 : i64, norm.stream_rows}
// RMSNorm rows the block covers exactly (N = 1024): the same chain, but
// its warps own a row each from three quarters of a row per SM (99 rows)
// up to 36 rows per SM (4752 rows), one version up to one wave, except a
// row a block from 3 to 5 rows per SM (396-660 rows). The option gives
// warp rows to every band of four rows (ALLWARP) or none (NOWARP).
// CHECK-LABEL: func @rms_fwd_1024
// CHECK: arith.cmpi uge, %{{.+}}, %c16896
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: arith.cmpi uge, %{{.+}}, %c4753
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 16896 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows}
// CHECK: arith.cmpi uge, %{{.+}}, %c4225
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 9 : i64, norm.rows_below = 4753 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-NOT: %c3168
// CHECK: %[[UPPER:.+]] = arith.cmpi uge, %{{.+}}, %c661
// CHECK: scf.if %[[UPPER]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: } else {
// CHECK: %[[BELOW:.+]] = arith.cmpi ult, %{{.+}}, %c396
// CHECK: %[[FROM:.+]] = arith.cmpi uge, %{{.+}}, %c99
// CHECK: %[[WARPS:.+]] = arith.andi %[[FROM]], %[[BELOW]]
// CHECK: scf.if %[[WARPS]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 396 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 661 : i64, norm.stream_rows}
// CHECK: } {norm.short_rows}
// Without warp rows, rows below 24 per SM (3168) take one a block.
// NOWARP-LABEL: func @rms_fwd_1024
// NOWARP-NOT: norm.warp_rows
// NOWARP-NOT: %c99
// NOWARP: arith.cmpi uge, %{{.+}}, %c3168
// NOWARP-NOT: norm.warp_rows
// NOWARP: return
// Ragged rows (N = 1000) too: their band of four rows divides among the
// warps.
// ALLWARP-LABEL: func @rms_fwd_1000
// ALLWARP: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// ALLWARP-LABEL: func @rms_fwd_1024
// ALLWARP: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// ALLWARP: norm.fused {{.*}}attributes {norm.rows_below = 16896 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows}
// ALLWARP: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 9 : i64, norm.rows_below = 4753 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// ALLWARP: norm.fused {{.*}}attributes {norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// ALLWARP: norm.fused {{.*}}attributes {norm.rows_below = 99 : i64, norm.stream_rows}
// ALLWARP: return
// The forward that returns its statistics: no nine blocks an SM, three
// rows a block from 4225 rows; LayerNorm's (72 registers, seven four-row
// blocks an SM) asks for the wave's eight from 28 rows per SM (3697 rows).
// CHECK-LABEL: func @ln_fwd_1024_stats
// CHECK-NOT: norm.min_blocks_per_sm
// CHECK: arith.cmpi uge, %{{.+}}, %c16896
// CHECK-NOT: norm.min_blocks_per_sm
// CHECK: %[[THREE:.+]] = arith.cmpi uge, %{{.+}}, %c4225
// CHECK: scf.if %[[THREE]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 16896 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows}
// CHECK: %[[EIGHT:.+]] = arith.cmpi uge, %{{.+}}, %c3697
// CHECK: scf.if %[[EIGHT]]
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 8 : i64, norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK-NOT: norm.min_blocks_per_sm
// CHECK: arith.cmpi uge, %{{.+}}, %c3168
// CHECK-NOT: norm.min_blocks_per_sm
// CHECK: return
// N = 768 (96 threads, three warps): LayerNorm's warps own a row each,
// three a block, from three quarters of a row per SM (99 rows) up to 24
// rows per SM (3168), above the row-a-block versions; past the capped wave
// (4753 rows) four rows a block, never three, except for blocks of one
// warp and one row from 44 to 64 rows per SM (5809-8448 rows).
// CHECK-LABEL: func @ln_fwd_768
// CHECK-NOT: %c16896
// CHECK: %[[FOUR768:.+]] = arith.cmpi uge, %{{.+}}, %c8449
// CHECK: scf.if %[[FOUR768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: %[[ONEWARP768:.+]] = arith.cmpi uge, %{{.+}}, %c5809
// CHECK: scf.if %[[ONEWARP768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 8449 : i64, norm.rows_per_block = 1 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: %[[PAST768:.+]] = arith.cmpi uge, %{{.+}}, %c4753
// CHECK: scf.if %[[PAST768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 5809 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK-NOT: norm.rows_per_block = 3 : i64, norm.stream_rows}
// CHECK: arith.cmpi uge, %{{.+}}, %c3168
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: %[[WARPS768:.+]] = arith.cmpi uge, %{{.+}}, %c99
// CHECK: scf.if %[[WARPS768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: return
// The statistics forwards stream at N = 768 too, four rows a block from 24
// rows per SM (three rows spill in 96 threads), except for RMSNorm's blocks
// of one warp and one row: past one wave of its 96-thread blocks of a row
// (21 an SM, 2773 rows) and from 40 to 80 rows per SM (5281-10560 rows).
// CHECK-LABEL: func @rms_fwd_768_stats
// CHECK: %[[FOUR768S:.+]] = arith.cmpi uge, %{{.+}}, %c10561
// CHECK: scf.if %[[FOUR768S]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: %[[ONEWARP768S:.+]] = arith.cmpi uge, %{{.+}}, %c5281
// CHECK: scf.if %[[ONEWARP768S]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 10561 : i64, norm.rows_per_block = 1 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: %[[HELD768:.+]] = arith.cmpi uge, %{{.+}}, %c3168
// CHECK: scf.if %[[HELD768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 5281 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK-NOT: norm.rows_per_block = 3
// CHECK: %[[SHORTWARP768:.+]] = arith.cmpi uge, %{{.+}}, %c2773
// CHECK: scf.if %[[SHORTWARP768]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_per_block = 1 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 2773 : i64, norm.stream_rows}
// CHECK: return
// Without warp rows, the rows of the one-warp bands go to the bands
// around them: four rows a block from 3168 rows, a row a block below.
// NOWARP-LABEL: func @rms_fwd_768_stats
// NOWARP-NOT: norm.warp_rows
// NOWARP-NOT: %c2773
// NOWARP: arith.cmpi uge, %{{.+}}, %c3168
// NOWARP-NOT: norm.warp_rows
// NOWARP: return
// RMSNorm's inference forward at N = 256 gets a second version of each band of
// four rows a block for M a multiple of four (norm.rows_multiple), the
// remainder tested inside the band's branch.
// CHECK-LABEL: func @rms_fwd_256
// CHECK: %[[TOP256:.+]] = arith.cmpi uge, %{{.+}}, %c4753
// CHECK: scf.if %[[TOP256]]
// CHECK: %[[REM256:.+]] = arith.remui %{{.+}}, %c4
// CHECK: %[[WHOLE256:.+]] = arith.cmpi eq, %[[REM256]], %c0
// CHECK: scf.if %[[WHOLE256]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: arith.cmpi uge, %{{.+}}, %c4225
// CHECK: arith.remui %{{.+}}, %c4
// CHECK: norm.fused {{.*}}norm.rows_multiple = 4 : i64
// CHECK: return
// A static M takes one version, here the one for a multiple of four.
// CHECK-LABEL: func @rms_fwd_256_static
// CHECK-NOT: arith.remui
// CHECK: norm.fused {{.*}}attributes {norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK-NOT: norm.fused
// CHECK: return
// LayerNorm's blocks of one warp (N = 256) hold four rows from 24 rows per
// SM, asking for eight blocks an SM within the wave, and below it from 12
// rows per SM (1584 rows) four rows of the warp's own.
// Its inference forward's bands have versions for M a multiple of four
// too (HeldRows::wholeBlocksVersion), and their versions for other M branch
// in the kernel on whether a block's rows all exist (norm.whole_blocks_branch,
// HeldRows::wholeBlocksBranch); RMSNorm's above do not.
// CHECK-LABEL: func @ln_fwd_256
// CHECK: arith.cmpi uge, %{{.+}}, %c4225
// CHECK: %[[WAVE256:.+]] = arith.cmpi uge, %{{.+}}, %c3168
// CHECK: scf.if %[[WAVE256]]
// CHECK: arith.remui %{{.+}}, %c4
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 8 : i64, norm.rows_below = 4225 : i64, norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 8 : i64, norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.whole_blocks_branch}
// CHECK: %[[WARPS256:.+]] = arith.cmpi uge, %{{.+}}, %c1584
// CHECK: scf.if %[[WARPS256]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows, norm.whole_blocks_branch}
// CHECK: return
// NOWARP-LABEL: func @ln_fwd_256
// NOWARP-NOT: %c1584
// NOWARP: return
// Its blocks of two warps (N = 512) take RMSNorm's warp-row bands below 24
// rows per SM (99-395 and 661-3167 rows), with whole-block versions and
// branches (HeldRows::wholeBlocksVersion / wholeBlocksBranch); the wave's
// blocks share their rows and keep their bounds.
// CHECK-LABEL: func @ln_fwd_512
// CHECK: arith.cmpi uge, %{{.+}}, %c3168
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 4225 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: arith.cmpi uge, %{{.+}}, %c661
// CHECK: arith.remui %{{.+}}, %c4
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows, norm.whole_blocks_branch}
// CHECK: arith.cmpi ult, %{{.+}}, %c396
// CHECK: arith.remui %{{.+}}, %c4
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 396 : i64, norm.rows_multiple = 4 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 396 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows, norm.whole_blocks_branch}
// CHECK: return
// LayerNorm's inference forward at N = 384 (48 vectors of 8 bf16 over two
// warps, ragged): from 99 rows up to 24 rows per SM each of three warps
// holds a row in vectors of 4 (norm.vector_width), which fill the warps;
// four rows shared by the two warps from there.
// CHECK-LABEL: func @ln_fwd_384
// CHECK: %[[HELD384:.+]] = arith.cmpi uge, %{{.+}}, %c3168
// CHECK: scf.if %[[HELD384]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: %[[HALF384:.+]] = arith.cmpi uge, %{{.+}}, %c99
// CHECK: scf.if %[[HALF384]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 3168 : i64, norm.rows_per_block = 3 : i64, norm.stream_rows, norm.vector_width = 4 : i64, norm.warp_rows}
// Below 99 rows every row-a-block version preloads the columns (the band
// cut the preloaded rows there): no version without them, which no M would
// reach.
// CHECK-NOT: norm.vector_width
// CHECK: norm.fused {{.*}}tensor<1x384xbf16>{{.*}}attributes {norm.preload_columns, norm.stream_rows}
// CHECK: norm.fused {{.*}}attributes {norm.preload_columns, norm.rows_below = 99 : i64, norm.stream_rows}
// CHECK-NOT: norm.fused
// CHECK: return
// Rows over clusters (N = 12288) are versioned too, below 288 rows: the
// row kernel's blocks shut the column blocks out of their SMs and spread
// over the SMs those leave (shutsOutColumnBlocks).
// CHECK-LABEL: func @rms_bwd_12288
// CHECK: %[[SHORT12K:.+]] = arith.cmpi ult, %{{.+}}, %c288
// CHECK: scf.if %[[SHORT12K]]
// CHECK: norm.whole_columns
// Rows of 65536 (clusters of 8), below 64 rows (two rounds of 32), and
// wider rows than measured are left alone.
// CHECK-LABEL: func @rms_bwd_wide
// CHECK: %[[SHORT64K:.+]] = arith.cmpi ult, %{{.+}}, %c64
// CHECK: scf.if %[[SHORT64K]]
// CHECK: norm.whole_columns
// CHECK-LABEL: func @rms_bwd_widest
// CHECK-NOT: scf.if
// CHECK-NOT: norm.whole_columns
func.func @rms_fwd(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>
  return %y : tensor<?x4096xbf16>
}
func.func @rms_fwd_8192(%x: tensor<?x8192xbf16>, %w: tensor<8192xbf16>) -> tensor<?x8192xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<8192xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x8192xbf16> -> tensor<?x8192xbf16>, tensor<?xf32>
  return %y : tensor<?x8192xbf16>
}
func.func @ln_fwd(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<?x4096xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x4096xbf16>
}
func.func @ln_fwd_1024(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x1024xbf16>
}
func.func @ln_fwd_512_rows(%x: tensor<512x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<512x1024xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<512x1024xbf16> -> tensor<512x1024xbf16>, tensor<512xf32>, tensor<512xf32>
  return %y : tensor<512x1024xbf16>
}
func.func @ln_fwd_2048_rows(%x: tensor<2048x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<2048x4096xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<2048x4096xbf16> -> tensor<2048x4096xbf16>, tensor<2048xf32>, tensor<2048xf32>
  return %y : tensor<2048x4096xbf16>
}
func.func @rms_fwd_4096_rows(%x: tensor<4096x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<4096x1000xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1000xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4096x1000xbf16> -> tensor<4096x1000xbf16>, tensor<4096xf32>
  return %y : tensor<4096x1000xbf16>
}
func.func @rms_fwd_3167_rows(%x: tensor<3167x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<3167x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<3167x1024xbf16> -> tensor<3167x1024xbf16>, tensor<3167xf32>
  return %y : tensor<3167x1024xbf16>
}
func.func @rms_fwd_99_rows(%x: tensor<99x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<99x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<99x1024xbf16> -> tensor<99x1024xbf16>, tensor<99xf32>
  return %y : tensor<99x1024xbf16>
}

func.func @rms_fwd_98_rows(%x: tensor<98x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<98x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<98x1024xbf16> -> tensor<98x1024xbf16>, tensor<98xf32>
  return %y : tensor<98x1024xbf16>
}
func.func @rms_fwd_395_rows(%x: tensor<395x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<395x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<395x1024xbf16> -> tensor<395x1024xbf16>, tensor<395xf32>
  return %y : tensor<395x1024xbf16>
}
func.func @rms_fwd_396_rows(%x: tensor<396x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<396x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<396x1024xbf16> -> tensor<396x1024xbf16>, tensor<396xf32>
  return %y : tensor<396x1024xbf16>
}
func.func @rms_fwd_660_rows(%x: tensor<660x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<660x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<660x1024xbf16> -> tensor<660x1024xbf16>, tensor<660xf32>
  return %y : tensor<660x1024xbf16>
}
func.func @rms_fwd_661_rows(%x: tensor<661x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<661x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<661x1024xbf16> -> tensor<661x1024xbf16>, tensor<661xf32>
  return %y : tensor<661x1024xbf16>
}
func.func @rms_fwd_4224_rows(%x: tensor<4224x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<4224x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4224x1024xbf16> -> tensor<4224x1024xbf16>, tensor<4224xf32>
  return %y : tensor<4224x1024xbf16>
}
func.func @rms_fwd_4752_rows(%x: tensor<4752x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<4752x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4752x1024xbf16> -> tensor<4752x1024xbf16>, tensor<4752xf32>
  return %y : tensor<4752x1024xbf16>
}
func.func @rms_fwd_6144_rows(%x: tensor<6144x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<6144x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<6144x1024xbf16> -> tensor<6144x1024xbf16>, tensor<6144xf32>
  return %y : tensor<6144x1024xbf16>
}
func.func @rms_fwd_16895_rows(%x: tensor<16895x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<16895x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<16895x1024xbf16> -> tensor<16895x1024xbf16>, tensor<16895xf32>
  return %y : tensor<16895x1024xbf16>
}
func.func @rms_fwd_16896_rows(%x: tensor<16896x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<16896x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<16896x1024xbf16> -> tensor<16896x1024xbf16>, tensor<16896xf32>
  return %y : tensor<16896x1024xbf16>
}
func.func @rms_fwd_1000(%x: tensor<?x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<?x1000xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1000xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1000xbf16> -> tensor<?x1000xbf16>, tensor<?xf32>
  return %y : tensor<?x1000xbf16>
}
func.func @rms_fwd_1024(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<?x1024xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>
  return %y : tensor<?x1024xbf16>
}
func.func @ln_fwd_1024_stats(%x: tensor<?x1024xbf16>, %w: tensor<1024xbf16>) -> (tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1024xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1024xbf16> -> tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y, %mean, %rstd : tensor<?x1024xbf16>, tensor<?xf32>, tensor<?xf32>
}
func.func @ln_fwd_768(%x: tensor<?x768xbf16>, %w: tensor<768xbf16>, %b: tensor<768xbf16>) -> tensor<?x768xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<768xbf16>) bias(%b : tensor<768xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x768xbf16> -> tensor<?x768xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x768xbf16>
}
func.func @rms_fwd_768_stats(%x: tensor<?x768xbf16>, %w: tensor<768xbf16>) -> (tensor<?x768xbf16>, tensor<?xf32>) {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<768xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x768xbf16> -> tensor<?x768xbf16>, tensor<?xf32>
  return %y, %rstd : tensor<?x768xbf16>, tensor<?xf32>
}
func.func @rms_fwd_256(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<256xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>
  return %y : tensor<?x256xbf16>
}
func.func @rms_fwd_256_static(%x: tensor<4096x256xbf16>, %w: tensor<256xbf16>) -> tensor<4096x256xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<256xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<4096x256xbf16> -> tensor<4096x256xbf16>, tensor<4096xf32>
  return %y : tensor<4096x256xbf16>
}
func.func @ln_fwd_256(%x: tensor<?x256xbf16>, %w: tensor<256xbf16>, %b: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<256xbf16>) bias(%b : tensor<256xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x256xbf16> -> tensor<?x256xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x256xbf16>
}
func.func @ln_fwd_512(%x: tensor<?x512xbf16>, %w: tensor<512xbf16>, %b: tensor<512xbf16>) -> tensor<?x512xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<512xbf16>) bias(%b : tensor<512xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x512xbf16> -> tensor<?x512xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x512xbf16>
}
func.func @ln_fwd_384(%x: tensor<?x384xbf16>, %w: tensor<384xbf16>, %b: tensor<384xbf16>) -> tensor<?x384xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<384xbf16>) bias(%b : tensor<384xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x384xbf16> -> tensor<?x384xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x384xbf16>
}
func.func @rms_bwd_12288(%dy: tensor<?x12288xbf16>, %x: tensor<?x12288xbf16>, %rstd: tensor<?xf32>,
                         %w: tensor<12288xbf16>) -> (tensor<?x12288xbf16>, tensor<12288xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<12288xbf16>)
      : tensor<?x12288xbf16>, tensor<?x12288xbf16>, tensor<?xf32> -> tensor<?x12288xbf16>, tensor<12288xbf16>
  return %dx, %dw : tensor<?x12288xbf16>, tensor<12288xbf16>
}
func.func @rms_bwd_wide(%dy: tensor<?x65536xbf16>, %x: tensor<?x65536xbf16>, %rstd: tensor<?xf32>,
                        %w: tensor<65536xbf16>) -> (tensor<?x65536xbf16>, tensor<65536xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<65536xbf16>)
      : tensor<?x65536xbf16>, tensor<?x65536xbf16>, tensor<?xf32> -> tensor<?x65536xbf16>, tensor<65536xbf16>
  return %dx, %dw : tensor<?x65536xbf16>, tensor<65536xbf16>
}
func.func @rms_bwd_widest(%dy: tensor<?x262144xbf16>, %x: tensor<?x262144xbf16>, %rstd: tensor<?xf32>,
                          %w: tensor<262144xbf16>) -> (tensor<?x262144xbf16>, tensor<262144xbf16>) {
  %dx, %dw = norm.rms_norm_grad %dy, %x, %rstd weight(%w : tensor<262144xbf16>)
      : tensor<?x262144xbf16>, tensor<?x262144xbf16>, tensor<?xf32> -> tensor<?x262144xbf16>, tensor<262144xbf16>
  return %dx, %dw : tensor<?x262144xbf16>, tensor<262144xbf16>
}

// -----

// A column output that needs the kernel's own row reduction cannot be
// computed apart: the kernel stays fused.
// CHECK-LABEL: func @columns_need_rows
// CHECK-NOT: scf.if
// CHECK-NOT: norm.whole_columns
func.func @columns_need_rows(%x: tensor<?x1024xbf16>, %y: tensor<?x1024xbf16>, %dw: tensor<1024xbf16>)
    -> (tensor<?x1024xbf16>, tensor<1024xbf16>) {
  %r:2 = norm.fused ins(%x : full tensor<?x1024xbf16>) outs(%y : full tensor<?x1024xbf16>, %dw : col tensor<1024xbf16>)
      -> tensor<?x1024xbf16>, tensor<1024xbf16> {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %s = norm.row_reduce <add> %af : f32
    %v = arith.mulf %af, %s : f32
    %t = arith.truncf %v : f32 to bf16
    norm.yield %t, %v : bf16, f32
  }
  return %r#0, %r#1 : tensor<?x1024xbf16>, tensor<1024xbf16>
}

// -----

// LayerNorm's forward with a bias at N = 1000 streams its rows at every M,
// four a block from 2112 rows; below, a row a block, whose two column
// inputs the output pass loads after the reductions, except below 133 rows
// (one block an SM: choosePreloadedColumnsRows), where the blocks load them
// with the row (norm.preload_columns). One row is a version of static shape
// of its own (chooseOneRowForwardRows), which the lowering spreads over more
// threads. A static M takes its version alone.
// CHECK-LABEL: func @ln_fwd_bias_1000
// CHECK: %[[HELD:.+]] = arith.cmpi uge, %{{.+}}, %c2112
// CHECK: scf.if %[[HELD]]
// CHECK: norm.rows_per_block = 4 : i64, norm.stream_rows
// CHECK: } else {
// CHECK: %[[BELOW2:.+]] = arith.cmpi ult, %[[M:.+]], %c2
// CHECK: %[[FROM1:.+]] = arith.cmpi uge, %[[M]], %c1
// CHECK: %[[ONE:.+]] = arith.andi %[[FROM1]], %[[BELOW2]]
// CHECK: scf.if %[[ONE]]
// CHECK: %[[ROW:.+]] = tensor.cast %{{.+}} : tensor<?x1000xbf16> to tensor<1x1000xbf16>
// CHECK: norm.fused ins (%[[ROW]] : full tensor<1x1000xbf16>
// CHECK: attributes {norm.preload_columns, norm.stream_rows}
// CHECK: tensor.cast %{{.+}} : tensor<1x1000xbf16> to tensor<?x1000xbf16>
// CHECK: } else {
// CHECK: %[[FEW:.+]] = arith.cmpi ult, %{{.+}}, %c133
// CHECK: scf.if %[[FEW]]
// CHECK: attributes {norm.preload_columns, norm.rows_below = 133 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: attributes {norm.rows_below = 2112 : i64, norm.stream_rows}
// CHECK-LABEL: func @ln_fwd_bias_64_rows
// CHECK-NOT: scf.if
// CHECK: attributes {norm.preload_columns, norm.stream_rows}
// CHECK-LABEL: func @ln_fwd_bias_133_rows
// CHECK-NOT: norm.preload_columns
// CHECK: attributes {norm.stream_rows}
// CHECK-NOT: norm.preload_columns
// CHECK: return
// OFF-LABEL: func @ln_fwd_bias_1000
// OFF-NOT: norm.preload_columns
// OFF: return
func.func @ln_fwd_bias_1000(%x: tensor<?x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<?x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x1000xbf16> -> tensor<?x1000xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y : tensor<?x1000xbf16>
}
func.func @ln_fwd_bias_64_rows(%x: tensor<64x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<64x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<64x1000xbf16> -> tensor<64x1000xbf16>, tensor<64xf32>, tensor<64xf32>
  return %y : tensor<64x1000xbf16>
}
func.func @ln_fwd_bias_133_rows(%x: tensor<133x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<133x1000xbf16> {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<1000xbf16>) bias(%b : tensor<1000xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<133x1000xbf16> -> tensor<133x1000xbf16>, tensor<133xf32>, tensor<133xf32>
  return %y : tensor<133x1000xbf16>
}

// -----

// LayerNorm's statistics forward at N = 4096 (mean and rstd returned): two
// rows a block at the blocks 40 registers allow (three an SM) while they take
// one wave (529-792 rows), four at 64 registers (two an SM) up to one wave of
// those (793-1056), a row a block past it up to the end of the streamed rows.
// CHECK-LABEL: func @ln_fwd_stats
// CHECK: %[[STREAMED:.+]] = arith.cmpi ult, %{{.+}}, %c1280
// CHECK: scf.if %[[STREAMED]]
// CHECK: %[[FOURFROM:.+]] = arith.cmpi uge, %{{.+}}, %c793
// CHECK: %[[FOURBAND:.+]] = arith.andi %[[FOURFROM]], %{{.+}}
// CHECK: scf.if %[[FOURBAND]]
// CHECK: norm.fused {{.*}}outs ({{.*}}: row tensor<?xf32>, {{.*}}: row tensor<?xf32>, {{.*}}) {{.*}}attributes {norm.min_blocks_per_sm = 2 : i64, norm.rows_below = 1057 : i64, norm.rows_per_block = 4 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: %[[TWOFROM:.+]] = arith.cmpi uge, %{{.+}}, %c529
// CHECK: %[[TWOBAND:.+]] = arith.andi %[[TWOFROM]], %{{.+}}
// CHECK: scf.if %[[TWOBAND]]
// CHECK: norm.fused {{.*}}attributes {norm.min_blocks_per_sm = 3 : i64, norm.rows_below = 793 : i64, norm.rows_per_block = 2 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 1280 : i64, norm.stream_rows}
// RMSNorm at N = 1536 (ten 192-thread blocks of a row an SM): two rows a
// block from a quarter of a row per SM past one wave of those (1320 + 33 + 1
// rows), where the one-row blocks' second wave is no longer short.
// CHECK-LABEL: func @rms_fwd_1536
// CHECK: %[[WIDE:.+]] = arith.cmpi uge, %{{.+}}, %c1354
// CHECK: scf.if %[[WIDE]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 2 : i64, norm.stream_rows}
// CHECK: } else {
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 1354 : i64, norm.stream_rows}
func.func @ln_fwd_stats(%x: tensor<?x4096xbf16>, %w: tensor<4096xbf16>) -> (tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>) {
  %y, %mean, %rstd = norm.layer_norm %x weight(%w : tensor<4096xbf16>) {epsilon = 1.0e-5 : f64}
      : tensor<?x4096xbf16> -> tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
  return %y, %mean, %rstd : tensor<?x4096xbf16>, tensor<?xf32>, tensor<?xf32>
}
func.func @rms_fwd_1536(%x: tensor<?x1536xbf16>, %w: tensor<1536xbf16>) -> tensor<?x1536xbf16> {
  %y, %rstd = norm.rms_norm %x weight(%w : tensor<1536xbf16>) {epsilon = 1.0e-6 : f64}
      : tensor<?x1536xbf16> -> tensor<?x1536xbf16>, tensor<?xf32>
  return %y : tensor<?x1536xbf16>
}

// -----

// A forward of two full inputs (a gated norm: x and the gate z) in blocks
// of one warp (N = 256 bf16) holds four rows a block, the warp's own, from
// 64 rows per SM (8448 rows on 132 SMs), and a row a block below; with
// warp-rows=0 a row a block at every M.
// CHECK-LABEL: func @gated_fwd_256
// CHECK: %[[HELD:.+]] = arith.cmpi uge, %{{.+}}, %c8448
// CHECK: scf.if %[[HELD]]
// CHECK: norm.fused {{.*}}attributes {norm.rows_per_block = 4 : i64, norm.stream_rows, norm.warp_rows}
// CHECK: norm.fused {{.*}}attributes {norm.stream_rows}
// CHECK: norm.fused {{.*}}attributes {norm.rows_below = 8448 : i64, norm.stream_rows}
// NOWARP-LABEL: func @gated_fwd_256
// NOWARP-NOT: norm.rows_per_block
// NOWARP: return
func.func @gated_fwd_256(%x: tensor<?x256xbf16>, %z: tensor<?x256xbf16>, %w: tensor<256xbf16>) -> tensor<?x256xbf16> {
  %ss = norm.reduce <row> <add> ins(%x : full tensor<?x256xbf16>) -> tensor<?xf32> {
  ^bb0(%a: bf16):
    %af = arith.extf %a : bf16 to f32
    %sq = arith.mulf %af, %af : f32
    norm.yield %sq : f32
  }
  %rstd = norm.map <row> ins(%ss : row tensor<?xf32>) -> tensor<?xf32> {
  ^bb0(%s: f32):
    %inv = arith.constant 3.90625e-03 : f32
    %m = arith.mulf %s, %inv : f32
    %r = math.rsqrt %m : f32
    norm.yield %r : f32
  }
  %y = norm.map <full> ins(%x : full tensor<?x256xbf16>, %z : full tensor<?x256xbf16>, %rstd : row tensor<?xf32>, %w : col tensor<256xbf16>) -> tensor<?x256xbf16> {
  ^bb0(%a: bf16, %g: bf16, %r: f32, %c: bf16):
    %af = arith.extf %a : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %cf = arith.extf %c : bf16 to f32
    %n = arith.mulf %af, %r : f32
    %nw = arith.mulf %n, %cf : f32
    %yg = arith.mulf %nw, %gf : f32
    %t = arith.truncf %yg : f32 to bf16
    norm.yield %t : bf16
  }
  return %y : tensor<?x256xbf16>
}
