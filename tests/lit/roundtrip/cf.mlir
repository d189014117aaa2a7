// Round trip of unstructured control flow (cf): branches with and without
// block arguments, a loop written with blocks, a conditional branch with
// operands, and mlir-opt's predecessor comments.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @branch(%arg0: i32) -> i32 {
// CHECK-NEXT: cf.br ^bb1(%arg0 : i32)
// CHECK-NEXT: ^bb1(%0: i32):  // pred: ^bb0
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
func.func @branch(%x: i32) -> i32 {
  cf.br ^next(%x : i32)
^next(%y: i32):
  return %y : i32
}

// CHECK-LABEL: func.func @count(%arg0: index) -> index {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: cf.br ^bb1(%c0, %c0 : index, index)
// CHECK-NEXT: ^bb1(%0: index, %1: index):  // 2 preds: ^bb0, ^bb2
// CHECK-NEXT: %2 = arith.cmpi slt, %0, %arg0 : index
// CHECK-NEXT: cf.cond_br %2, ^bb2, ^bb3(%1 : index)
// CHECK-NEXT: ^bb2:  // pred: ^bb1
// CHECK-NEXT: %3 = arith.addi %1, %0 : index
// CHECK-NEXT: %4 = arith.addi %0, %c1 : index
// CHECK-NEXT: cf.br ^bb1(%4, %3 : index, index)
// CHECK-NEXT: ^bb3(%5: index):  // pred: ^bb1
// CHECK-NEXT: return %5 : index
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @count(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^head(%c0, %c0 : index, index)
^head(%i: index, %acc: index):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^exit(%acc : index)
^body:
  %a = arith.addi %acc, %i : index
  %j = arith.addi %i, %c1 : index
  cf.br ^head(%j, %a : index, index)
^exit(%r: index):
  return %r : index
}
