// REQUIRES: mlir-opt
// Floating-point constants whose printed form is delicate: values that
// need more than the default six digits, denormals, extremes, and the
// narrow types. kiln-opt's output, read back by mlir-opt, must denote
// exactly the same values (mlir-opt reprints them in its canonical form),
// also after a second kiln-opt round.
// RUN: kiln-opt %s | mlir-opt | FileCheck --match-full-lines %s
// RUN: kiln-opt %s | kiln-opt | mlir-opt | FileCheck --match-full-lines %s

// CHECK: module {
// CHECK-LABEL: func.func @f32_values() -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-NEXT: %cst = arith.constant 0.333333343 : f32
// CHECK-NEXT: %cst_0 = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %cst_1 = arith.constant 3.40282347E+38 : f32
// CHECK-NEXT: %cst_2 = arith.constant 1.17549435E-38 : f32
// CHECK-NEXT: %cst_3 = arith.constant 1.401300e-45 : f32
// CHECK-NEXT: %cst_4 = arith.constant 0x4B800000 : f32
// CHECK-NEXT: %cst_5 = arith.constant 3.14159274 : f32
// CHECK-NEXT: %cst_6 = arith.constant -2.500000e-10 : f32
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4, %cst_5, %cst_6 : f32, f32, f32, f32, f32, f32, f32, f32
// CHECK-NEXT: }
func.func @f32_values() -> (f32, f32, f32, f32, f32, f32, f32, f32) {
  %third = arith.constant 0.333333343 : f32
  %tenth = arith.constant 0.1 : f32
  %max = arith.constant 3.40282347E+38 : f32
  %min_normal = arith.constant 1.17549435E-38 : f32
  %denormal = arith.constant 1.401300e-45 : f32
  %big_int = arith.constant 16777217.0 : f32
  %pi = arith.constant 3.14159274 : f32
  %tiny_neg = arith.constant -2.5e-10 : f32
  return %third, %tenth, %max, %min_normal, %denormal, %big_int, %pi, %tiny_neg : f32, f32, f32, f32, f32, f32, f32, f32
}

// CHECK-LABEL: func.func @f64_values() -> (f64, f64, f64, f64, f64) {
// CHECK-NEXT: %cst = arith.constant 1.000000e-01 : f64
// CHECK-NEXT: %cst_0 = arith.constant 0.33333333333333331 : f64
// CHECK-NEXT: %cst_1 = arith.constant 1.000000e+300 : f64
// CHECK-NEXT: %cst_2 = arith.constant 2.7182818284590451 : f64
// CHECK-NEXT: %cst_3 = arith.constant 0x7FF8000000000000 : f64
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3 : f64, f64, f64, f64, f64
// CHECK-NEXT: }
func.func @f64_values() -> (f64, f64, f64, f64, f64) {
  %tenth = arith.constant 0.1 : f64
  %third = arith.constant 0.33333333333333331 : f64
  %huge = arith.constant 1.0e+300 : f64
  %e = arith.constant 2.7182818284590451 : f64
  %nan = arith.constant 0x7FF8000000000000 : f64
  return %tenth, %third, %huge, %e, %nan : f64, f64, f64, f64, f64
}

// CHECK-LABEL: func.func @narrow_values() -> (f16, f16, bf16, bf16, tensor<4xf16>, tensor<3xbf16>) {
// CHECK-NEXT: %cst = arith.constant 6.550400e+04 : f16
// CHECK-NEXT: %cst_0 = arith.constant 6.103520e-05 : f16
// CHECK-NEXT: %cst_1 = arith.constant 3.339840e-01 : bf16
// CHECK-NEXT: %cst_2 = arith.constant 3.389530e+38 : bf16
// CHECK-NEXT: %cst_3 = arith.constant dense<[9.997550e-02, 1.999510e-01, 3.000490e-01, -1.000400e-03]> : tensor<4xf16>
// CHECK-NEXT: %cst_4 = arith.constant dense<[1.000980e-01, 9.999220e+09, -7.500000e+00]> : tensor<3xbf16>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4 : f16, f16, bf16, bf16, tensor<4xf16>, tensor<3xbf16>
// CHECK-NEXT: }
func.func @narrow_values() -> (f16, f16, bf16, bf16, tensor<4xf16>, tensor<3xbf16>) {
  %h_max = arith.constant 65504.0 : f16
  %h_small = arith.constant 6.1035156e-05 : f16
  %b_third = arith.constant 0.333984375 : bf16
  %b_big = arith.constant 3.3895314e+38 : bf16
  %ht = arith.constant dense<[0.1, 0.2, 0.30004882, -1.0e-3]> : tensor<4xf16>
  %bt = arith.constant dense<[0.1, 1.0e+10, -7.5]> : tensor<3xbf16>
  return %h_max, %h_small, %b_third, %b_big, %ht, %bt : f16, f16, bf16, bf16, tensor<4xf16>, tensor<3xbf16>
}

// CHECK-LABEL: func.func @float_tensors() -> (tensor<3xf32>, tensor<2xf64>) {
// CHECK-NEXT: %cst = arith.constant dense<[0.333333343, 9.999940e-41, 123456.789]> : tensor<3xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<[1.000000e-01, 1.000000e-310]> : tensor<2xf64>
// CHECK-NEXT: return %cst, %cst_0 : tensor<3xf32>, tensor<2xf64>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @float_tensors() -> (tensor<3xf32>, tensor<2xf64>) {
  %a = arith.constant dense<[0.333333343, 1.0e-40, 123456.789]> : tensor<3xf32>
  %b = arith.constant dense<[0.1, 1.0e-310]> : tensor<2xf64>
  return %a, %b : tensor<3xf32>, tensor<2xf64>
}
