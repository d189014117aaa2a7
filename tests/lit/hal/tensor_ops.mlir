// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// Data-movement tensor ops in kernels: slices become memref.subview
// windows (strided layouts) copied by identity generics; an extract_slice
// feeding exp is read in place by exp through an offset map (fold-views),
// no copy; an insert copies its destination first; pad fills the border
// around the window at `low` (per dim, the slabs below and above it,
// within the window along the dims before) and copies into the window;
// concat copies each input at its offset along `dim`.
// CHECK: #[[OFF:map[0-9]*]] = affine_map<(d0, d1) -> (d0 + 1, d1 + 2)>
// CHECK-LABEL: func.func @slices_dispatch_0() {
// CHECK: %[[SRC:.*]] = hal.interface.binding {binding = 0 : i32} : memref<4x6xf32>
// CHECK: %[[OUT:.*]] = hal.interface.binding {binding = 1 : i32} : memref<2x3xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [#[[OFF]], #{{map[0-9]*}}], {{.*}} ins(%[[SRC]] : memref<4x6xf32>) outs(%[[OUT]] : memref<2x3xf32>)
// CHECK: math.exp
// CHECK-LABEL: func.func @slices_dispatch_1() {
// CHECK: %[[B:.*]] = hal.interface.binding {binding = 0 : i32} : memref<2x3xf32>
// CHECK: %[[A:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4x6xf32>
// CHECK: %[[O:.*]] = hal.interface.binding {binding = 2 : i32} : memref<4x6xf32>
// CHECK: linalg.generic {{.*}} ins(%[[A]] : memref<4x6xf32>) outs(%[[O]] : memref<4x6xf32>)
// CHECK: %[[W:.*]] = memref.subview %[[O]][2, 0] [2, 3] [1, 2] : memref<4x6xf32> to memref<2x3xf32, strided<[6, 2], offset: 12>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[B]] : memref<2x3xf32>) outs(%[[W]] : memref<2x3xf32, strided<[6, 2], offset: 12>>)
// CHECK-LABEL: func.func @slices_dispatch_2() {
// CHECK: memref.subview %{{.*}}[3, 0] [1, 3] [1, 2] : memref<4x6xf32> to memref<3xf32, strided<[2], offset: 18>>
// CHECK-LABEL: func.func @pad_concat_dispatch_0() {
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4x7xf32>
// CHECK: %[[V:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[B0:.*]] = memref.subview %[[P]][0, 0] [1, 7] [1, 1] : memref<4x7xf32> to memref<1x7xf32, strided<[7, 1]>>
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32) outs(%[[B0]] :
// CHECK-NEXT: %[[B1:.*]] = memref.subview %[[P]][3, 0] [1, 7] [1, 1] : memref<4x7xf32> to memref<1x7xf32, strided<[7, 1], offset: 21>>
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32) outs(%[[B1]] :
// CHECK-NEXT: %[[B2:.*]] = memref.subview %[[P]][1, 0] [2, 2] [1, 1] : memref<4x7xf32> to memref<2x2xf32, strided<[7, 1], offset: 7>>
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32) outs(%[[B2]] :
// CHECK-NEXT: %[[B3:.*]] = memref.subview %[[P]][1, 5] [2, 2] [1, 1] : memref<4x7xf32> to memref<2x2xf32, strided<[7, 1], offset: 12>>
// CHECK-NEXT: linalg.fill ins(%[[V]] : f32) outs(%[[B3]] :
// CHECK-NOT: linalg.fill
// CHECK: %[[PW:.*]] = memref.subview %[[P]][1, 2] [2, 3] [1, 1] : memref<4x7xf32> to memref<2x3xf32, strided<[7, 1], offset: 9>>
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[PW]] : memref<2x3xf32, strided<[7, 1], offset: 9>>)
// CHECK-LABEL: func.func @pad_concat_dispatch_1() {
// CHECK: memref.subview %[[C:.*]][0, 0] [2, 3] [1, 1] : memref<2x5xf32> to memref<2x3xf32, strided<[5, 1]>>
// CHECK: memref.subview %[[C]][0, 3] [2, 2] [1, 1] : memref<2x5xf32> to memref<2x2xf32, strided<[5, 1], offset: 3>>
// CHECK-LABEL: func.func @pad_concat(
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @pad_concat_dispatch_0, lengths = array<i64: 24, 112>
// CHECK-NEXT: "hal.command_buffer.dispatch"({{.*}}executable = @pad_concat_dispatch_1, lengths = array<i64: 24, 16, 40>
func.func @slices(%a: tensor<4x6xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x6xf32>, tensor<3xf32>) {
  %s = tensor.extract_slice %a[1, 2] [2, 3] [1, 1] : tensor<4x6xf32> to tensor<2x3xf32>
  %e = math.exp %s : tensor<2x3xf32>
  %i = tensor.insert_slice %b into %a[2, 0] [2, 3] [1, 2] : tensor<2x3xf32> into tensor<4x6xf32>
  %r = tensor.extract_slice %a[3, 0] [1, 3] [1, 2] : tensor<4x6xf32> to tensor<3xf32>
  return %e, %i, %r : tensor<2x3xf32>, tensor<4x6xf32>, tensor<3xf32>
}
func.func @pad_concat(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> (tensor<4x7xf32>, tensor<2x5xf32>) {
  %cst = arith.constant 0.5 : f32
  %p = tensor.pad %a low[1, 2] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<2x3xf32> to tensor<4x7xf32>
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %p, %c : tensor<4x7xf32>, tensor<2x5xf32>
}
