// An op name that is not in the op table.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  // CHECK: unknown-op.mlir:[[@LINE+1]]:8: error: custom op 'arith.frobnicate' is unknown
  %0 = arith.frobnicate %a : f32
  return %0 : f32
}
