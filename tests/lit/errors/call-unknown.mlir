// A call to a function that does not exist.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() {
  // CHECK: call-unknown.mlir:[[@LINE+1]]:3: error: 'func.call' op 'nope' does not reference a valid function
  call @nope() : () -> ()
  return
}
