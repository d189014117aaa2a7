// The file ends inside a function body.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: unclosed-region.mlir:[[@LINE+3]]:1: error: expected '}' to close region
func.func @f() {
  return
