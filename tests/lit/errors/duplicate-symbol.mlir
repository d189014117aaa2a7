// Two functions with one name.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f() {
  return
}
// CHECK: duplicate-symbol.mlir:[[@LINE+2]]:1: error: redefinition of symbol named 'f'
// CHECK: duplicate-symbol.mlir:3:1: note: see existing symbol definition here
func.func @f() {
  return
}
