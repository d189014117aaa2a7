// A conditional branch passing arguments to the same block twice gets a
// dummy block on its false edge, so the phi has two distinct predecessors.
// RUN: kiln-translate --no-c-wrappers %s | FileCheck %s

// CHECK-LABEL: define i32 @rep(i1 %0, i32 %1, i32 %2)
// CHECK-NEXT: entry:
// CHECK-NEXT: br i1 %0, label %[[SUCC:[0-9]+]], label %[[DUMMY:[0-9]+]]
// CHECK: [[DUMMY]]:
// CHECK-NEXT: br label %[[SUCC]]
// CHECK: [[SUCC]]:
// CHECK-NEXT: %[[X:[0-9]+]] = phi i32 [ %1, %entry ], [ %2, %[[DUMMY]] ]
// CHECK-NEXT: ret i32 %[[X]]
func.func @rep(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%x: i32):
  return %x : i32
}

// Distinct successors need no dummy block.
// CHECK-LABEL: define i32 @distinct(
// CHECK-NEXT: entry:
// CHECK-NEXT: br i1 %0, label %[[T:[0-9]+]], label %[[F:[0-9]+]]
// CHECK: [[T]]:
// CHECK-NEXT: br label %[[J:[0-9]+]]
// CHECK: [[F]]:
// CHECK-NEXT: br label %[[J]]
// CHECK: [[J]]:
// CHECK-NEXT: phi i32 [ %1, %[[T]] ], [ %2, %[[F]] ]
func.func @distinct(%c: i1, %a: i32, %b: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  cf.br ^bb3(%a : i32)
^bb2:
  cf.br ^bb3(%b : i32)
^bb3(%x: i32):
  return %x : i32
}
