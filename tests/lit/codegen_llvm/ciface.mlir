// Public functions get a C-compatible wrapper taking descriptors by
// pointer; a struct result goes through a pointer passed first. Private
// functions get none and are internal.
// RUN: kiln-translate %s | FileCheck %s

// CHECK-LABEL: define internal float @hidden(float %0)
func.func private @hidden(%a: f32) -> f32 {
  return %a : f32
}

// CHECK-LABEL: define void @_mlir_ciface_scale(ptr %0, float %1)
// CHECK-NEXT: entry:
// CHECK-NEXT: %[[D:[0-9]+]] = load { ptr, ptr, i64, [1 x i64], [1 x i64] }, ptr %0, align 8
// CHECK-NEXT: %[[A:[0-9]+]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[D]], 0
// CHECK-NEXT: %[[B:[0-9]+]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[D]], 1
// CHECK-NEXT: %[[O:[0-9]+]] = extractvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } %[[D]], 2
// CHECK: call void @scale(ptr %[[A]], ptr %[[B]], i64 %[[O]], i64 %{{[0-9]+}}, i64 %{{[0-9]+}}, float %1)
// CHECK-NEXT: ret void
func.func @scale(%m: memref<?xf32>, %s: f32) {
  return
}

// CHECK-LABEL: define void @_mlir_ciface_pair(ptr %0, i32 %1)
// CHECK-NEXT: entry:
// CHECK-NEXT: %[[R:[0-9]+]] = call { i32, i32 } @pair(i32 %1)
// CHECK-NEXT: store { i32, i32 } %[[R]], ptr %0
// CHECK-NEXT: ret void
func.func @pair(%a: i32) -> (i32, i32) {
  return %a, %a : i32, i32
}
// CHECK-NOT: _mlir_ciface_hidden
