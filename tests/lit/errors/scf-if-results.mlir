// An scf.if that yields values needs an else branch.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%c: i1, %a: f32) -> f32 {
  // CHECK: scf-if-results.mlir:[[@LINE+1]]:8: error: 'scf.if' op must have an else block if defining values
  %0 = scf.if %c -> (f32) {
    scf.yield %a : f32
  }
  return %0 : f32
}
