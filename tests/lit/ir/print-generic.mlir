// --mlir-print-op-generic prints every op as "name"(operands) ({regions})
// {attributes} : (types) -> types, with mlir-opt's unique SSA ids (regions
// numbered last-first, counters never reset); kiln-opt and mlir-opt-19 read
// it back.
// RUN: kiln-opt --mlir-print-op-generic %s | FileCheck %s
// RUN: kiln-opt --mlir-print-op-generic %s | kiln-opt > %t.a && kiln-opt %s > %t.b && diff %t.a %t.b
// REQUIRES: mlir-opt
// RUN: kiln-opt --mlir-print-op-generic %s | mlir-opt | diff - %t.b
// CHECK: "builtin.module"() ({
// CHECK-NEXT: "func.func"() ({
// CHECK-NEXT: ^bb0(%arg0: tensor<4xf32>, %arg1: index, %arg2: i1):
// CHECK-NEXT: %0 = "arith.constant"() {value = 0.000000e+00 : f32} : () -> f32
// CHECK-NEXT: %1 = "arith.constant"() {value = 0 : index} : () -> index
// CHECK-NEXT: %2 = "tensor.extract"(%arg0, %1) : (tensor<4xf32>, index) -> f32
// CHECK-NEXT: %3 = "scf.if"(%arg2) ({
// CHECK-NEXT: %6 = "arith.addf"(%2, %0) : (f32, f32) -> f32
// CHECK-NEXT: "scf.yield"(%6) : (f32) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: "scf.yield"(%0) : (f32) -> ()
// CHECK-NEXT: }) : (i1) -> f32
// CHECK-NEXT: %4 = "scf.for"(%1, %arg1, %1, %3) ({
// CHECK-NEXT: ^bb0(%arg3: index, %arg4: f32):
// CHECK-NEXT: %5 = "arith.mulf"(%arg4, %arg4) {fastmath = #arith.fastmath<fast>} : (f32, f32) -> f32
// CHECK-NEXT: "scf.yield"(%5) : (f32) -> ()
// CHECK-NEXT: }) : (index, index, index, f32) -> f32
// CHECK-NEXT: "func.return"(%4) : (f32) -> ()
// CHECK-NEXT: }) {function_type = (tensor<4xf32>, index, i1) -> f32, sym_name = "f"} : () -> ()
// CHECK-NEXT: }) : () -> ()
func.func @f(%t: tensor<4xf32>, %n: index, %c: i1) -> f32 {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %e = tensor.extract %t[%c0] : tensor<4xf32>
  %r = scf.if %c -> (f32) {
    %s = arith.addf %e, %zero : f32
    scf.yield %s : f32
  } else {
    scf.yield %zero : f32
  }
  %l = scf.for %i = %c0 to %n step %c0 iter_args(%acc = %r) -> (f32) {
    %m = arith.mulf %acc, %acc fastmath<fast> : f32
    scf.yield %m : f32
  }
  return %l : f32
}
