// extf must widen.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f16 {
  // CHECK: bad-cast.mlir:[[@LINE+1]]:8: error: 'arith.extf' op operand type 'f32' and result type 'f16' are cast incompatible
  %0 = arith.extf %a : f32 to f16
  return %0 : f16
}
