// cse: identical side-effect-free ops are merged when the first one
// dominates the second (same block or an enclosing one); commutative
// operands match in either order; ops in sibling regions, ops with
// different attributes or types, ops in other functions, and calls stay.
// RUN: kiln-opt --pass-pipeline=cse %s | FileCheck %s

// CHECK-LABEL: func.func @same_block(
// CHECK-SAME: %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32
// CHECK: %[[C:.*]] = arith.constant 7 : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[S]], %[[C]] : i32
// CHECK-NEXT: return %[[M]], %[[M]], %[[S]] : i32, i32, i32
func.func @same_block(%a: i32, %b: i32) -> (i32, i32, i32) {
  %c7 = arith.constant 7 : i32
  %s1 = arith.addi %a, %b : i32
  %c7b = arith.constant 7 : i32
  %s2 = arith.addi %b, %a : i32
  %m1 = arith.muli %s1, %c7 : i32
  %m2 = arith.muli %s2, %c7b : i32
  return %m1, %m2, %s2 : i32, i32, i32
}

// CHECK-LABEL: func.func @differs(
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sgt
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<fast> : f32
// CHECK: arith.constant 1 : i32
// CHECK: arith.constant 1 : i64
// CHECK: arith.subi
// CHECK: arith.subi
func.func @differs(%a: i32, %b: i32, %x: f32) -> (i1, i1, f32, f32, i32, i64, i32, i32) {
  %0 = arith.cmpi slt, %a, %b : i32
  %1 = arith.cmpi sgt, %a, %b : i32
  %2 = arith.addf %x, %x : f32
  %3 = arith.addf %x, %x fastmath<fast> : f32
  %4 = arith.constant 1 : i32
  %5 = arith.constant 1 : i64
  // Not commutative: operand order matters.
  %6 = arith.subi %a, %b : i32
  %7 = arith.subi %b, %a : i32
  return %0, %1, %2, %3, %4, %5, %6, %7 : i1, i1, f32, f32, i32, i64, i32, i32
}

// An op in the loop body reuses one from before the loop; two ops in the
// two branches of an if do not merge with each other.
// CHECK-LABEL: func.func @regions(
// CHECK-SAME: %[[N:[^:]*]]: index, %[[C:[^:]*]]: i1
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D:.*]] = arith.muli %[[N]], %[[N]] : index
// CHECK-NEXT: %[[L:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[N]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[C0]]) -> (index) {
// CHECK-NEXT: %[[T:.*]] = arith.addi %[[ACC]], %[[D]] : index
// CHECK-NEXT: scf.yield %[[T]] : index
// CHECK-NEXT: }
// CHECK-NEXT: %[[R:.*]] = scf.if %[[C]] -> (index) {
// CHECK-NEXT: %[[X:.*]] = arith.addi %[[L]], %[[N]] : index
// CHECK-NEXT: scf.yield %[[X]] : index
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[L]], %[[N]] : index
// CHECK-NEXT: scf.yield %[[Y]] : index
// CHECK-NEXT: }
func.func @regions(%n: index, %c: i1) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = arith.muli %n, %n : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %c0i = arith.constant 0 : index
    %di = arith.muli %n, %n : index
    %t = arith.addi %acc, %di : index
    scf.yield %t : index
  }
  %r = scf.if %c -> (index) {
    %x = arith.addi %l, %n : index
    scf.yield %x : index
  } else {
    %y = arith.addi %l, %n : index
    scf.yield %y : index
  }
  return %r : index
}

// Tensor ops merge too; calls (which may have effects) do not.
// CHECK-LABEL: func.func @tensors_and_calls(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NOT: tensor.empty
// CHECK: call @effect
// CHECK: call @effect
// CHECK: return %[[E]], %[[E]]
func.func private @effect() -> i32
func.func @tensors_and_calls() -> (tensor<4xf32>, tensor<4xf32>, i32, i32) {
  %e1 = tensor.empty() : tensor<4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %a = call @effect() : () -> i32
  %b = call @effect() : () -> i32
  return %e1, %e2, %a, %b : tensor<4xf32>, tensor<4xf32>, i32, i32
}

// Functions are isolated: each keeps its own constant.
// CHECK-LABEL: func.func @first(
// CHECK: arith.constant 42 : i32
// CHECK-LABEL: func.func @second(
// CHECK: arith.constant 42 : i32
func.func @first() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}
func.func @second() -> i32 {
  %c = arith.constant 42 : i32
  return %c : i32
}
