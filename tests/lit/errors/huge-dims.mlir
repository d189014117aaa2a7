// A dimension that fits in 64 bits but not in a sane shape.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: huge-dims.mlir:[[@LINE+1]]:25: error: dimension 9223372036854775807 is too large
func.func @f(%a: tensor<9223372036854775807xf32>) {
  return
}
