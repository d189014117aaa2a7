// scf-to-cf: loops become a condition block and a latch, ifs become
// conditional branches to a join block carrying the results.
// RUN: kiln-translate --scf-to-cf --print-ir %s | FileCheck %s
// RUN: kiln-translate --scf-to-cf --print-ir %s | mlir-opt | FileCheck %s --check-prefix=OPT
// REQUIRES: mlir-opt

// CHECK-LABEL: func.func @sum(
// CHECK:   cf.br ^bb1(%{{.*}}, %{{.*}} : index, f32)
// CHECK: ^bb1(%[[IV:.*]]: index, %[[ACC:.*]]: f32):
// CHECK:   %[[C:.*]] = arith.cmpi slt, %[[IV]], %{{.*}} : index
// CHECK:   cf.cond_br %[[C]], ^bb2(%[[IV]], %[[ACC]] : index, f32), ^bb3(%[[ACC]] : f32)
// CHECK: ^bb2(%[[I:.*]]: index, %[[A:.*]]: f32):
// CHECK:   arith.addf
// CHECK:   %[[N:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK:   cf.br ^bb1(%[[N]], %{{.*}} : index, f32)
// CHECK: ^bb3(%[[R:.*]]: f32):
// CHECK:   return %[[R]] : f32
// OPT-LABEL: func.func @sum
func.func @sum(%m: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (f32) {
    %x = memref.load %m[%i] : memref<?xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @pick(
// CHECK:   cf.cond_br %{{.*}}, ^bb1, ^bb2
// CHECK: ^bb1:
// CHECK:   cf.br ^bb3(%{{.*}} : i32)
// CHECK: ^bb2:
// CHECK:   cf.br ^bb3(%{{.*}} : i32)
// CHECK: ^bb3(%[[V:.*]]: i32):
// CHECK:   return %[[V]] : i32
func.func @pick(%c: i1, %a: i32, %b: i32) -> i32 {
  %r = scf.if %c -> (i32) {
    %x = arith.addi %a, %b : i32
    scf.yield %x : i32
  } else {
    scf.yield %b : i32
  }
  return %r : i32
}
