// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A function returning its argument (and a view of it): two copy
// dispatches into the results' own allocations, independent of each other
// (no barrier). A transpose fused with exp, then a reshape view of the
// intermediate feeding sqrt: the view reads the same arena bytes.
// CHECK-LABEL: func.func @ret_arg(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view)
// CHECK: %[[IN:.*]] = "hal.buffer_view.buffer"(%arg0)
// CHECK-NEXT: %[[R0:.*]] = "hal.buffer.allocate"() {size = 24 : i64, uninitialized}
// CHECK-NEXT: %[[R1:.*]] = "hal.buffer.allocate"() {size = 24 : i64, uninitialized}
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[IN]], %[[R0]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[IN]], %[[R1]])
// CHECK-NEXT: "hal.command_buffer.execute"(%[[CB]])
// CHECK-LABEL: func.func @transpose_reshape_dispatch_0() {
// CHECK: linalg.generic {indexing_maps = [#map2, #map], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : memref<2x3xf32>) outs(%{{.*}} : memref<3x2xf32>)
// CHECK: math.exp
// CHECK-LABEL: func.func @transpose_reshape(%arg0: !hal.buffer_view) -> !hal.buffer_view
// CHECK: %[[A:.*]] = "hal.buffer.allocate"() {size = 64 : i64, transient, uninitialized}
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[A]]) {{{.*}}lengths = array<i64: 24, 24>, offsets = array<i64: 0, 0>
// CHECK-NEXT: "hal.command_buffer.barrier"
// CHECK-NEXT: "hal.command_buffer.dispatch"(%{{.*}}, %[[A]], %{{.*}}) {{{.*}}lengths = array<i64: 24, 24>, offsets = array<i64: 0, 0>
// CHECK: "hal.buffer_view.create"(%{{.*}}) {element_type = f32, offset = 0 : i64, shape = array<i64: 6>}
func.func @ret_arg(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %a, %r : tensor<2x3xf32>, tensor<6xf32>
}
func.func @transpose_reshape(%a: tensor<2x3xf32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %n = math.exp %t : tensor<3x2xf32>
  %f = tensor.collapse_shape %n [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  %s = math.sqrt %f : tensor<6xf32>
  return %s : tensor<6xf32>
}
