// RUN: not kiln-opt %s --tensorize-scalars 2>&1 | FileCheck %s
// A scalar the module signature cannot describe (integers other than i1,
// i8, i16, i32, i64) is refused naming the function, the position and the
// type, at the function's location.
// CHECK: pass 'tensorize-scalars' failed: {{.*}}tensorize-scalars-errors.mlir:[[@LINE+2]]:1: 'func.func' op result #1 of @odd has type i7, which a module signature cannot describe; scalar arguments and results must be i1, i8, i16, i32, i64, index, f16, bf16, f32 or f64
func.func @fine(%a: f32) -> f32 { return %a : f32 }
func.func @odd(%a: i32) -> (i32, i7) {
  %t = arith.trunci %a : i32 to i7
  return %a, %t : i32, i7
}
