// An operand used at a type other than its definition's.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: i32, %b: f32) -> f32 {
  // CHECK: type-mismatch.mlir:[[@LINE+3]]:19: error: use of value '%a' expects different type than prior uses: 'f32' vs 'i32'
  // CHECK-NEXT: {{^}}  %0 = arith.addf %a, %b : f32
  // CHECK-NEXT: {{^                  \^$}}
  %0 = arith.addf %a, %b : f32
  return %0 : f32
}
