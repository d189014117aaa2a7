// A terminator in the middle of a block.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: f32) {
  // CHECK: terminator-not-last.mlir:[[@LINE+1]]:3: error: 'func.return' op must be the last operation in the parent block
  "func.return"() : () -> ()
  %0 = arith.addf %a, %a : f32
}
