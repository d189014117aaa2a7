// A string literal that runs to the end of the line.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() attributes {
  // CHECK: unterminated-string.mlir:[[@LINE+1]]:10: error: unterminated string literal
  note = "never closed
} {
  return
}
