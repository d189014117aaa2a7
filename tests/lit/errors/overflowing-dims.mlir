// A dimension that does not fit in 64 bits.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: overflowing-dims.mlir:[[@LINE+1]]:25: error: integer constant out of range
func.func @f(%a: tensor<99999999999999999999999x4xf32>) {
  return
}
