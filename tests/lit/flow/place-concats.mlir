// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches -o %t.mlir
// RUN: kiln-opt %t.mlir --place-concats | FileCheck %s
// RUN: kiln-opt %t.mlir --place-concats | kiln-opt --pass-pipeline=hal | FileCheck %s --check-prefix=HAL
// place-concats: the producers of a concat's pieces store them into their
// windows of the concat's type; the second takes the first's result as a
// tied operand (its kernel never reads it) and the concat dispatch goes.
// CHECK-LABEL: func.func @placed_dispatch_0(
// CHECK-SAME: %arg1: !flow.dispatch.tensor<writeonly:tensor<2x3x9xf32>>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E0]][0, 0, 0] [2, 3, 5] [1, 1, 1]
// CHECK-LABEL: func.func @placed_dispatch_1(
// CHECK-SAME: %arg1: !flow.dispatch.tensor<readonly:tensor<2x3x9xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<2x3x9xf32>>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E1]][0, 0, 5] [2, 3, 4] [1, 1, 1]
// CHECK-NOT: tensor.concat
// CHECK-LABEL: func.func @placed(
// CHECK: %[[A:.*]] = "flow.dispatch"(%arg0) {entry_point = @placed_dispatch_0::@placed_dispatch_0, workload
// CHECK-SAME: -> tensor<2x3x9xf32>
// CHECK-NEXT: %[[B:.*]] = "flow.dispatch"(%arg1, %[[A]]) {entry_point = @placed_dispatch_1::@placed_dispatch_1, tied_operands = array<i64: 1>
// CHECK-NEXT: return %[[B]]
// A piece that is an argument keeps the copy dispatch.
// CHECK-LABEL: func.func @kept_dispatch_1(
// CHECK: tensor.concat dim(2)
// CHECK-LABEL: func.func @kept(
// CHECK-NOT: tied_operands
// CHECK: return
// plan-memory: one result buffer, left uninitialized (the two windows
// cover it), bound as the first dispatch's result and as the second's
// tied operand and result.
// HAL-LABEL: func.func @placed(
// HAL: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 216 : i64, uninitialized}
// HAL: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]]) {{.*}}executable = @placed_dispatch_0
// HAL-NEXT: "hal.command_buffer.barrier"
// HAL-NEXT: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]], %[[OUT]]) {{.*}}executable = @placed_dispatch_1
// HAL: "hal.buffer_view.create"(%[[OUT]])
func.func @placed(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x9xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %b = arith.addf %y, %y : tensor<2x3x4xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  return %c : tensor<2x3x9xf32>
}
func.func @kept(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x9xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %c = tensor.concat dim(2) %a, %y : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  return %c : tensor<2x3x9xf32>
}
