// RUN: not kiln-opt %s --inline-calls 2>&1 | FileCheck %s
// RUN: kiln-opt %s --inline-calls --verify-diagnostics
// Recursion cannot be inlined: an error names the call, never a hang. The
// failing pass's op is also a located diagnostic (with its source line),
// so --verify-diagnostics matches it like a parser or verifier error.
// CHECK: inline-recursion.mlir:[[@LINE+6]]:8: error: 'func.call' op calls nest deeper than 32 levels (recursion?)
// CHECK-NEXT: %r = call @f(%x)
// CHECK-NEXT: ^
// CHECK: pass 'inline-calls' failed: {{.*}}inline-recursion.mlir:[[@LINE+3]]:8: 'func.call' op calls nest deeper than 32 levels (recursion?)
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{calls nest deeper than 32 levels}}
  %r = call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
