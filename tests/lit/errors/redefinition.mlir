// The same SSA name defined twice in one scope.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  %0 = arith.addf %a, %a : f32
  // CHECK: redefinition.mlir:[[@LINE+2]]:3: error: redefinition of SSA value '%0'
  // CHECK-NEXT: {{^}}  %0 = arith.mulf %a, %a : f32
  %0 = arith.mulf %a, %a : f32
  return %0 : f32
}
