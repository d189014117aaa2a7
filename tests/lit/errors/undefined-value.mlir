// A use of a name that is never defined.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  // CHECK: undefined-value.mlir:[[@LINE+3]]:23: error: use of undeclared SSA value name '%b'
  // CHECK-NEXT: {{^}}  %0 = arith.addf %a, %b : f32
  // CHECK-NEXT: {{^                      \^$}}
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}
