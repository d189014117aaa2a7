// Input cut off in the middle of a type.
// RUN: printf 'func.func @f(%%a: tensor<4x' > %t.mlir
// RUN: not kiln-opt %t.mlir 2>&1 | FileCheck %s
// CHECK: .mlir:1:27: error: expected type
