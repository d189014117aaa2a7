// SSA naming as mlir-opt does it: constant names (%c0, %c5_i8, %c-5_i64, %cst, %true), op-suggested names (%extracted), '_N' suffixes from one conflict counter, nested regions continuing the parent's counters while siblings restart, fresh names per function.
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: module {
// CHECK:   func.func @names(%arg0: index, %arg1: tensor<4xf32>, %arg2: i1) -> f32 {
// CHECK:     %c0 = arith.constant 0 : index
// CHECK:     %c0_0 = arith.constant 0 : index
// CHECK:     %cst = arith.constant 0.000000e+00 : f32
// CHECK:     %0 = scf.for %arg3 = %c0 to %arg0 step %c0 iter_args(%arg4 = %cst) -> (f32) {
// CHECK:       %c0_3 = arith.constant 0 : index
// CHECK:       %cst_4 = arith.constant 1.000000e+00 : f32
// CHECK:       %extracted_5 = tensor.extract %arg1[%c0_3] : tensor<4xf32>
// CHECK:       %1 = arith.addf %arg4, %extracted_5 : f32
// CHECK:       %2 = scf.if %arg2 -> (f32) {
// CHECK:         %c0_6 = arith.constant 0 : index
// CHECK:         %cst_7 = arith.constant 2.000000e+00 : f32
// CHECK:         %extracted_8 = tensor.extract %arg1[%c0_6] : tensor<4xf32>
// CHECK:         scf.yield %extracted_8 : f32
// CHECK:       } else {
// CHECK:         %cst_6 = arith.constant 2.000000e+00 : f32
// CHECK:         scf.yield %cst_6 : f32
// CHECK:       }
// CHECK:       %3 = arith.mulf %1, %2 : f32
// CHECK:       scf.yield %3 : f32
// CHECK:     }
// CHECK:     %true = arith.constant true
// CHECK:     %false = arith.constant false
// CHECK:     %c5_i8 = arith.constant 5 : i8
// CHECK:     %c5_i8_1 = arith.constant 5 : i8
// CHECK:     %c-5_i64 = arith.constant -5 : i64
// CHECK:     %extracted = tensor.extract %arg1[%c0] : tensor<4xf32>
// CHECK:     %extracted_2 = tensor.extract %arg1[%c0_0] : tensor<4xf32>
// CHECK:     return %0 : f32
// CHECK:   }
// CHECK:   func.func @again() -> index {
// CHECK:     %c0 = arith.constant 0 : index
// CHECK:     return %c0 : index
// CHECK:   }
// CHECK: }

func.func @names(%n: index, %t: tensor<4xf32>, %b: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c0_0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c0 iter_args(%acc = %z) -> (f32) {
    %c0_in = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %x = tensor.extract %t[%c0_in] : tensor<4xf32>
    %s = arith.addf %acc, %x : f32
    %q = scf.if %b -> (f32) {
      %c0_deep = arith.constant 0 : index
      %two = arith.constant 2.0 : f32
      %e = tensor.extract %t[%c0_deep] : tensor<4xf32>
      scf.yield %e : f32
    } else {
      %two = arith.constant 2.0 : f32
      scf.yield %two : f32
    }
    %m = arith.mulf %s, %q : f32
    scf.yield %m : f32
  }
  %t1 = arith.constant true
  %f1 = arith.constant false
  %c5 = arith.constant 5 : i8
  %c5b = arith.constant 5 : i8
  %cn = arith.constant -5 : i64
  %e2 = tensor.extract %t[%c0] : tensor<4xf32>
  %e3 = tensor.extract %t[%c0_0] : tensor<4xf32>
  return %r : f32
}
func.func @again() -> index {
  %c0 = arith.constant 0 : index
  return %c0 : index
}
