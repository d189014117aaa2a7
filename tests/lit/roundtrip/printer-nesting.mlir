// Round trip of two printing rules that depend on nesting:
//  - ops of the func dialect drop their `func.` prefix only directly inside
//    a func.func; inside scf/linalg regions mlir-opt prints `func.call`;
//  - inside array attributes, i64 integers and f64 floats drop their type
//    (`[1, 2.500000e+00]`), while a top-level entry keeps it (`: i64`).
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func private @ext(f32) -> f32
func.func private @ext(f32) -> f32

// CHECK-LABEL: func.func @call_in_regions(%arg0: i1, %arg1: f32, %arg2: index) -> f32 {
// CHECK-NEXT: %0 = call @ext(%arg1) : (f32) -> f32
// CHECK-NEXT: %1 = scf.if %arg0 -> (f32) {
// CHECK-NEXT: %3 = func.call @ext(%0) : (f32) -> f32
// CHECK-NEXT: scf.yield %3 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %arg1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %2 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %1) -> (f32) {
// CHECK-NEXT: %3 = func.call @ext(%arg4) : (f32) -> f32
// CHECK-NEXT: scf.yield %3 : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %2 : f32
// CHECK-NEXT: }
func.func @call_in_regions(%c: i1, %x: f32, %n: index) -> f32 {
  %direct = call @ext(%x) : (f32) -> f32
  %r = scf.if %c -> (f32) {
    %q = func.call @ext(%direct) : (f32) -> f32
    scf.yield %q : f32
  } else {
    scf.yield %x : f32
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%a = %r) -> (f32) {
    %t = func.call @ext(%a) : (f32) -> f32
    scf.yield %t : f32
  }
  return %s : f32
}

// CHECK-LABEL: func.func @call_in_linalg_body(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %mapped = linalg.map { func.call {callee = @ext} } ins(%arg0 : tensor<4xf32>) outs(%0 : tensor<4xf32>)
// CHECK-NEXT: return %mapped : tensor<4xf32>
// CHECK-NEXT: }
func.func @call_in_linalg_body(%t: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.map ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>)
    (%v: f32) {
      %w = func.call @ext(%v) : (f32) -> f32
      linalg.yield %w : f32
    }
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @array_elements() attributes {floats = [2.500000e+00, 5.000000e-01, 1.000000e+00 : f32], ints = [1, -2, 3 : i32], nested = {deep = {{\[\[}}4, 5.000000e+00], [true, "s"]]}, top_float = 2.500000e+00 : f64, top_int = 7 : i64} {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @array_elements() attributes {top_int = 7 : i64, top_float = 2.5 : f64, ints = [1, -2 : i64, 3 : i32], floats = [2.5, 0.5 : f64, 1.0 : f32], nested = {deep = [[4, 5.0], [true, "s"]]}} {
  return
}
