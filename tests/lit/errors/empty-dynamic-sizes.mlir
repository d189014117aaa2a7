// tensor.empty needs one size per '?' dimension.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() -> tensor<?x?xf32> {
  // CHECK: empty-dynamic-sizes.mlir:[[@LINE+1]]:8: error: 'tensor.empty' op incorrect number of dynamic sizes, has 0, expected 2
  %0 = tensor.empty() : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
