// A binary op given one operand (generic form).
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  // CHECK: wrong-arity.mlir:[[@LINE+1]]:8: error: 'arith.addf' op requires 2 operands, but found 1
  %0 = "arith.addf"(%a) : (f32) -> f32
  return %0 : f32
}
