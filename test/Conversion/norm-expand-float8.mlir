// RUN: norm-opt %s --norm-expand-float8 | FileCheck %s

// f32 -> f8E4M3FN becomes integer arithmetic: the f32 mantissa rounded to
// 3 bits (ties to even) and rebiased, saturated at 0x7e (448); multiples of
// 2^-9 below 2^-6; NaN to 0x7f; the sign or-ed in; the byte bitcast.
// CHECK-LABEL: func @round_to_fp8
// CHECK-NOT: arith.truncf
// CHECK: %[[BITS:.+]] = arith.bitcast %arg0 : f32 to i32
// CHECK: arith.andi %{{.+}}, %c2147483647_i32
// CHECK: arith.minsi %{{.+}}, %c126_i32
// CHECK: math.roundeven
// CHECK: arith.cmpf olt, %{{.+}}, %cst
// CHECK: arith.cmpf uno
// CHECK: %[[BYTE:.+]] = arith.trunci %{{.+}} : i32 to i8
// CHECK: %[[R:.+]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK: return %[[R]]
func.func @round_to_fp8(%x: f32) -> f8E4M3FN {
  %y = arith.truncf %x : f32 to f8E4M3FN
  return %y : f8E4M3FN
}

// Other conversions are left alone.
// CHECK-LABEL: func @other_types
// CHECK: arith.truncf %arg0 : f32 to bf16
// CHECK: arith.truncf %arg0 : f32 to f8E5M2
func.func @other_types(%x: f32) -> (bf16, f8E5M2) {
  %a = arith.truncf %x : f32 to bf16
  %b = arith.truncf %x : f32 to f8E5M2
  return %a, %b : bf16, f8E5M2
}
