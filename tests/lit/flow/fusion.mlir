// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// Elementwise fusion: chains collapse into one generic (a transpose is
// read through a permuted map: propagate-transposes or fold-views folds
// it into the add, whose operands keep their order; x*x reads x once); a square feeding a
// reduce is folded into the generalized reduction; a producer with two
// consumers is recomputed in each, unless it holds a transcendental op
// and reads a matmul (or convolution, reduction): then it runs once, as
// the matmul's epilogue; cmpi+select share their inputs.
// CHECK-LABEL: func.func @chain_dispatch_0(
// CHECK: linalg.generic {indexing_maps = [#[[T:map[0-9]*]], #[[ID:map[0-9]*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%0, %1 : tensor<2x3xf32>, tensor<3x2xf32>)
// CHECK-NEXT: ^bb0(%in: f32, %in_0: f32, %out: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %in, %in_0 : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[S]] : f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[E]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[M]] : f32
// CHECK-LABEL: func.func @chain(
// CHECK-NEXT: "flow.dispatch"(%arg0, %arg1)
// CHECK-NEXT: return
// CHECK-LABEL: func.func @row_sum_dispatch_0(
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}], iterator_types = ["parallel", "reduction"]} ins(%0 : tensor<4x8xf32>) outs(%[[Z]] : tensor<4xf32>)
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %in, %in : f32
// CHECK-NEXT: arith.addf %[[SQ]], %out : f32
// CHECK: linalg.generic {{.*}} ins(%[[R]] : tensor<4xf32>)
// CHECK: math.sqrt
// CHECK-LABEL: func.func @row_sum(
// CHECK-NEXT: "flow.dispatch"(%arg0) {entry_point = @row_sum_dispatch_0::@row_sum_dispatch_0, workload = array<i64: 4>}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @shared_dispatch_0(
// CHECK: math.exp
// CHECK-NEXT: arith.addf
// CHECK-LABEL: func.func @shared_dispatch_1(
// CHECK: math.exp
// CHECK-NEXT: math.tanh
// CHECK-LABEL: func.func @shared_exp_dispatch_0(
// CHECK: %[[MM:.*]] = linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%[[MM]] : tensor<4x4xf32>)
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %[[X:.*]] = math.exp %in : f32
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK-LABEL: func.func @shared_exp_dispatch_1(
// CHECK: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: arith.addf %in, %in : f32
// CHECK-LABEL: func.func @shared_exp_dispatch_2(
// CHECK: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: math.tanh %in : f32
// CHECK-LABEL: func.func @shared_exp(
// CHECK-COUNT-3: "flow.dispatch"
// CHECK-LABEL: func.func @int_cmp_dispatch_0(
// CHECK: ins(%0, %1 : tensor<4xi32>, tensor<4xi32>)
// CHECK-NEXT: ^bb0(%in: i32, %in_0: i32, %out: i32):
// CHECK-NEXT: %[[C:.*]] = arith.cmpi slt, %in, %in_0 : i32
// CHECK-NEXT: arith.select %[[C]], %in, %in_0 : i32
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %x = arith.addf %t, %b : tensor<3x2xf32>
  %y = math.exp %x : tensor<3x2xf32>
  %z = arith.mulf %y, %y : tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}
func.func @row_sum(%a: tensor<4x8xf32>) -> tensor<4xf32> {
  %sq = arith.mulf %a, %a : tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%sq : tensor<4x8xf32>) outs(%z : tensor<4xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %r = math.sqrt %s : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @shared(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %x = math.exp %a : tensor<4xf32>
  %y = arith.addf %x, %x : tensor<4xf32>
  %z = math.tanh %x : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}
func.func @shared_exp(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %x = math.exp %m : tensor<4x4xf32>
  %y = arith.addf %x, %x : tensor<4x4xf32>
  %t = math.tanh %x : tensor<4x4xf32>
  return %y, %t : tensor<4x4xf32>, tensor<4x4xf32>
}
func.func @int_cmp(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = arith.cmpi slt, %a, %b : tensor<4xi32>
  %s = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %s : tensor<4xi32>
}
