// Index linearization: aligned + offset + sum(idx_i * stride_i), with
// static strides and offsets folded to constants and dynamic ones read
// from the descriptor.
// RUN: kiln-translate --no-c-wrappers %s | FileCheck %s

// CHECK-LABEL: define float @dynamic_strided(
// CHECK: %[[D:[0-9]+]] = insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{[0-9]+}}, [2 x i64] %{{[0-9]+}}, 4
// CHECK: %[[BASE:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[D]], 1
// CHECK: %[[OFF:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[D]], 2
// CHECK: %[[STRIDES:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %[[D]], 4
// CHECK: %[[S0:[0-9]+]] = extractvalue [2 x i64] %[[STRIDES]], 0
// CHECK: %[[T0:[0-9]+]] = mul i64 %7, %[[S0]]
// CHECK: %[[A0:[0-9]+]] = add i64 %[[OFF]], %[[T0]]
// The unit stride needs no multiply.
// CHECK-NEXT: %[[A1:[0-9]+]] = add i64 %[[A0]], %8
// CHECK-NEXT: %[[P:[0-9]+]] = getelementptr float, ptr %[[BASE]], i64 %[[A1]]
// CHECK-NEXT: load float, ptr %[[P]], align 4
func.func @dynamic_strided(%m: memref<?x?xf32, strided<[?, 1], offset: ?>>, %i: index, %j: index) -> f32 {
  %0 = memref.load %m[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
  return %0 : f32
}

// CHECK-LABEL: define void @static_strided(
// CHECK: %[[BASE:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{[0-9]+}}, 1
// CHECK-NOT: extractvalue
// CHECK: %[[T0:[0-9]+]] = mul i64 %7, 16
// CHECK-NEXT: %[[A0:[0-9]+]] = add i64 5, %[[T0]]
// CHECK-NEXT: %[[T1:[0-9]+]] = mul i64 %8, 2
// CHECK-NEXT: %[[A1:[0-9]+]] = add i64 %[[A0]], %[[T1]]
// CHECK-NEXT: %[[P:[0-9]+]] = getelementptr float, ptr %[[BASE]], i64 %[[A1]]
// CHECK-NEXT: store float %9, ptr %[[P]], align 4
func.func @static_strided(%m: memref<4x8xf32, strided<[16, 2], offset: 5>>, %i: index, %j: index, %v: f32) {
  memref.store %v, %m[%i, %j] : memref<4x8xf32, strided<[16, 2], offset: 5>>
  return
}

// Identity layout: row-major strides from the static shape, offset 0.
// CHECK-LABEL: define float @identity(
// CHECK: %[[T0:[0-9]+]] = mul i64 %{{[0-9]+}}, 24
// CHECK-NEXT: %[[T1:[0-9]+]] = mul i64 %{{[0-9]+}}, 6
// CHECK-NEXT: %[[A1:[0-9]+]] = add i64 %[[T0]], %[[T1]]
// CHECK-NEXT: %[[A2:[0-9]+]] = add i64 %[[A1]], %{{[0-9]+}}
// CHECK-NEXT: getelementptr float, ptr %{{[0-9]+}}, i64 %[[A2]]
func.func @identity(%m: memref<2x4x6xf32>, %i: index, %j: index, %k: index) -> f32 {
  %0 = memref.load %m[%i, %j, %k] : memref<2x4x6xf32>
  return %0 : f32
}

// A subview's descriptor: offset += off_i * stride_i, strides scaled.
// CHECK-LABEL: define float @subview(
// CHECK: mul i64 %{{[0-9]+}}, 16
// CHECK: insertvalue { ptr, ptr, i64, [2 x i64], [2 x i64] }
// CHECK: %[[OFF:[0-9]+]] = extractvalue { ptr, ptr, i64, [2 x i64], [2 x i64] } %{{[0-9]+}}, 2
// CHECK: mul i64 %{{[0-9]+}}, 16
// CHECK: getelementptr float
func.func @subview(%m: memref<16x16xf32>, %o: index, %i: index) -> f32 {
  %s = memref.subview %m[%o, 4] [4, 4] [1, 1] : memref<16x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
  %0 = memref.load %s[%i, %i] : memref<4x4xf32, strided<[16, 1], offset: ?>>
  return %0 : f32
}
