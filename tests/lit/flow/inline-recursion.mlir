// RUN: not kiln-opt %s --inline-calls 2>&1 | FileCheck %s
// Recursion cannot be inlined: an error names the call, never a hang.
// CHECK: pass 'inline-calls' failed: {{.*}}inline-recursion.mlir:[[@LINE+2]]:8: 'func.call' op calls nest deeper than 32 levels (recursion?)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
