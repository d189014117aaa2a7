// RUN: kiln-opt %s --pass-pipeline=canonicalize,flow,hal | FileCheck %s
// scf inside kernels: a loop's tensor iter_arg lives in the loop result's
// buffer (here the output binding): the init is copied in once, slices
// with the induction variable as offset become dynamic subviews, and the
// insert computes the yielded value in place. A loop whose yielded value
// does not overwrite its iter_arg copies it back before the yield; scalar
// iter_args stay. scf.if branches both write the result's buffer.
// CHECK-LABEL: func.func @loop_over_tensor_dispatch_0() {
// CHECK: %[[IN:.*]] = hal.interface.binding {binding = 0 : i32} : memref<8x8xf32>
// CHECK: %[[OUT:.*]] = hal.interface.binding {binding = 1 : i32} : memref<8x8xf32>
// CHECK: %[[T:.*]] = memref.alloca() : memref<2x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[IN]] : memref<8x8xf32>) outs(%[[OUT]] : memref<8x8xf32>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[S:.*]] = memref.subview %[[OUT]][%[[I]], 0] [2, 8] [1, 1] : memref<8x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[S]] : {{.*}}) outs(%[[T]] : memref<2x8xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[T]] : memref<2x8xf32>) outs(%[[T]] : memref<2x8xf32>)
// CHECK: arith.negf
// CHECK: %[[W:.*]] = memref.subview %[[OUT]][%[[I]], 0] [2, 8] [1, 1]
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[T]] : memref<2x8xf32>) outs(%[[W]] : {{.*}})
// CHECK-LABEL: func.func @power_dispatch_0() {
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK: memref.store
// CHECK: linalg.generic {{.*}} outs(%[[P]] : memref<4xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %{{.*}} : f32
// CHECK-LABEL: func.func @choose_dispatch_0() {
// CHECK: %[[R:.*]] = hal.interface.binding {binding = 2 : i32} : memref<4xf32>
// CHECK: scf.if %{{.*}} {
// CHECK: linalg.generic {{.*}} outs(%[[R]] : memref<4xf32>)
// CHECK: arith.addf
// CHECK: } else {
// CHECK: linalg.generic {{.*}} outs(%[[R]] : memref<4xf32>)
// CHECK: arith.subf
// CHECK-NOT: tensor<
// CHECK: func.func @choose(
// Nested loops carrying two tensors: the inner loop's results, yielded
// by the outer body, live in the outer loop's buffers (the output
// bindings): no scratch buffer and no copy back, also for a run-time
// size, which a kernel could not allocate (it failed the pass before).
// CHECK-LABEL: func.func @nested_dispatch_0() {
// CHECK-NOT: memref.alloca
// CHECK: %[[X:.*]] = hal.interface.binding {binding = 2 : i32} : memref<4xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %[[X]]
// CHECK-NEXT: memref.store %{{.*}}, %[[X]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-LABEL: func.func @nested_dyn_dispatch_0() {
// CHECK: %[[D:.*]] = hal.interface.binding(%{{.*}}) {binding = 2 : i32} : memref<?xf32>
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NEXT: memref.load %[[D]]
// CHECK-NEXT: memref.store %{{.*}}, %[[D]]
func.func @loop_over_tensor(%t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c2 iter_args(%acc = %t) -> (tensor<8x8xf32>) {
    %tile = tensor.extract_slice %acc[%i, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
    %neg = arith.negf %tile : tensor<2x8xf32>
    %ins = tensor.insert_slice %neg into %acc[%i, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<8x8xf32>
    scf.yield %ins : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
func.func @power(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %s = %z) -> (tensor<4xf32>, f32) {
    %m = arith.mulf %acc, %x : tensor<4xf32>
    %e = tensor.extract %m[%c0] : tensor<4xf32>
    %s2 = arith.addf %s, %e : f32
    %m2 = tensor.insert %s2 into %m[%c1] : tensor<4xf32>
    scf.yield %m2, %s2 : tensor<4xf32>, f32
  }
  return %r#0 : tensor<4xf32>
}
func.func @choose(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %x[%c0] : tensor<4xf32>
  %b = tensor.extract %y[%c0] : tensor<4xf32>
  %p = arith.cmpf olt, %a, %b : f32
  %r = scf.if %p -> (tensor<4xf32>) {
    %s = arith.addf %x, %y : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    %d = arith.subf %x, %y : tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
func.func @nested(%t: tensor<4xf32>, %u: tensor<2xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t, %b = %u) -> (tensor<4xf32>, tensor<2xf32>) {
    %s:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (tensor<4xf32>, tensor<2xf32>) {
      %e = tensor.extract %x[%j] : tensor<4xf32>
      %x2 = tensor.insert %e into %x[%i] : tensor<4xf32>
      %y2 = tensor.insert %e into %y[%c0] : tensor<2xf32>
      scf.yield %x2, %y2 : tensor<4xf32>, tensor<2xf32>
    }
    scf.yield %s#0, %s#1 : tensor<4xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<2xf32>
}
func.func @nested_dyn(%t: tensor<?xf32>, %u: tensor<2xf32>) -> (tensor<?xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %t, %b = %u) -> (tensor<?xf32>, tensor<2xf32>) {
    %s:2 = scf.for %j = %c0 to %c3 step %c1 iter_args(%x = %a, %y = %b) -> (tensor<?xf32>, tensor<2xf32>) {
      %e = tensor.extract %x[%j] : tensor<?xf32>
      %x2 = tensor.insert %e into %x[%i] : tensor<?xf32>
      %y2 = tensor.insert %e into %y[%c0] : tensor<2xf32>
      scf.yield %x2, %y2 : tensor<?xf32>, tensor<2xf32>
    }
    scf.yield %s#0, %s#1 : tensor<?xf32>, tensor<2xf32>
  }
  return %r#0, %r#1 : tensor<?xf32>, tensor<2xf32>
}
