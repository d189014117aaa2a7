// RUN: kiln-opt --remove-single-iteration-loops %s | FileCheck %s
// remove-single-iteration-loops: a loop with constant bounds that runs once
// becomes its body (iv = lower bound, iter_args = inits, results = yields);
// one that never runs becomes its inits; loops that run more than once or
// have unknown bounds stay.

// CHECK-LABEL: func.func @loops(
// CHECK-SAME: %[[M:[^:]*]]: memref<8xf32>, %[[V:[^:]*]]: f32, %[[N:[^:]*]]: index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: memref.store %[[V]], %[[M]][%[[C3]]] : memref<8xf32>
// CHECK-NEXT: %[[X:.*]] = memref.load %[[M]][%[[C0]]] : memref<8xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[V]], %[[X]] : f32
// CHECK-NEXT: scf.for %{{.*}} = %[[C0]] to %{{.*}} step %[[C3]] {
// CHECK-NEXT: memref.store %[[S]]
// CHECK: scf.for %{{.*}} = %[[C0]] to %[[N]] step
// CHECK: return %[[S]] : f32
func.func @loops(%m: memref<8xf32>, %v: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.for %i = %c3 to %c8 step %c16 {
    memref.store %v, %m[%i] : memref<8xf32>
  }
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %v) -> (f32) {
    %x = memref.load %m[%i] : memref<8xf32>
    %s = arith.addf %acc, %x : f32
    scf.yield %s : f32
  }
  %z = scf.for %i = %c8 to %c3 step %c1 iter_args(%acc = %r) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  scf.for %i = %c0 to %c8 step %c3 {
    memref.store %z, %m[%i] : memref<8xf32>
  }
  scf.for %i = %c0 to %n step %c16 {
    memref.store %z, %m[%i] : memref<8xf32>
  }
  return %z : f32
}
