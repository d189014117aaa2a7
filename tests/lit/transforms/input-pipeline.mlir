// The input stage's clean-up as compiler/PIPELINE.md runs it: canonicalize,
// infer-shapes, canonicalize. A model written with dynamic shapes whose
// sizes are all known ends up static but for the declared result type.
// RUN: kiln-opt --pass-pipeline=canonicalize,infer-shapes,canonicalize %s | FileCheck %s

// CHECK-LABEL: func.func @mlp(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x4xf32>) -> tensor<?x3xf32>
// CHECK-DAG: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<4x3xf32>
// CHECK-DAG: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[E:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[X]], %[[W]] : tensor<2x4xf32>, tensor<4x3xf32>) outs(%[[F]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[H:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[B:.*]] = linalg.fill ins(%[[H]] : f32) outs(%[[E]] : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %[[S:.*]] = arith.addf %[[M]], %[[B]] : tensor<2x3xf32>
// CHECK: %[[R:.*]] = tensor.cast %[[S]] : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x3xf32>
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<?x3xf32> {
  %c2 = arith.constant 2 : index
  %c0 = arith.constant 0 : index
  %w = arith.constant dense<[[1.0, 0.0, -1.0], [0.5, 0.5, 0.5], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%c2) : tensor<?x3xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%f : tensor<?x3xf32>) -> tensor<?x3xf32>
  %n = tensor.dim %m, %c0 : tensor<?x3xf32>
  %eb = tensor.empty(%n) : tensor<?x3xf32>
  %half = arith.constant 0.5 : f32
  %b = linalg.fill ins(%half : f32) outs(%eb : tensor<?x3xf32>) -> tensor<?x3xf32>
  %r = arith.addf %m, %b : tensor<?x3xf32>
  %relu = arith.maximumf %r, %r : tensor<?x3xf32>
  return %relu : tensor<?x3xf32>
}
