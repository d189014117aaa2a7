// Float constants spelled as mlir-opt (APFloat) does: 6-digit exponent form when it round-trips in the type, else the shortest-for-type decimal, else hex bits (NaN, inf, values whose decimal has no point); f16/bf16/f32/f64, denormals, -0.
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: module {
// CHECK:   func.func @floats() -> (f32, f64, f16, bf16) {
// CHECK:     %cst = arith.constant 1.000000e-01 : f32
// CHECK:     %cst_0 = arith.constant 0.123456789 : f64
// CHECK:     %cst_1 = arith.constant 0x4CEB79A3 : f32
// CHECK:     %cst_2 = arith.constant 1.2345678912344999E-10 : f64
// CHECK:     %cst_3 = arith.constant 1.401300e-45 : f32
// CHECK:     %cst_4 = arith.constant 3.40282347E+38 : f32
// CHECK:     %cst_5 = arith.constant 6.550400e+04 : f16
// CHECK:     %cst_6 = arith.constant 9.997550e-02 : f16
// CHECK:     %cst_7 = arith.constant 3.007810e-01 : bf16
// CHECK:     %cst_8 = arith.constant -0.000000e+00 : f32
// CHECK:     %cst_9 = arith.constant 0x7FC00000 : f32
// CHECK:     %cst_10 = arith.constant 0xFF800000 : f32
// CHECK:     %cst_11 = arith.constant 1.000000e+100 : f64
// CHECK:     %cst_12 = arith.constant 2.500000e-310 : f64
// CHECK:     %cst_13 = arith.constant 1.000000e+02 : f32
// CHECK:     %cst_14 = arith.constant 0x4996B438 : f32
// CHECK:     %cst_15 = arith.constant 0.333333343 : f32
// CHECK:     %cst_16 = arith.constant 5.960460e-08 : f16
// CHECK:     %cst_17 = arith.constant 9.972770e+19 : bf16
// CHECK:     %cst_18 = arith.constant 0.99999988 : f32
// CHECK:     %cst_19 = arith.constant 12345.678 : f64
// CHECK:     %cst_20 = arith.constant 1.000000e-03 : f64
// CHECK:     %cst_21 = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01, 9.99999974E-6, 3.000000e+07]> : tensor<5xf32>
// CHECK:     return %cst, %cst_0, %cst_5, %cst_7 : f32, f64, f16, bf16
// CHECK:   }
// CHECK: }

func.func @floats() -> (f32, f64, f16, bf16) {
  %a = arith.constant 0.1 : f32
  %b = arith.constant 0.123456789 : f64
  %c = arith.constant 123456789.0 : f32
  %d = arith.constant 1.2345678912345e-10 : f64
  %e = arith.constant 1.0e-45 : f32
  %f = arith.constant 3.4028234663852886e38 : f32
  %g = arith.constant 65504.0 : f16
  %h = arith.constant 0.1 : f16
  %i = arith.constant 0.3 : bf16
  %j = arith.constant -0.0 : f32
  %k = arith.constant 0x7FC00000 : f32
  %l = arith.constant 0xFF800000 : f32
  %m = arith.constant 1.0e100 : f64
  %n = arith.constant 2.5e-310 : f64
  %o = arith.constant 100.0 : f32
  %p = arith.constant 1234567.0 : f32
  %q = arith.constant 0.333333343 : f32
  %r = arith.constant 6.0e-8 : f16
  %s = arith.constant 1.0e20 : bf16
  %t = arith.constant 9.999999e-1 : f32
  %u = arith.constant 12345.678 : f64
  %v = arith.constant 0.001 : f64
  %w = arith.constant dense<[0.1, 0.2, 0.3, 1.0e-5, 3.0e7]> : tensor<5xf32>
  return %a, %b, %g, %i : f32, f64, f16, bf16
}
