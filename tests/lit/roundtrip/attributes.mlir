// Round trip of attributes of every kind on functions and ops: strings
// with escapes and UTF-8, unit, type, affine map, empty dict and array,
// bool, sized integers, f32/f16 floats; unusual constants (-0.0, inf, NaN
// in bf16, hex splats, zero-sized and i1 tensors); discardable attributes
// on linalg.generic; unused results; multi-result naming.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: #map = affine_map<(d0) -> (d0 * 2)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (d0)>
// CHECK-NEXT: module {
// CHECK-LABEL: func.func @strings() attributes {a = [], d = {}, f16v = 9.997550e-02 : f16, f32v = 1.000000e-01 : f32, i1v = true, i8v = -5 : i8, idx = 3 : index, m = #map, s1 = "tab\09here", s2 = "caf\C3\A9", s3 = "", s4 = "back\\slash", t = tensor<?xf32>, u} {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @strings() attributes {s1 = "tab\there", s2 = "caf\C3\A9", s3 = "", s4 = "back\\slash", f32v = 0.1 : f32, f16v = 0.1 : f16, u = unit, t = tensor<?xf32>, m = affine_map<(d0) -> (d0 * 2)>, d = {}, a = [], i1v = true, i8v = -5 : i8, idx = 3 : index} {
  return
}
// CHECK-LABEL: func.func @consts() -> (f64, f64, bf16, f64, tensor<2xf32>, tensor<0x4xf32>, tensor<3xi1>, index, tensor<2x2xi1>) {
// CHECK-NEXT: %cst = arith.constant -0.000000e+00 : f64
// CHECK-NEXT: %cst_0 = arith.constant 1.000000e-300 : f64
// CHECK-NEXT: %cst_1 = arith.constant 0x7FC0 : bf16
// CHECK-NEXT: %cst_2 = arith.constant 0x7FF0000000000000 : f64
// CHECK-NEXT: %cst_3 = arith.constant dense<0xFF800000> : tensor<2xf32>
// CHECK-NEXT: %cst_4 = arith.constant dense<> : tensor<0x4xf32>
// CHECK-NEXT: %cst_5 = arith.constant dense<false> : tensor<3xi1>
// CHECK-NEXT: %c-1 = arith.constant -1 : index
// CHECK-NEXT: %cst_6 = arith.constant dense<{{\[\[}}true, false], [false, true]]> : tensor<2x2xi1>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4, %cst_5, %c-1, %cst_6 : f64, f64, bf16, f64, tensor<2xf32>, tensor<0x4xf32>, tensor<3xi1>, index, tensor<2x2xi1>
// CHECK-NEXT: }
func.func @consts() -> (f64, f64, bf16, f64, tensor<2xf32>, tensor<0x4xf32>, tensor<3xi1>, index, tensor<2x2xi1>) {
  %a = arith.constant -0.0 : f64
  %b = arith.constant 1.0e-300 : f64
  %c = arith.constant 0x7FC0 : bf16
  %d = arith.constant 0x7FF0000000000000 : f64
  %e = arith.constant dense<0xFF800000> : tensor<2xf32>
  %f = arith.constant dense<> : tensor<0x4xf32>
  %g = arith.constant dense<false> : tensor<3xi1>
  %h = arith.constant -1 : index
  %i = arith.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  return %a, %b, %c, %d, %e, %f, %g, %h, %i : f64, f64, bf16, f64, tensor<2xf32>, tensor<0x4xf32>, tensor<3xi1>, index, tensor<2x2xi1>
}
// CHECK-LABEL: func.func @generic_attrs(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} ins(%arg0 : tensor<4xf32>) outs(%arg0 : tensor<4xf32>) attrs =  {kiln.flag} {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %cst = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %2 = arith.mulf %in, %cst : f32
// CHECK-NEXT: linalg.yield %2 : f32
// CHECK-NEXT: } -> tensor<4xf32>
// CHECK-NEXT: %1 = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %mapped = linalg.map { arith.divf } ins(%0, %arg0 : tensor<4xf32>, tensor<4xf32>) outs(%1 : tensor<4xf32>)
// CHECK-NEXT: return %mapped : tensor<4xf32>
// CHECK-NEXT: }
func.func @generic_attrs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"], kiln.flag} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 2.0 : f32
    %m = arith.mulf %a, %c : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %s = linalg.map ins(%r, %x : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>)
    (%p: f32, %q: f32) {
      %d = arith.divf %p, %q : f32
      linalg.yield %d : f32
    }
  return %s : tensor<4xf32>
}
// CHECK-LABEL: func.func @unused_results(%arg0: i32) {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg0 : i32
// CHECK-NEXT: %1 = arith.muli %0, %0 : i32
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @unused_results(%x: i32) {
  %0 = arith.addi %x, %x : i32
  %1 = arith.muli %0, %0 : i32
  return
}
// CHECK-LABEL: func.func @multi_result_names(%arg0: tensor<8xf32>, %arg1: tensor<8xi32>, %arg2: tensor<f32>, %arg3: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
// CHECK-NEXT: %reduced:2 = linalg.reduce ins(%arg0, %arg1 : tensor<8xf32>, tensor<8xi32>) outs(%arg2, %arg3 : tensor<f32>, tensor<i32>) dimensions = [0]
// CHECK-NEXT: (%in: f32, %in_0: i32, %init: f32, %init_1: i32) {
// CHECK-NEXT: %0 = arith.addf %in, %init : f32
// CHECK-NEXT: %1 = arith.addi %in_0, %init_1 : i32
// CHECK-NEXT: linalg.yield %0, %1 : f32, i32
// CHECK-NEXT: }
// CHECK-NEXT: return %reduced#0, %reduced#1 : tensor<f32>, tensor<i32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @multi_result_names(%t: tensor<8xf32>, %u: tensor<8xi32>, %a: tensor<f32>, %b: tensor<i32>) -> (tensor<f32>, tensor<i32>) {
  %r:2 = linalg.reduce ins(%t, %u : tensor<8xf32>, tensor<8xi32>) outs(%a, %b : tensor<f32>, tensor<i32>) dimensions = [0]
    (%x: f32, %y: i32, %ax: f32, %ay: i32) {
      %s = arith.addf %x, %ax : f32
      %v = arith.addi %y, %ay : i32
      linalg.yield %s, %v : f32, i32
    }
  return %r#0, %r#1 : tensor<f32>, tensor<i32>
}
