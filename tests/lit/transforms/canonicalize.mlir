// canonicalize: fold-constants, simplify, cse and dce to a fixed point.
// Each function needs several of them in turn.
// RUN: kiln-opt --pass-pipeline=canonicalize %s | FileCheck %s

// Shape arithmetic on constants collapses to one constant, the duplicate
// tensor.dim goes, and the dead tensor.empty goes.
// CHECK-LABEL: func.func @shape_arith(
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x?xf32>
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[D:.*]] = tensor.dim %[[T]], %[[C1]] : tensor<4x?xf32>
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[D]], %[[C8]] : index
// CHECK-NEXT: return %[[M]], %[[M]] : index, index
func.func @shape_arith(%t: tensor<4x?xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %t, %c0 : tensor<4x?xf32>
  %two_d0 = arith.muli %d0, %c2 : index
  %d1 = tensor.dim %t, %c1 : tensor<4x?xf32>
  %d1b = tensor.dim %t, %c1 : tensor<4x?xf32>
  %a = arith.muli %d1, %two_d0 : index
  %b = arith.muli %two_d0, %d1b : index
  %unused = tensor.empty(%a) : tensor<?xf32>
  return %a, %b : index, index
}

// A chain of constant tensor math becomes one constant; the select on a
// folded condition disappears with its dead branch value.
// CHECK-LABEL: func.func @constant_chain(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2xf32>
// CHECK: %[[C:.*]] = arith.constant dense<[3.000000e+00, 8.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[C]] : tensor<2xf32>
// CHECK-NEXT: return %[[S]] : tensor<2xf32>
func.func @constant_chain(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.constant dense<1.0> : tensor<2xf32>
  %s = arith.addf %a, %b : tensor<2xf32>
  %m = arith.mulf %s, %s : tensor<2xf32>
  %n = arith.subf %m, %b : tensor<2xf32>
  %one = arith.constant 1 : i32
  %two = arith.constant 2 : i32
  %lt = arith.cmpi slt, %one, %two : i32
  %dead = arith.mulf %x, %x : tensor<2xf32>
  %pick = arith.select %lt, %n, %dead : tensor<2xf32>
  %r = arith.addf %pick, %x : tensor<2xf32>
  return %r : tensor<2xf32>
}

// A branch on a folded comparison is inlined, and what it computes folds.
// CHECK-LABEL: func.func @folded_branch(
// CHECK-NEXT: %[[C:.*]] = arith.constant 42 : i32
// CHECK-NEXT: return %[[C]] : i32
func.func @folded_branch() -> i32 {
  %a = arith.constant 6 : i32
  %b = arith.constant 7 : i32
  %c = arith.cmpi ne, %a, %b : i32
  %r = scf.if %c -> (i32) {
    %p = arith.muli %a, %b : i32
    scf.yield %p : i32
  } else {
    scf.yield %a : i32
  }
  return %r : i32
}

// Reshaping and transposing constant weights happens at compile time.
// CHECK-LABEL: func.func @weights(
// CHECK-SAME: %[[X:[^:]*]]: tensor<1x3xf32>
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00], [0.000000e+00, 5.000000e+00]]> : tensor<3x2xf32>
// CHECK: linalg.matmul ins(%[[X]], %[[W]] : tensor<1x3xf32>, tensor<3x2xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.expand_shape
func.func @weights(%x: tensor<1x3xf32>) -> tensor<1x2xf32> {
  %flat = arith.constant dense<[1.0, 2.0, 0.0, 3.0, 4.0, 5.0]> : tensor<6xf32>
  %w = tensor.expand_shape %flat [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %wt = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %acc0 = tensor.empty() : tensor<1x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%acc0 : tensor<1x2xf32>) -> tensor<1x2xf32>
  %y = linalg.matmul ins(%x, %wt : tensor<1x3xf32>, tensor<3x2xf32>) outs(%acc : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}
