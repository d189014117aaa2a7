// Attribute and type spellings, carried by unregistered ops; the CHECK
// lines are mlir-opt-19 --allow-unregistered-dialect output for this file.
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck --match-full-lines %s
// RUN: kiln-opt --allow-unregistered-dialect %s > %t.1 && kiln-opt --allow-unregistered-dialect %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt --allow-unregistered-dialect %s | diff - %t.1
// RUN: mlir-opt --allow-unregistered-dialect %t.1 | diff - %t.1

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: #map1 = affine_map<(d0)[s0] -> (d0 + s0, d0 * 2 - s0, d0 floordiv 4, d0 mod 3, (d0 + 1) ceildiv 2, -d0, 3)>
// CHECK: #map2 = affine_map<() -> (0)>
// CHECK: module {
// CHECK:   func.func @types(%arg0: memref<4x8xf32, strided<[8, 1], offset: 4>>, %arg1: memref<?x?xf16, strided<[?, 1], offset: ?>>, %arg2: vector<4x8xbf16>, %arg3: memref<4xi8, 1>, %arg4: memref<4x4xf32, #map>, %arg5: tensor<*xf32>, %arg6: memref<*xf32>, %arg7: !llvm.ptr, %arg8: tuple<i32, f32>, %arg9: ui8, %arg10: si16, %arg11: i1, %arg12: tensor<f64>, %arg13: memref<f32>) {
// CHECK:     "test.op"() {arr = [1, 2.000000e+00, "s", @sym, [true]], b = true, bools = dense<[true, false, true]> : tensor<3xi1>, d = {x = 1 : index, y}, da = array<i64: 1, 2, 3>, db = array<f32: 1.000000e+00, 2.500000e+00>, de = array<i32>, f = 1.500000e+00 : f64, fn = (i32) -> (f32, f32), g = 2.500000e+00 : f16, i = 42 : i64, j = -7 : i16, m = #map1, m0 = #map2, nested = @a::@b, s = "hello \22x\22\0A", t = tensor<4xf32>, unit} : () -> ()
// CHECK:     %0 = "test.op2"() {v = dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi64>, w = dense<0x7FC00000> : tensor<2xf32>, x = dense<-1> : vector<4xi32>} : () -> i32
// CHECK:     %1:2 = "test.op3"(%0) : (i32) -> (f32, i64)
// CHECK:     "test.op4"(%1#1, %1#0) : (i64, f32) -> ()
// CHECK:     return
// CHECK:   }
// CHECK: }
func.func @types(%a: memref<4x8xf32, strided<[8, 1], offset: 4>>, %b: memref<?x?xf16, strided<[?, 1], offset: ?>>, %c: vector<4x8xbf16>, %d: memref<4xi8, 1>, %e: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, %f: tensor<*xf32>, %g: memref<*xf32>, %h: !llvm.ptr, %i: tuple<i32, f32>, %j: ui8, %k: si16, %l: i1, %m: tensor<f64>, %n: memref<f32>) {
  "test.op"() {unit, b = true, i = 42, j = -7 : i16, f = 1.5 : f64, g = 2.5 : f16, s = "hello \"x\"\n", arr = [1, 2.0, "s", @sym, [true]], d = {x = 1 : index, y}, t = tensor<4xf32>, fn = (i32) -> (f32, f32), da = array<i64: 1, 2, 3>, db = array<f32: 1.0, 2.5>, de = array<i32>, bools = dense<[true, false, true]> : tensor<3xi1>, nested = @a::@b, m = affine_map<(d0)[s0] -> (d0 + s0, d0 * 2 - s0, d0 floordiv 4, d0 mod 3, (d0 + 1) ceildiv 2, -d0, 3)>, m0 = affine_map<() -> (0)>} : () -> ()
  %0 = "test.op2"() {v = dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>, w = dense<0x7FC00000> : tensor<2xf32>, x = dense<-1> : vector<4xi32>} : () -> (i32)
  %1:2 = "test.op3"(%0) : (i32) -> (f32, i64)
  "test.op4"(%1#1, %1#0) : (i64, f32) -> ()
  return
}
