// Round trip of linalg's named ops on tensors: fill, matmul, batch_matmul,
// matvec, transpose, broadcast, reduce, map and softmax, static and dynamic.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @fill(%arg0: f32, %arg1: i32, %arg2: index) -> (tensor<4x4xf32>, tensor<?xi32>, tensor<f32>) {
// CHECK-NEXT: %0 = tensor.empty() : tensor<4x4xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%arg0 : f32) outs(%0 : tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT: %2 = tensor.empty(%arg2) : tensor<?xi32>
// CHECK-NEXT: %3 = linalg.fill ins(%arg1 : i32) outs(%2 : tensor<?xi32>) -> tensor<?xi32>
// CHECK-NEXT: %4 = tensor.empty() : tensor<f32>
// CHECK-NEXT: %5 = linalg.fill ins(%arg0 : f32) outs(%4 : tensor<f32>) -> tensor<f32>
// CHECK-NEXT: return %1, %3, %5 : tensor<4x4xf32>, tensor<?xi32>, tensor<f32>
// CHECK-NEXT: }
func.func @fill(%v: f32, %i: i32, %n: index) -> (tensor<4x4xf32>, tensor<?xi32>, tensor<f32>) {
  %e0 = tensor.empty() : tensor<4x4xf32>
  %0 = linalg.fill ins(%v : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = tensor.empty(%n) : tensor<?xi32>
  %1 = linalg.fill ins(%i : i32) outs(%e1 : tensor<?xi32>) -> tensor<?xi32>
  %e2 = tensor.empty() : tensor<f32>
  %2 = linalg.fill ins(%v : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<?xi32>, tensor<f32>
}

// CHECK-LABEL: func.func @matmul_static(%arg0: tensor<16x32xf32>, %arg1: tensor<32x8xf32>) -> tensor<16x8xf32> {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<16x8xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: %2 = linalg.matmul ins(%arg0, %arg1 : tensor<16x32xf32>, tensor<32x8xf32>) outs(%1 : tensor<16x8xf32>) -> tensor<16x8xf32>
// CHECK-NEXT: return %2 : tensor<16x8xf32>
// CHECK-NEXT: }
func.func @matmul_static(%a: tensor<16x32xf32>, %b: tensor<32x8xf32>) -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<16x8xf32>) -> tensor<16x8xf32>
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x8xf32>) outs(%acc : tensor<16x8xf32>) -> tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

// CHECK-LABEL: func.func @matmul_dynamic_mixed_types(%arg0: tensor<?x?xi8>, %arg1: tensor<?x?xi8>, %arg2: tensor<?x?xi32>) -> tensor<?x?xi32> {
// CHECK-NEXT: %0 = linalg.matmul ins(%arg0, %arg1 : tensor<?x?xi8>, tensor<?x?xi8>) outs(%arg2 : tensor<?x?xi32>) -> tensor<?x?xi32>
// CHECK-NEXT: return %0 : tensor<?x?xi32>
// CHECK-NEXT: }
func.func @matmul_dynamic_mixed_types(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %c: tensor<?x?xi32>) -> tensor<?x?xi32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x?xi8>, tensor<?x?xi8>) outs(%c : tensor<?x?xi32>) -> tensor<?x?xi32>
  return %r : tensor<?x?xi32>
}

// CHECK-LABEL: func.func @batch_matmul(%arg0: tensor<4x16x32xf32>, %arg1: tensor<4x32x8xf32>, %arg2: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
// CHECK-NEXT: %0 = linalg.batch_matmul ins(%arg0, %arg1 : tensor<4x16x32xf32>, tensor<4x32x8xf32>) outs(%arg2 : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
// CHECK-NEXT: return %0 : tensor<4x16x8xf32>
// CHECK-NEXT: }
func.func @batch_matmul(%a: tensor<4x16x32xf32>, %b: tensor<4x32x8xf32>, %c: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x16x32xf32>, tensor<4x32x8xf32>) outs(%c : tensor<4x16x8xf32>) -> tensor<4x16x8xf32>
  return %r : tensor<4x16x8xf32>
}

// CHECK-LABEL: func.func @matvec(%arg0: tensor<16x32xf32>, %arg1: tensor<32xf32>, %arg2: tensor<16xf32>) -> tensor<16xf32> {
// CHECK-NEXT: %0 = linalg.matvec ins(%arg0, %arg1 : tensor<16x32xf32>, tensor<32xf32>) outs(%arg2 : tensor<16xf32>) -> tensor<16xf32>
// CHECK-NEXT: return %0 : tensor<16xf32>
// CHECK-NEXT: }
func.func @matvec(%a: tensor<16x32xf32>, %x: tensor<32xf32>, %y: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.matvec ins(%a, %x : tensor<16x32xf32>, tensor<32xf32>) outs(%y : tensor<16xf32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// CHECK-LABEL: func.func @transpose(%arg0: tensor<2x3x4xf32>, %arg1: tensor<?x8xf32>, %arg2: index) -> (tensor<4x2x3xf32>, tensor<8x?xf32>) {
// CHECK-NEXT: %0 = tensor.empty() : tensor<4x2x3xf32>
// CHECK-NEXT: %transposed = linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%0 : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK-NEXT: %1 = tensor.empty(%arg2) : tensor<8x?xf32>
// CHECK-NEXT: %transposed_0 = linalg.transpose ins(%arg1 : tensor<?x8xf32>) outs(%1 : tensor<8x?xf32>) permutation = [1, 0]
// CHECK-NEXT: return %transposed, %transposed_0 : tensor<4x2x3xf32>, tensor<8x?xf32>
// CHECK-NEXT: }
func.func @transpose(%x: tensor<2x3x4xf32>, %y: tensor<?x8xf32>, %n: index) -> (tensor<4x2x3xf32>, tensor<8x?xf32>) {
  %e0 = tensor.empty() : tensor<4x2x3xf32>
  %0 = linalg.transpose ins(%x : tensor<2x3x4xf32>) outs(%e0 : tensor<4x2x3xf32>) permutation = [2, 0, 1]
  %e1 = tensor.empty(%n) : tensor<8x?xf32>
  %1 = linalg.transpose ins(%y : tensor<?x8xf32>) outs(%e1 : tensor<8x?xf32>) permutation = [1, 0]
  return %0, %1 : tensor<4x2x3xf32>, tensor<8x?xf32>
}

// CHECK-LABEL: func.func @broadcast(%arg0: tensor<8xf32>, %arg1: tensor<2x4xf32>) -> (tensor<3x8xf32>, tensor<2x5x4x6xf32>) {
// CHECK-NEXT: %0 = tensor.empty() : tensor<3x8xf32>
// CHECK-NEXT: %broadcasted = linalg.broadcast ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<3x8xf32>) dimensions = [0]
// CHECK-NEXT: %1 = tensor.empty() : tensor<2x5x4x6xf32>
// CHECK-NEXT: %broadcasted_0 = linalg.broadcast ins(%arg1 : tensor<2x4xf32>) outs(%1 : tensor<2x5x4x6xf32>) dimensions = [1, 3]
// CHECK-NEXT: return %broadcasted, %broadcasted_0 : tensor<3x8xf32>, tensor<2x5x4x6xf32>
// CHECK-NEXT: }
func.func @broadcast(%x: tensor<8xf32>, %y: tensor<2x4xf32>) -> (tensor<3x8xf32>, tensor<2x5x4x6xf32>) {
  %e0 = tensor.empty() : tensor<3x8xf32>
  %0 = linalg.broadcast ins(%x : tensor<8xf32>) outs(%e0 : tensor<3x8xf32>) dimensions = [0]
  %e1 = tensor.empty() : tensor<2x5x4x6xf32>
  %1 = linalg.broadcast ins(%y : tensor<2x4xf32>) outs(%e1 : tensor<2x5x4x6xf32>) dimensions = [1, 3]
  return %0, %1 : tensor<3x8xf32>, tensor<2x5x4x6xf32>
}

// CHECK-LABEL: func.func @reduce(%arg0: tensor<4x8x16xf32>, %arg1: tensor<4x16xf32>, %arg2: tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
// CHECK-NEXT: %reduced = linalg.reduce ins(%arg0 : tensor<4x8x16xf32>) outs(%arg1 : tensor<4x16xf32>) dimensions = [1]
// CHECK-NEXT: (%in: f32, %init: f32) {
// CHECK-NEXT: %0 = arith.addf %in, %init : f32
// CHECK-NEXT: linalg.yield %0 : f32
// CHECK-NEXT: }
// CHECK-NEXT: %reduced_0 = linalg.reduce ins(%reduced : tensor<4x16xf32>) outs(%arg2 : tensor<4xf32>) dimensions = [1]
// CHECK-NEXT: (%in: f32, %init: f32) {
// CHECK-NEXT: %0 = arith.maximumf %in, %init : f32
// CHECK-NEXT: linalg.yield %0 : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %reduced, %reduced_0 : tensor<4x16xf32>, tensor<4xf32>
// CHECK-NEXT: }
func.func @reduce(%x: tensor<4x8x16xf32>, %init: tensor<4x16xf32>, %m: tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4xf32>) {
  %0 = linalg.reduce ins(%x : tensor<4x8x16xf32>) outs(%init : tensor<4x16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %1 = linalg.reduce ins(%0 : tensor<4x16xf32>) outs(%m : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.maximumf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0, %1 : tensor<4x16xf32>, tensor<4xf32>
}

// CHECK-LABEL: func.func @reduce_two_operands(%arg0: tensor<8xf32>, %arg1: tensor<8xi32>, %arg2: tensor<f32>, %arg3: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
// CHECK-NEXT: %reduced:2 = linalg.reduce ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xi32>) outs(%arg2, %arg3 : tensor<f32>, tensor<i32>) dimensions = [0]
// CHECK-NEXT: (%in: f32, %in_0: i32, %init: f32, %init_1: i32) {
// CHECK-NEXT: %0 = arith.cmpf ogt, %in, %init : f32
// CHECK-NEXT: %1 = arith.select %0, %in, %init : f32
// CHECK-NEXT: %2 = arith.select %0, %in_0, %init_1 : i32
// CHECK-NEXT: linalg.yield %1, %2 : f32, i32
// CHECK-NEXT: }
// CHECK-NEXT: return %reduced#0, %reduced#1 : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
func.func @reduce_two_operands(%v: tensor<8xf32>, %i: tensor<8xi32>, %vi: tensor<f32>, %ii: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %0:2 = linalg.reduce ins(%v, %i : tensor<8xf32>, tensor<8xi32>) outs(%vi, %ii : tensor<f32>, tensor<i32>) dimensions = [0]
    (%a: f32, %b: i32, %accv: f32, %acci: i32) {
      %gt = arith.cmpf ogt, %a, %accv : f32
      %nv = arith.select %gt, %a, %accv : f32
      %ni = arith.select %gt, %b, %acci : i32
      linalg.yield %nv, %ni : f32, i32
    }
  return %0#0, %0#1 : tensor<f32>, tensor<i32>
}

// CHECK-LABEL: func.func @map(%arg0: tensor<4x8xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
// CHECK-NEXT: %mapped = linalg.map { arith.addf } ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xf32>) outs(%arg2 : tensor<4x8xf32>)
// CHECK-NEXT: %mapped_0 = linalg.map { math.exp } ins(%mapped : tensor<4x8xf32>) outs(%arg2 : tensor<4x8xf32>)
// CHECK-NEXT: return %mapped, %mapped_0 : tensor<4x8xf32>, tensor<4x8xf32>
// CHECK-NEXT: }
func.func @map(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %init: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = linalg.map ins(%a, %b : tensor<4x8xf32>, tensor<4x8xf32>) outs(%init : tensor<4x8xf32>)
    (%x: f32, %y: f32) {
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
  %1 = linalg.map { math.exp } ins(%0 : tensor<4x8xf32>) outs(%init : tensor<4x8xf32>)
  return %0, %1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @map_long_body(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>, %arg2: f32) -> tensor<?xf32> {
// CHECK-NEXT: %mapped = linalg.map ins(%arg0 : tensor<?xf32>) outs(%arg1 : tensor<?xf32>)
// CHECK-NEXT: (%in: f32) {
// CHECK-NEXT: %0 = arith.mulf %in, %arg2 : f32
// CHECK-NEXT: %1 = math.tanh %0 : f32
// CHECK-NEXT: linalg.yield %1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %mapped : tensor<?xf32>
// CHECK-NEXT: }
func.func @map_long_body(%a: tensor<?xf32>, %init: tensor<?xf32>, %alpha: f32) -> tensor<?xf32> {
  %0 = linalg.map ins(%a : tensor<?xf32>) outs(%init : tensor<?xf32>)
    (%x: f32) {
      %m = arith.mulf %x, %alpha : f32
      %t = math.tanh %m : f32
      linalg.yield %t : f32
    }
  return %0 : tensor<?xf32>
}

// CHECK-LABEL: func.func @softmax(%arg0: tensor<2x16x32xf32>, %arg1: tensor<?x?xf16>) -> (tensor<2x16x32xf32>, tensor<?x?xf16>) {
// CHECK-NEXT: %0 = tensor.empty() : tensor<2x16x32xf32>
// CHECK-NEXT: %1 = linalg.softmax dimension(2) ins(%arg0 : tensor<2x16x32xf32>) outs(%0 : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
// CHECK-NEXT: %2 = linalg.softmax dimension(0) ins(%arg1 : tensor<?x?xf16>) outs(%arg1 : tensor<?x?xf16>) -> tensor<?x?xf16>
// CHECK-NEXT: return %1, %2 : tensor<2x16x32xf32>, tensor<?x?xf16>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @softmax(%x: tensor<2x16x32xf32>, %y: tensor<?x?xf16>) -> (tensor<2x16x32xf32>, tensor<?x?xf16>) {
  %e = tensor.empty() : tensor<2x16x32xf32>
  %0 = linalg.softmax dimension(2) ins(%x : tensor<2x16x32xf32>) outs(%e : tensor<2x16x32xf32>) -> tensor<2x16x32xf32>
  %1 = linalg.softmax dimension(0) ins(%y : tensor<?x?xf16>) outs(%y : tensor<?x?xf16>) -> tensor<?x?xf16>
  return %0, %1 : tensor<2x16x32xf32>, tensor<?x?xf16>
}
