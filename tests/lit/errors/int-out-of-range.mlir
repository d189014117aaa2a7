// An integer constant that does not fit its type.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() -> i8 {
  // CHECK: int-out-of-range.mlir:[[@LINE+1]]:23: error: integer constant out of range for attribute
  %0 = arith.constant 256 : i8
  return %0 : i8
}
