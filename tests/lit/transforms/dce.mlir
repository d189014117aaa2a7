// dce: unused side-effect-free ops go, including chains, tensor ops, linalg
// ops on tensors and scf ops with pure bodies; calls, terminators and ops
// whose results are still used stay.
// RUN: kiln-opt --pass-pipeline=dce %s | FileCheck %s

// CHECK-LABEL: func.func @chains(
// CHECK-SAME: %[[A:[^:]*]]: i32
// CHECK-NEXT: %[[K:.*]] = arith.addi %[[A]], %[[A]] : i32
// CHECK-NEXT: return %[[K]] : i32
func.func @chains(%a: i32) -> i32 {
  %c = arith.constant 3 : i32
  %0 = arith.muli %a, %c : i32
  %1 = arith.addi %0, %0 : i32
  %2 = arith.sitofp %1 : i32 to f32
  %3 = math.exp %2 : f32
  %keep = arith.addi %a, %a : i32
  return %keep : i32
}

// CHECK-LABEL: func.func @tensors(
// CHECK-NEXT: return
func.func @tensors(%t: tensor<4x8xf32>, %n: index) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %w = tensor.empty() : tensor<8x8xf32>
  %m = linalg.matmul ins(%t, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<?x8xf32>) -> tensor<?x8xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%m : tensor<?x8xf32>) {
  ^bb0(%o: f32):
    %x = arith.addf %o, %o : f32
    linalg.yield %x : f32
  } -> tensor<?x8xf32>
  %s = tensor.extract_slice %t[0, 0] [2, 2] [1, 1] : tensor<4x8xf32> to tensor<2x2xf32>
  return
}

// CHECK-LABEL: func.func @scf(
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[L:.*]] = scf.for
// CHECK: return %[[L]] : index
func.func @scf(%n: index, %c: i1) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dead = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %t = arith.addi %acc, %i : index
    scf.yield %t : index
  }
  %dead_if = scf.if %c -> (index) {
    scf.yield %n : index
  } else {
    scf.yield %c0 : index
  }
  %live = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %unused = arith.muli %i, %i : index
    %t = arith.addi %acc, %i : index
    scf.yield %t : index
  }
  return %live : index
}

// CHECK-LABEL: func.func @inside_live_loop(
// CHECK: scf.for
// CHECK-NOT: arith.muli
// CHECK: arith.addi
func.func @inside_live_loop(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %unused = arith.muli %i, %i : index
    %t = arith.addi %acc, %i : index
    scf.yield %t : index
  }
  return %r : index
}

// CHECK-LABEL: func.func @calls_stay(
// CHECK-NEXT: %{{.*}} = call @effect() : () -> i32
// CHECK-NEXT: return
func.func private @effect() -> i32
func.func @calls_stay() {
  %unused = call @effect() : () -> i32
  return
}
