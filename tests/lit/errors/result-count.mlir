// Binding two names to an op with one result.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) -> f32 {
  // CHECK: result-count.mlir:[[@LINE+1]]:3: error: operation defines 1 results but was provided 2 to bind
  %0, %1 = arith.addf %a, %a : f32
  return %0 : f32
}
