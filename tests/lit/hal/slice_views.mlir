// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// Slices read in place: a static extract_slice whose single reader is a
// linalg input or a concat piece joins that reader's dispatch
// (form-dispatch-regions), where it is a memref.subview of the source's
// binding, not a copy (bufferize-kernels): the sqrt reads channels 0-4 of
// the exp's result through a view (and is not computed in place over a
// copy of them), the concat copies channels 5-11 straight from it. Three
// dispatches, no slice dispatch, no alloca.
// CHECK-LABEL: func.func @split_dispatch_1() {
// CHECK: %[[B0:.*]] = hal.interface.binding {binding = 0 : i32} : memref<2x4x5x12xf32>
// CHECK: %[[B1:.*]] = hal.interface.binding {binding = 1 : i32} : memref<2x4x5x5xf32>
// CHECK: %[[V:.*]] = memref.subview %[[B0]][0, 0, 0, 0] [2, 4, 5, 5] [1, 1, 1, 1] : memref<2x4x5x12xf32> to memref<2x4x5x5xf32, strided<[240, 60, 12, 1]>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[V]] : memref<2x4x5x5xf32, strided<[240, 60, 12, 1]>>) outs(%[[B1]] : memref<2x4x5x5xf32>)
// CHECK: math.sqrt
// CHECK-LABEL: func.func @split_dispatch_2() {
// CHECK: %[[C0:.*]] = hal.interface.binding {binding = 0 : i32} : memref<2x4x5x12xf32>
// CHECK: %[[S:.*]] = memref.subview %[[C0]][0, 0, 0, 5] [2, 4, 5, 7] [1, 1, 1, 1] : memref<2x4x5x12xf32> to memref<2x4x5x7xf32, strided<[240, 60, 12, 1], offset: 5>>
// CHECK: linalg.generic {{.*}} ins(%[[S]] : memref<2x4x5x7xf32, strided<[240, 60, 12, 1], offset: 5>>)
// CHECK-NOT: memref.alloca
// CHECK-LABEL: func.func @split(
// CHECK-COUNT-3: "hal.command_buffer.dispatch"
// CHECK-NOT: "hal.command_buffer.dispatch"
func.func @split(%a: tensor<2x4x5x12xf32>) -> tensor<2x4x5x12xf32> {
  %x = math.exp %a : tensor<2x4x5x12xf32>
  %s1 = tensor.extract_slice %x[0, 0, 0, 0] [2, 4, 5, 5] [1, 1, 1, 1] : tensor<2x4x5x12xf32> to tensor<2x4x5x5xf32>
  %e = math.sqrt %s1 : tensor<2x4x5x5xf32>
  %s2 = tensor.extract_slice %x[0, 0, 0, 5] [2, 4, 5, 7] [1, 1, 1, 1] : tensor<2x4x5x12xf32> to tensor<2x4x5x7xf32>
  %c = tensor.concat dim(3) %s2, %e : (tensor<2x4x5x7xf32>, tensor<2x4x5x5xf32>) -> tensor<2x4x5x12xf32>
  return %c : tensor<2x4x5x12xf32>
}
