// Named and nested modules, module/function/argument/result attributes, the func default dialect (no prefix directly in func.func, func.call inside scf), integer-typed scf.for, vector arith.
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: module @outer attributes {foo.bar = 1 : i32} {
// CHECK:   func.func @callee(%arg0: f32 {foo.arg}) -> (f32 {foo.res = 2 : i32}) attributes {llvm.emit_c_interface} {
// CHECK:     return %arg0 : f32
// CHECK:   }
// CHECK:   func.func @f(%arg0: index, %arg1: f32) -> f32 {
// CHECK:     %c0 = arith.constant 0 : index
// CHECK:     %c1 = arith.constant 1 : index
// CHECK:     %0 = scf.for %arg2 = %c0 to %arg0 step %c1 iter_args(%arg3 = %arg1) -> (f32) {
// CHECK:       %4 = func.call @callee(%arg3) : (f32) -> f32
// CHECK:       scf.yield %4 : f32
// CHECK:     }
// CHECK:     scf.for %arg2 = %c0 to %arg0 step %c1 {
// CHECK:       %4 = func.call @callee(%arg1) : (f32) -> f32
// CHECK:     }
// CHECK:     %c7_i32 = arith.constant 7 : i32
// CHECK:     %c7_i64 = arith.constant 7 : i64
// CHECK:     %c-3 = arith.constant -3 : index
// CHECK:     scf.for %arg2 = %c7_i32 to %c7_i32 step %c7_i32  : i32 {
// CHECK:     }
// CHECK:     %cst = arith.constant dense<[1, 2, 3]> : vector<3xi32>
// CHECK:     %1 = arith.addi %cst, %cst : vector<3xi32>
// CHECK:     %2 = arith.cmpi slt, %cst, %cst : vector<3xi32>
// CHECK:     %3 = arith.select %2, %cst, %cst : vector<3xi1>, vector<3xi32>
// CHECK:     return %0 : f32
// CHECK:   }
// CHECK:   module @inner {
// CHECK:     func.func private @decl()
// CHECK:   }
// CHECK: }

module @outer attributes {foo.bar = 1 : i32} {
  func.func @callee(%a: f32 {foo.arg}) -> (f32 {foo.res = 2 : i32}) attributes {llvm.emit_c_interface} {
    return %a : f32
  }
  func.func @f(%n: index, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (f32) {
      %v = func.call @callee(%acc) : (f32) -> f32
      scf.yield %v : f32
    }
    scf.for %i = %c0 to %n step %c1 {
      %v = func.call @callee(%x) : (f32) -> f32
    }
    %a = arith.constant 7 : i32
    %b = arith.constant 7 : i64
    %e = arith.constant -3 : index
    scf.for %j = %a to %a step %a : i32 {
    }
    %t = arith.constant dense<[1, 2, 3]> : vector<3xi32>
    %s = arith.addi %t, %t : vector<3xi32>
    %cmp = arith.cmpi slt, %t, %t : vector<3xi32>
    %sel = arith.select %cmp, %t, %t : vector<3xi1>, vector<3xi32>
    return %r : f32
  }
  module @inner {
    func.func private @decl()
  }
}
