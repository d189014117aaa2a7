// RUN: kiln-opt %s --generalize-named-ops | FileCheck %s
// generalize-named-ops on attention's Q.K^T (a batch_matmul reading a
// transpose): with static shapes it becomes a generic for the
// implicit-GEMM path; with a run-time sequence length that path does not
// apply, so the named op stays (codegen's matmul microkernel takes it).

// CHECK-LABEL: func.func @qk_static(
// CHECK-NOT: linalg.batch_matmul
// CHECK: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: return
func.func @qk_static(%q: tensor<4x16x8xf32>, %k: tensor<4x16x8xf32>) -> tensor<4x16x16xf32> {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<4x8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<4x16x8xf32>) outs(%et : tensor<4x8x16xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<4x16x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<4x16x8xf32>, tensor<4x8x16xf32>) outs(%f : tensor<4x16x16xf32>) -> tensor<4x16x16xf32>
  return %r : tensor<4x16x16xf32>
}

// CHECK-LABEL: func.func @qk_dynamic(
// CHECK: linalg.batch_matmul
// CHECK: return
func.func @qk_dynamic(%q: tensor<4x?x8xf32>, %k: tensor<4x?x8xf32>) -> tensor<4x?x?xf32> {
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %q, %c1 : tensor<4x?x8xf32>
  %m = tensor.dim %k, %c1 : tensor<4x?x8xf32>
  %et = tensor.empty(%m) : tensor<4x8x?xf32>
  %kt = linalg.transpose ins(%k : tensor<4x?x8xf32>) outs(%et : tensor<4x8x?xf32>) permutation = [0, 2, 1]
  %e = tensor.empty(%n, %m) : tensor<4x?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<4x?x8xf32>, tensor<4x8x?xf32>) outs(%f : tensor<4x?x?xf32>) -> tensor<4x?x?xf32>
  return %r : tensor<4x?x?xf32>
}
