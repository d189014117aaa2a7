// Multi-block regions: block labels and arguments, successor lists in the
// generic form, forward block references, and mlir-opt's predecessor
// comments. The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck --match-full-lines %s
// RUN: kiln-opt --allow-unregistered-dialect %s > %t.1 && kiln-opt --allow-unregistered-dialect %t.1 > %t.2 && diff %t.1 %t.2
// RUN: not kiln-opt --allow-unregistered-dialect %S/Inputs/undefined-block.mlir.txt 2>&1 | FileCheck %s --check-prefix=UNDEF
// UNDEF: undefined-block.mlir.txt:3:17: error: reference to an undefined block
// REQUIRES: mlir-opt
// RUN: mlir-opt --allow-unregistered-dialect %s | diff - %t.1
// RUN: mlir-opt --allow-unregistered-dialect %t.1 | diff - %t.1

// CHECK: module {
// CHECK:   func.func @f(%arg0: i1, %arg1: i32) -> i32 {
// CHECK:     "test.br"(%arg1)[^bb2] : (i32) -> ()
// CHECK:   ^bb1(%0: i32):  // pred: ^bb1
// CHECK:     "test.cond_br"(%arg0, %0)[^bb1, ^bb2] : (i1, i32) -> ()
// CHECK:   ^bb2(%1: i32):  // 2 preds: ^bb0, ^bb1
// CHECK:     return %1 : i32
// CHECK:   }
// CHECK: }

func.func @f(%c: i1, %a: i32) -> i32 {
  "test.br"(%a)[^bb2] : (i32) -> ()
^bb1(%x: i32):
  "test.cond_br"(%c, %x)[^bb1, ^bb2] : (i1, i32) -> ()
^bb2(%y: i32):
  return %y : i32
}
