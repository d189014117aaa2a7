// A value used before the op that defines it.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  // CHECK: dominance.mlir:[[@LINE+1]]:8: error: 'arith.mulf' op operand #0 does not dominate this use
  %0 = arith.mulf %1, %a : f32
  %1 = arith.addf %a, %a : f32
  return %0 : f32
}
