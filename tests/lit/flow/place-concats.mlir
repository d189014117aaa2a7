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
// A piece that is an argument stays: the concat's dispatch copies it
// into its window, the chain's last member (tied to the placed piece's
// producer), and loses the placed piece's operand.
// CHECK-LABEL: func.func @kept_dispatch_1(
// CHECK-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<2x3x4xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<2x3x9xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<2x3x9xf32>>
// CHECK: %[[L:.*]] = "flow.dispatch.tensor.load"(%arg0)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: %[[W:.*]] = tensor.insert_slice %[[L]] into %[[E2]][0, 0, 5] [2, 3, 4] [1, 1, 1]
// CHECK: "flow.dispatch.tensor.store"(%[[W]], %arg2)
// CHECK-LABEL: func.func @kept(
// CHECK: %[[K:.*]] = "flow.dispatch"(%arg0) {entry_point = @kept_dispatch_0::@kept_dispatch_0, workload
// CHECK-SAME: -> tensor<2x3x9xf32>
// CHECK-NEXT: "flow.dispatch"(%arg1, %[[K]]) {entry_point = @kept_dispatch_1::@kept_dispatch_1, tied_operands = array<i64: 1>
// Nothing to place (arguments; a value concatenated twice): the copy stays.
// CHECK-LABEL: func.func @copied_dispatch_0(
// CHECK: tensor.concat dim(2)
// CHECK-LABEL: func.func @copied(
// CHECK-NOT: tied_operands
// CHECK: return
// CHECK-LABEL: func.func @twice_dispatch_1(
// CHECK: tensor.concat dim(2) %[[T:.*]], %[[T]] :
// CHECK-LABEL: func.func @twice(
// CHECK-NOT: tied_operands
// CHECK: return
// plan-memory: one result buffer, left uninitialized (the two windows
// cover it), bound as the first dispatch's result and as the second's
// tied operand and result, both tagged as the chain's windows: no
// barrier between them; a reader of the concat waits for both.
// HAL-LABEL: func.func @placed(
// HAL: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 216 : i64, uninitialized}
// HAL: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]]) {{.*}}executable = @placed_dispatch_0
// HAL-SAME: windows = array<i64: 0, [[TAG:[0-9]+]]>
// HAL-NEXT: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]], %[[OUT]]) {{.*}}executable = @placed_dispatch_1
// HAL-SAME: windows = array<i64: 0, [[TAG]], [[TAG]]>
// HAL: "hal.buffer_view.create"(%[[OUT]])
// HAL-LABEL: func.func @read(
// HAL: "hal.command_buffer.dispatch"({{.*}}executable = @read_dispatch_0
// HAL-NEXT: "hal.command_buffer.dispatch"({{.*}}executable = @read_dispatch_1
// HAL-NEXT: "hal.command_buffer.barrier"
// HAL-NEXT: "hal.command_buffer.dispatch"({{.*}}executable = @read_dispatch_3
// HAL-NOT: windows
// HAL-SAME: -> ()
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
func.func @copied(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x9xf32> {
  %c = tensor.concat dim(2) %x, %y : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  return %c : tensor<2x3x9xf32>
}
func.func @twice(%x: tensor<2x3x5xf32>) -> tensor<2x3x10xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %c = tensor.concat dim(2) %a, %a : (tensor<2x3x5xf32>, tensor<2x3x5xf32>) -> tensor<2x3x10xf32>
  return %c : tensor<2x3x10xf32>
}
func.func @read(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %b = arith.addf %y, %y : tensor<2x3x4xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%c : tensor<2x3x9xf32>) outs(%f : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
