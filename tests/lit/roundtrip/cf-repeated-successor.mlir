// A block that is both successors of one cf.cond_br has two predecessor
// edges from the same block; mlir-opt's comment counts and lists both
// ("2 preds: ^bb0, ^bb0").
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @select_like(%arg0: i1, %arg1: f32, %arg2: f32) -> f32 {
// CHECK-NEXT: cf.cond_br %arg0, ^bb1(%arg1 : f32), ^bb1(%arg2 : f32)
// CHECK-NEXT: ^bb1(%0: f32):  // 2 preds: ^bb0, ^bb0
// CHECK-NEXT: return %0 : f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @select_like(%c: i1, %a: f32, %b: f32) -> f32 {
  cf.cond_br %c, ^join(%a : f32), ^join(%b : f32)
^join(%v: f32):
  return %v : f32
}
