// matmul operands whose reduction dimensions disagree (4x8 * 7x16).
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // CHECK: matmul-shape.mlir:[[@LINE+2]]:8: error: 'linalg.matmul' op inferred input/output operand #1 has shape's dimension #0 to be 8, but found 7
  // CHECK-NEXT: {{^}}  %0 = linalg.matmul
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<7x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
