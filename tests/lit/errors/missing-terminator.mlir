// A function body that does not end with a terminator.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) {
  // CHECK: missing-terminator.mlir:[[@LINE+1]]:8: error: 'arith.addf' op block with no terminator; 'arith.addf' is not a terminator
  %0 = arith.addf %a, %a : f32
}
