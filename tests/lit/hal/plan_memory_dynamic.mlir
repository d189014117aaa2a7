// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// plan-memory with a dynamic batch: the input's dims are read with
// hal.buffer_view.dim after the asserts ('?' accepts any size); the result
// is allocated at its run-time size; the three intermediates (16 floats
// per row each) share one transient arena of the same monomial, packed by
// liveness over their per-row sizes and scaled by the row count: 128
// bytes per row hold the two alive at once, the middle one at offset 64
// per row. Dispatches take the run-time offsets, lengths and push
// constants as operands filling the '?' entries.
// CHECK-LABEL: func.func @chain(
// CHECK: "hal.buffer_view.assert"(%arg0) {element_type = f32, input = 0 : i32, shape = array<i64: -9223372036854775808, 16>}
// CHECK: %[[N:.*]] = "hal.buffer_view.dim"(%arg0) {index = 0 : i32} : (!hal.buffer_view) -> index
// CHECK: arith.muli %[[N]], %c64
// CHECK: %[[RS:.*]] = arith.muli %[[N]], %c64{{.*}} : index
// CHECK-NEXT: %[[RES:.*]] = "hal.buffer.allocate"(%[[RS]]) {uninitialized} : (index) -> !hal.buffer
// CHECK: %[[AS:.*]] = arith.muli %[[N]], %c128 : index
// CHECK: %[[ARENA:.*]] = "hal.buffer.allocate"(%[[AS]]) {transient, uninitialized} : (index) -> !hal.buffer
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}, %[[ARENA]], {{.*}}) {constants = array<i64: -9223372036854775808>, {{.*}}lengths = array<i64: -9223372036854775808, 1024, -9223372036854775808>, offsets = array<i64: 0, 0, 0>
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[ARENA]], %{{.*}}, %[[ARENA]], {{.*}}) {{{.*}}offsets = array<i64: 0, 0, -9223372036854775808>
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[ARENA]], %{{.*}}, %[[ARENA]], {{.*}}) {{{.*}}offsets = array<i64: -9223372036854775808, 0, 0>
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[ARENA]], %{{.*}}, %[[RES]], {{.*}}) {{{.*}}offsets = array<i64: 0, 0, 0>
// CHECK: "hal.buffer_view.create"(%[[RES]], %[[N]]) {element_type = f32, offset = 0 : i64, shape = array<i64: -9223372036854775808, 16>}
func.func @chain(%a: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m1 = linalg.matmul ins(%a, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m2 = linalg.matmul ins(%m1, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m3 = linalg.matmul ins(%m2, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m4 = linalg.matmul ins(%m3, %w : tensor<?x16xf32>, tensor<16x16xf32>) outs(%z : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %m4 : tensor<?x16xf32>
}
