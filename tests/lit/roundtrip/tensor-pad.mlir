// Round trip of tensor.pad: static and dynamic low/high padding, the
// yielded padding value from outside or computed in the region, and the
// nofold flag.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @pad_static(%arg0: tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32> {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %padded = tensor.pad %arg0 low[0, 0, 1, 1] high[0, 0, 1, 1] {
// CHECK-NEXT: ^bb0(%arg1: index, %arg2: index, %arg3: index, %arg4: index):
// CHECK-NEXT: tensor.yield %cst : f32
// CHECK-NEXT: } : tensor<1x3x32x32xf32> to tensor<1x3x34x34xf32>
// CHECK-NEXT: return %padded : tensor<1x3x34x34xf32>
// CHECK-NEXT: }
func.func @pad_static(%t: tensor<1x3x32x32xf32>) -> tensor<1x3x34x34xf32> {
  %zero = arith.constant 0.0 : f32
  %0 = tensor.pad %t low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%n: index, %c: index, %h: index, %w: index):
    tensor.yield %zero : f32
  } : tensor<1x3x32x32xf32> to tensor<1x3x34x34xf32>
  return %0 : tensor<1x3x34x34xf32>
}

// CHECK-LABEL: func.func @pad_dynamic(%arg0: tensor<?x?xf32>, %arg1: index, %arg2: index, %arg3: f32) -> tensor<?x?xf32> {
// CHECK-NEXT: %padded = tensor.pad %arg0 low[%arg1, 0] high[2, %arg2] {
// CHECK-NEXT: ^bb0(%arg4: index, %arg5: index):
// CHECK-NEXT: tensor.yield %arg3 : f32
// CHECK-NEXT: } : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %padded : tensor<?x?xf32>
// CHECK-NEXT: }
func.func @pad_dynamic(%t: tensor<?x?xf32>, %lo: index, %hi: index, %v: f32) -> tensor<?x?xf32> {
  %0 = tensor.pad %t low[%lo, 0] high[2, %hi] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<?x?xf32> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @pad_computed_value(%arg0: tensor<4xi32>) -> tensor<8xi32> {
// CHECK-NEXT: %padded = tensor.pad %arg0 nofold low[1] high[3] {
// CHECK-NEXT: ^bb0(%arg1: index):
// CHECK-NEXT: %0 = arith.index_cast %arg1 : index to i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: tensor.yield %1 : i32
// CHECK-NEXT: } : tensor<4xi32> to tensor<8xi32>
// CHECK-NEXT: return %padded : tensor<8xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @pad_computed_value(%t: tensor<4xi32>) -> tensor<8xi32> {
  %0 = tensor.pad %t nofold low[1] high[3] {
  ^bb0(%i: index):
    %c = arith.index_cast %i : index to i32
    %m = arith.muli %c, %c : i32
    tensor.yield %m : i32
  } : tensor<4xi32> to tensor<8xi32>
  return %0 : tensor<8xi32>
}
