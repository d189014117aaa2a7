// A type keyword that does not exist.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: unknown-type.mlir:[[@LINE+2]]:27: error: unknown type 'f31'
// CHECK-NEXT: {{^}}func.func @f(%a: tensor<4xf31>) {
func.func @f(%a: tensor<4xf31>) {
  return
}
