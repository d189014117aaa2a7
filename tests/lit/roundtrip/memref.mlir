// Round trip of the memref dialect and memref types with strided layouts:
// alloc/alloca (static and dynamic, aligned), load/store, dim, cast,
// subview (static, dynamic, rank-reducing), reinterpret_cast,
// expand/collapse_shape, copy.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @alloc_load_store(%arg0: index, %arg1: f32) -> f32 {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %alloc = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: %alloc_0 = memref.alloc(%arg0) {alignment = 64 : i64} : memref<?x8xf32>
// CHECK-NEXT: %alloca = memref.alloca() : memref<16xi32>
// CHECK-NEXT: memref.store %arg1, %alloc[%c0, %c1] : memref<4x8xf32>
// CHECK-NEXT: memref.store %arg1, %alloc_0[%arg0, %c0] : memref<?x8xf32>
// CHECK-NEXT: %0 = memref.load %alloc[%c1, %c0] : memref<4x8xf32>
// CHECK-NEXT: %1 = memref.load %alloc_0[%c0, %c1] : memref<?x8xf32>
// CHECK-NEXT: %2 = arith.addf %0, %1 : f32
// CHECK-NEXT: return %2 : f32
// CHECK-NEXT: }
func.func @alloc_load_store(%n: index, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<4x8xf32>
  %b = memref.alloc(%n) {alignment = 64 : i64} : memref<?x8xf32>
  %s = memref.alloca() : memref<16xi32>
  memref.store %v, %a[%c0, %c1] : memref<4x8xf32>
  memref.store %v, %b[%n, %c0] : memref<?x8xf32>
  %x = memref.load %a[%c1, %c0] : memref<4x8xf32>
  %y = memref.load %b[%c0, %c1] : memref<?x8xf32>
  %r = arith.addf %x, %y : f32
  return %r : f32
}

// CHECK-LABEL: func.func @dim_cast(%arg0: memref<?x4xf32>, %arg1: memref<4x4xf32>) -> (index, memref<?x?xf32>, memref<4x4xf32>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %dim = memref.dim %arg0, %c0 : memref<?x4xf32>
// CHECK-NEXT: %cast = memref.cast %arg0 : memref<?x4xf32> to memref<?x?xf32>
// CHECK-NEXT: %cast_0 = memref.cast %cast : memref<?x?xf32> to memref<4x4xf32>
// CHECK-NEXT: return %dim, %cast, %cast_0 : index, memref<?x?xf32>, memref<4x4xf32>
// CHECK-NEXT: }
func.func @dim_cast(%m: memref<?x4xf32>, %s: memref<4x4xf32>) -> (index, memref<?x?xf32>, memref<4x4xf32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %m, %c0 : memref<?x4xf32>
  %0 = memref.cast %m : memref<?x4xf32> to memref<?x?xf32>
  %1 = memref.cast %0 : memref<?x?xf32> to memref<4x4xf32>
  return %d, %0, %1 : index, memref<?x?xf32>, memref<4x4xf32>
}

// CHECK-LABEL: func.func @subviews(%arg0: memref<16x32xf32>, %arg1: index, %arg2: index) -> (memref<4x8xf32, strided<[32, 1], offset: 68>>, memref<?x?xf32, strided<[32, 1], offset: ?>>, memref<8xf32, strided<[2], offset: ?>>) {
// CHECK-NEXT: %subview = memref.subview %arg0[2, 4] [4, 8] [1, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 1], offset: 68>>
// CHECK-NEXT: %subview_0 = memref.subview %arg0[%arg1, 0] [%arg2, %arg2] [1, 1] : memref<16x32xf32> to memref<?x?xf32, strided<[32, 1], offset: ?>>
// CHECK-NEXT: %subview_1 = memref.subview %arg0[%arg1, 0] [1, 8] [1, 2] : memref<16x32xf32> to memref<8xf32, strided<[2], offset: ?>>
// CHECK-NEXT: return %subview, %subview_0, %subview_1 : memref<4x8xf32, strided<[32, 1], offset: 68>>, memref<?x?xf32, strided<[32, 1], offset: ?>>, memref<8xf32, strided<[2], offset: ?>>
// CHECK-NEXT: }
func.func @subviews(%m: memref<16x32xf32>, %o: index, %s: index) -> (memref<4x8xf32, strided<[32, 1], offset: 68>>, memref<?x?xf32, strided<[32, 1], offset: ?>>, memref<8xf32, strided<[2], offset: ?>>) {
  %0 = memref.subview %m[2, 4] [4, 8] [1, 1] : memref<16x32xf32> to memref<4x8xf32, strided<[32, 1], offset: 68>>
  %1 = memref.subview %m[%o, 0] [%s, %s] [1, 1] : memref<16x32xf32> to memref<?x?xf32, strided<[32, 1], offset: ?>>
  %2 = memref.subview %m[%o, 0] [1, 8] [1, 2] : memref<16x32xf32> to memref<8xf32, strided<[2], offset: ?>>
  return %0, %1, %2 : memref<4x8xf32, strided<[32, 1], offset: 68>>, memref<?x?xf32, strided<[32, 1], offset: ?>>, memref<8xf32, strided<[2], offset: ?>>
}

// CHECK-LABEL: func.func @reinterpret(%arg0: memref<64xf32>, %arg1: index) -> (memref<8x8xf32>, memref<4x4xf32, strided<[8, 1], offset: ?>>) {
// CHECK-NEXT: %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf32> to memref<8x8xf32>
// CHECK-NEXT: %reinterpret_cast_0 = memref.reinterpret_cast %arg0 to offset: [%arg1], sizes: [4, 4], strides: [8, 1] : memref<64xf32> to memref<4x4xf32, strided<[8, 1], offset: ?>>
// CHECK-NEXT: return %reinterpret_cast, %reinterpret_cast_0 : memref<8x8xf32>, memref<4x4xf32, strided<[8, 1], offset: ?>>
// CHECK-NEXT: }
func.func @reinterpret(%m: memref<64xf32>, %off: index) -> (memref<8x8xf32>, memref<4x4xf32, strided<[8, 1], offset: ?>>) {
  %0 = memref.reinterpret_cast %m to offset: [0], sizes: [8, 8], strides: [8, 1] : memref<64xf32> to memref<8x8xf32>
  %1 = memref.reinterpret_cast %m to offset: [%off], sizes: [4, 4], strides: [8, 1] : memref<64xf32> to memref<4x4xf32, strided<[8, 1], offset: ?>>
  return %0, %1 : memref<8x8xf32>, memref<4x4xf32, strided<[8, 1], offset: ?>>
}

// CHECK-LABEL: func.func @reshapes(%arg0: memref<2x3x4xf32>, %arg1: memref<?x4xf32>, %arg2: index) -> (memref<6x4xf32>, memref<?x2x2xf32>) {
// CHECK-NEXT: %collapse_shape = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
// CHECK-NEXT: %expand_shape = memref.expand_shape %arg1 {{\[\[}}0], [1, 2]] output_shape [%arg2, 2, 2] : memref<?x4xf32> into memref<?x2x2xf32>
// CHECK-NEXT: return %collapse_shape, %expand_shape : memref<6x4xf32>, memref<?x2x2xf32>
// CHECK-NEXT: }
func.func @reshapes(%m: memref<2x3x4xf32>, %d: memref<?x4xf32>, %n: index) -> (memref<6x4xf32>, memref<?x2x2xf32>) {
  %0 = memref.collapse_shape %m [[0, 1], [2]] : memref<2x3x4xf32> into memref<6x4xf32>
  %1 = memref.expand_shape %d [[0], [1, 2]] output_shape [%n, 2, 2] : memref<?x4xf32> into memref<?x2x2xf32>
  return %0, %1 : memref<6x4xf32>, memref<?x2x2xf32>
}

// CHECK-LABEL: func.func @copy(%arg0: memref<4x4xf32>, %arg1: memref<4x4xf32, strided<[8, 1]>>) {
// CHECK-NEXT: memref.copy %arg0, %arg1 : memref<4x4xf32> to memref<4x4xf32, strided<[8, 1]>>
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @copy(%a: memref<4x4xf32>, %b: memref<4x4xf32, strided<[8, 1]>>) {
  memref.copy %a, %b : memref<4x4xf32> to memref<4x4xf32, strided<[8, 1]>>
  return
}
