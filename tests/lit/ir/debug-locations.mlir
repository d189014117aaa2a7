// Debug locations as mlir-opt-19 --mlir-print-debuginfo prints them
// (loc(...) after ops, block/function arguments; #loc aliases at the end of
// the file) are accepted and dropped.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
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

#loc2 = loc("h.mlir":2:21)
#loc5 = loc("h.mlir":5:16)
#loc6 = loc("h.mlir":5:27)
module @outer attributes {foo.bar = 1 : i32} {
  func.func @callee(%arg0: f32 {foo.arg} loc("h.mlir":2:21)) -> (f32 {foo.res = 2 : i32}) attributes {llvm.emit_c_interface} {
    return %arg0 : f32 loc(#loc3)
  } loc(#loc1)
  func.func @f(%arg0: index loc("h.mlir":5:16), %arg1: f32 loc("h.mlir":5:27)) -> f32 {
    %c0 = arith.constant 0 : index loc(#loc7)
    %c1 = arith.constant 1 : index loc(#loc8)
    %0 = scf.for %arg2 = %c0 to %arg0 step %c1 iter_args(%arg3 = %arg1) -> (f32) {
      %4 = func.call @callee(%arg3) : (f32) -> f32 loc(#loc10)
      scf.yield %4 : f32 loc(#loc11)
    } loc(#loc9)
    scf.for %arg2 = %c0 to %arg0 step %c1 {
      %4 = func.call @callee(%arg1) : (f32) -> f32 loc(#loc13)
    } loc(#loc12)
    %c7_i32 = arith.constant 7 : i32 loc(#loc14)
    %c7_i64 = arith.constant 7 : i64 loc(#loc15)
    %c-3 = arith.constant -3 : index loc(#loc16)
    scf.for %arg2 = %c7_i32 to %c7_i32 step %c7_i32  : i32 {
    } loc(#loc17)
    %cst = arith.constant dense<[1, 2, 3]> : vector<3xi32> loc(#loc18)
    %1 = arith.addi %cst, %cst : vector<3xi32> loc(#loc19)
    %2 = arith.cmpi slt, %cst, %cst : vector<3xi32> loc(#loc20)
    %3 = arith.select %2, %cst, %cst : vector<3xi1>, vector<3xi32> loc(#loc21)
    return %0 : f32 loc(#loc22)
  } loc(#loc4)
  module @inner {
    func.func private @decl() loc(#loc24)
  } loc(#loc23)
} loc(#loc)
#loc = loc("h.mlir":1:1)
#loc1 = loc("h.mlir":2:3)
#loc3 = loc("h.mlir":3:5)
#loc4 = loc("h.mlir":5:3)
#loc7 = loc("h.mlir":6:11)
#loc8 = loc("h.mlir":7:11)
#loc9 = loc("h.mlir":8:10)
#loc10 = loc("h.mlir":9:12)
#loc11 = loc("h.mlir":10:7)
#loc12 = loc("h.mlir":12:5)
#loc13 = loc("h.mlir":13:12)
#loc14 = loc("h.mlir":15:10)
#loc15 = loc("h.mlir":16:10)
#loc16 = loc("h.mlir":17:10)
#loc17 = loc("h.mlir":18:5)
#loc18 = loc("h.mlir":20:10)
#loc19 = loc("h.mlir":21:10)
#loc20 = loc("h.mlir":22:12)
#loc21 = loc("h.mlir":23:12)
#loc22 = loc("h.mlir":24:5)
#loc23 = loc("h.mlir":26:3)
#loc24 = loc("h.mlir":27:5)

