// Block labels are scoped to their region, as in MLIR: a cf branch inside
// a nested region names the nested region's blocks, even when the
// enclosing region has a block of the same name (defined earlier), and a
// label of the enclosing region is not visible inside. The CHECK lines are
// mlir-opt-19's output for this file.
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck --match-full-lines %s
// RUN: kiln-opt --allow-unregistered-dialect %s > %t.1 && kiln-opt --allow-unregistered-dialect %t.1 > %t.2 && diff %t.1 %t.2
// RUN: not kiln-opt %S/Inputs/cf-outer-label.mlir.txt 2>&1 | FileCheck %s --check-prefix=OUTER
// OUTER: cf-outer-label.mlir.txt:6:11: error: reference to an undefined block
// REQUIRES: mlir-opt
// RUN: mlir-opt --allow-unregistered-dialect %s | diff - %t.1
// RUN: not mlir-opt %S/Inputs/cf-outer-label.mlir.txt 2>&1 | FileCheck %s --check-prefix=OUTER

// CHECK: module {
// CHECK:   func.func @f(%arg0: i1, %arg1: i32) -> i32 {
// CHECK:     cf.br ^bb1(%arg1 : i32)
// CHECK:   ^bb1(%0: i32):  // pred: ^bb0
// CHECK:     "test.region"() ({
// CHECK:       cf.cond_br %arg0, ^bb1, ^bb2(%0 : i32)
// CHECK:     ^bb1:  // 2 preds: ^bb0, ^bb2
// CHECK:       "test.end"() : () -> ()
// CHECK:     ^bb2(%1: i32):  // pred: ^bb0
// CHECK:       cf.br ^bb1
// CHECK:     }) : () -> ()
// CHECK:     return %0 : i32
// CHECK:   }
// CHECK: }

func.func @f(%c: i1, %a: i32) -> i32 {
  cf.br ^bb1(%a : i32)
^bb1(%x: i32):
  "test.region"() ({
    cf.cond_br %c, ^bb1, ^bb2(%x : i32)
  ^bb1:
    "test.end"() : () -> ()
  ^bb2(%y: i32):
    cf.br ^bb1
  }) : () -> ()
  return %x : i32
}
