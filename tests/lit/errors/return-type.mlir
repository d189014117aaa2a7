// A return whose operand type differs from the function's result type.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: i32) -> f32 {
  // CHECK: return-type.mlir:[[@LINE+1]]:3: error: 'func.return' op type of return operand 0 ('i32') doesn't match function result type ('f32') in function @f
  return %a : i32
}
