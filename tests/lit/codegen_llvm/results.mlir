// Several results are packed into a struct; a call unpacks it.
// RUN: kiln-translate --no-c-wrappers %s | FileCheck %s

// CHECK-LABEL: define { i32, float, i64 } @multi(i32 %0, float %1, i64 %2)
// CHECK-NEXT: entry:
// CHECK-NEXT: %[[A:[0-9]+]] = insertvalue { i32, float, i64 } undef, i32 %0, 0
// CHECK-NEXT: %[[B:[0-9]+]] = insertvalue { i32, float, i64 } %[[A]], float %1, 1
// CHECK-NEXT: %[[C:[0-9]+]] = insertvalue { i32, float, i64 } %[[B]], i64 %2, 2
// CHECK-NEXT: ret { i32, float, i64 } %[[C]]
func.func @multi(%a: i32, %b: f32, %c: index) -> (i32, f32, index) {
  return %a, %b, %c : i32, f32, index
}

// A memref result is its descriptor.
// CHECK-LABEL: define { ptr, ptr, i64, [1 x i64], [1 x i64] } @id(
func.func @id(%m: memref<?xf32>) -> memref<?xf32> {
  return %m : memref<?xf32>
}

// CHECK-LABEL: define float @caller(
// CHECK: %[[R:[0-9]+]] = call { i32, float, i64 } @multi(i32 %0, float %1, i64 7)
// CHECK-NEXT: extractvalue { i32, float, i64 } %[[R]], 0
// CHECK-NEXT: %[[F:[0-9]+]] = extractvalue { i32, float, i64 } %[[R]], 1
// CHECK-NEXT: extractvalue { i32, float, i64 } %[[R]], 2
// CHECK-NEXT: ret float %[[F]]
func.func @caller(%a: i32, %b: f32) -> f32 {
  %c = arith.constant 7 : index
  %0:3 = call @multi(%a, %b, %c) : (i32, f32, index) -> (i32, f32, index)
  return %0#1 : f32
}
