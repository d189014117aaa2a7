// Ops the round-trip corpus does not exercise: remaining arith integer/float ops and casts, builtin.unrealized_conversion_cast (prefix kept inside func.func), elementwise ops on tensors.
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: module {
// CHECK:   func.func @rest(%arg0: f32, %arg1: f32, %arg2: i32, %arg3: i32, %arg4: index, %arg5: tensor<4xf32>) -> (f32, i32) {
// CHECK:     %0 = arith.remf %arg0, %arg1 : f32
// CHECK:     %1 = arith.maxnumf %0, %arg1 : f32
// CHECK:     %2 = arith.minnumf %1, %arg0 fastmath<nnan> : f32
// CHECK:     %3 = arith.remui %arg2, %arg3 : i32
// CHECK:     %4 = arith.ceildivsi %3, %arg3 : i32
// CHECK:     %5 = arith.ceildivui %4, %arg3 : i32
// CHECK:     %6 = arith.floordivsi %5, %arg3 : i32
// CHECK:     %7 = arith.shrui %6, %arg3 : i32
// CHECK:     %8 = arith.maxui %7, %arg3 : i32
// CHECK:     %9 = arith.minui %8, %arg2 : i32
// CHECK:     %10 = arith.fptoui %2 : f32 to i32
// CHECK:     %11 = arith.index_castui %arg4 : index to i32
// CHECK:     %12 = arith.addi %10, %11 : i32
// CHECK:     %13 = arith.addi %12, %9 : i32
// CHECK:     %14 = builtin.unrealized_conversion_cast %arg5 : tensor<4xf32> to memref<4xf32>
// CHECK:     %15:2 = builtin.unrealized_conversion_cast %arg0, %arg2 : f32, i32 to i64, i64
// CHECK:     %16 = arith.remf %arg5, %arg5 : tensor<4xf32>
// CHECK:     %17 = math.erf %16 : tensor<4xf32>
// CHECK:     return %2, %13 : f32, i32
// CHECK:   }
// CHECK: }

func.func @rest(%a: f32, %b: f32, %i: i32, %j: i32, %x: index, %t: tensor<4xf32>) -> (f32, i32) {
  %0 = arith.remf %a, %b : f32
  %1 = arith.maxnumf %0, %b : f32
  %2 = arith.minnumf %1, %a fastmath<nnan> : f32
  %3 = arith.remui %i, %j : i32
  %4 = arith.ceildivsi %3, %j : i32
  %5 = arith.ceildivui %4, %j : i32
  %6 = arith.floordivsi %5, %j : i32
  %7 = arith.shrui %6, %j : i32
  %8 = arith.maxui %7, %j : i32
  %9 = arith.minui %8, %i : i32
  %10 = arith.fptoui %2 : f32 to i32
  %11 = arith.index_castui %x : index to i32
  %12 = arith.addi %10, %11 : i32
  %13 = arith.addi %12, %9 : i32
  %14 = builtin.unrealized_conversion_cast %t : tensor<4xf32> to memref<4xf32>
  %15:2 = builtin.unrealized_conversion_cast %a, %i : f32, i32 to i64, i64
  %16 = arith.remf %t, %t : tensor<4xf32>
  %17 = math.erf %16 : tensor<4xf32>
  return %2, %13 : f32, i32
}
