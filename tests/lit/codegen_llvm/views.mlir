// Views build new descriptors over the same pointers; alloca allocates in
// the entry block; unranked memrefs are {i64 rank, ptr descriptor}.
// RUN: kiln-translate --no-c-wrappers %s | FileCheck %s

// An unranked argument expands to (rank, descriptor pointer); a cast to a
// ranked memref loads the descriptor.
// CHECK-LABEL: define float @unranked(i64 %0, ptr %1, i64 %2)
// CHECK: insertvalue { i64, ptr } undef, i64 %0, 0
// CHECK: %[[P:[0-9]+]] = extractvalue { i64, ptr } %{{[0-9]+}}, 1
// CHECK-NEXT: load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %[[P]]
func.func @unranked(%u: memref<*xf32>, %i: index) -> f32 {
  %m = memref.cast %u : memref<*xf32> to memref<?xf32>
  %0 = memref.load %m[%i] : memref<?xf32>
  return %0 : f32
}

// Ranked to unranked spills the descriptor into an entry-block alloca.
// CHECK-LABEL: define { i64, ptr } @to_unranked(
// CHECK-NEXT: entry:
// CHECK-NEXT: %[[S:[0-9]+]] = alloca { ptr, ptr, i64, [2 x i64], [2 x i64] }, align 8
// CHECK: store { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{[0-9]+}}, ptr %[[S]]
// CHECK: insertvalue { i64, ptr } { i64 2, ptr undef }, ptr %[[S]], 1
func.func @to_unranked(%m: memref<4x4xf32>) -> memref<*xf32> {
  %u = memref.cast %m : memref<4x4xf32> to memref<*xf32>
  return %u : memref<*xf32>
}

// A static alloca sits first in the entry block with its alignment; its
// descriptor has row-major strides.
// CHECK-LABEL: define float @scratch(
// CHECK-NEXT: entry:
// CHECK-NEXT: %[[A:[0-9]+]] = alloca float, i64 24, align 64
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } {{.*}}, [2 x i64] [i64 6, i64 1], 4
func.func @scratch(%i: index) -> f32 {
  %a = memref.alloca() {alignment = 64 : i64} : memref<4x6xf32>
  %0 = memref.load %a[%i, %i] : memref<4x6xf32>
  return %0 : f32
}

// collapse_shape: sizes multiply, the stride is the innermost one;
// expand_shape: strides grow outwards from the source stride.
// CHECK-LABEL: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @reshape(
// CHECK: insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } {{.*}}, [1 x i64] [i64 24], 3
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } {{.*}}, [2 x i64] [i64 3, i64 8], 3
// CHECK-NEXT: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } {{.*}}, [2 x i64] [i64 8, i64 1], 4
func.func @reshape(%m: memref<4x6xf32>) -> memref<3x8xf32> {
  %c = memref.collapse_shape %m [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  %e = memref.expand_shape %c [[0, 1]] output_shape [3, 8] : memref<24xf32> into memref<3x8xf32>
  return %e : memref<3x8xf32>
}

// dim: static sizes are constants, dynamic ones read from the descriptor.
// CHECK-LABEL: define i64 @dims(
// CHECK: %[[SZ:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{[0-9]+}}, 3
// CHECK-NEXT: %[[D1:[0-9]+]] = extractvalue [2 x i64] %[[SZ]], 1
// CHECK-NEXT: %[[R:[0-9]+]] = add i64 4, %[[D1]]
// CHECK-NEXT: ret i64 %[[R]]
func.func @dims(%m: memref<4x?xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = memref.dim %m, %c0 : memref<4x?xf32>
  %1 = memref.dim %m, %c1 : memref<4x?xf32>
  %2 = arith.addi %0, %1 : index
  return %2 : index
}

// reinterpret_cast takes the pointers and states offset/sizes/strides.
// CHECK-LABEL: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @reinterpret(
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } {{.*}}, i64 2, 2
// CHECK: [2 x i64] [i64 2, i64 5]
// CHECK: [2 x i64] [i64 5, i64 1]
func.func @reinterpret(%m: memref<12xf32>) -> memref<2x5xf32, strided<[5, 1], offset: 2>> {
  %r = memref.reinterpret_cast %m to offset: [2], sizes: [2, 5], strides: [5, 1] : memref<12xf32> to memref<2x5xf32, strided<[5, 1], offset: 2>>
  return %r : memref<2x5xf32, strided<[5, 1], offset: 2>>
}
