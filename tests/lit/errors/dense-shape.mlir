// A dense literal with fewer elements than its type.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() -> tensor<3xf32> {
  // CHECK: dense-shape.mlir:[[@LINE+1]]:29: error: inferred shape of elements literal ([2]) does not match type ([3])
  %0 = arith.constant dense<[1.0, 2.0]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}
