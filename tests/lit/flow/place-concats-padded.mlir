// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,share-pads,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches -o %t.mlir
// RUN: kiln-opt %t.mlir --place-concats | FileCheck %s
// RUN: kiln-opt %t.mlir --place-concats | kiln-opt --pass-pipeline=hal | FileCheck %s --check-prefix=HAL
// place-concats with a padded concatenation (form-dispatch-regions fused
// the pad into the concat's dispatch): the producers store their pieces
// into windows of the padded type, at the pad's low amounts in the other
// dims; the concat's dispatch stays as the chain's last member and
// writes only the border (a pad of a tensor.empty).
// CHECK-LABEL: func.func @padded_dispatch_0(
// CHECK-SAME: %arg1: !flow.dispatch.tensor<writeonly:tensor<2x6x9xf32>>
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<2x6x9xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E0]][0, 1, 0] [2, 3, 5] [1, 1, 1]
// CHECK-LABEL: func.func @padded_dispatch_1(
// CHECK-SAME: %arg1: !flow.dispatch.tensor<readonly:tensor<2x6x9xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<2x6x9xf32>>
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<2x6x9xf32>
// CHECK: tensor.insert_slice %{{.*}} into %[[E1]][0, 1, 5] [2, 3, 4] [1, 1, 1]
// CHECK-LABEL: func.func @padded_dispatch_2(
// CHECK-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<2x6x9xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<2x6x9xf32>>
// CHECK-NOT: flow.dispatch.tensor.load
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[E2]] low[0, 1, 0] high[0, 2, 0]
// CHECK: "flow.dispatch.tensor.store"(%[[P]], %arg1)
// CHECK-LABEL: func.func @padded(
// CHECK: %[[A:.*]] = "flow.dispatch"(%arg0) {entry_point = @padded_dispatch_0::@padded_dispatch_0, workload
// CHECK-SAME: -> tensor<2x6x9xf32>
// CHECK-NEXT: %[[B:.*]] = "flow.dispatch"(%arg1, %[[A]]) {entry_point = @padded_dispatch_1::@padded_dispatch_1, tied_operands = array<i64: 1>
// CHECK-NEXT: %[[C:.*]] = "flow.dispatch"(%[[B]]) {entry_point = @padded_dispatch_2::@padded_dispatch_2, tied_operands = array<i64: 0>
// CHECK-NEXT: return %[[C]]
// The concatenation also read by an elementwise op (share-pads: it reads
// the pad's interior, so the pad is the concat's only reader).
// CHECK-LABEL: func.func @shared_dispatch_2(
// CHECK: %[[E3:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: tensor.pad %[[E3]] low[0, 1, 0] high[0, 1, 0]
// CHECK-LABEL: func.func @shared_dispatch_3(
// CHECK-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<2x5x9xf32>>
// CHECK-LABEL: func.func @shared(
// CHECK: %[[S1:.*]] = "flow.dispatch"(%arg1, %{{.*}}) {entry_point = @shared_dispatch_1::@shared_dispatch_1, tied_operands = array<i64: 1>
// CHECK-NEXT: %[[S2:.*]] = "flow.dispatch"(%[[S1]]) {entry_point = @shared_dispatch_2::@shared_dispatch_2, tied_operands = array<i64: 0>
// CHECK-NEXT: %[[S3:.*]] = "flow.dispatch"(%[[S2]]) {entry_point = @shared_dispatch_3::@shared_dispatch_3,
// CHECK-NEXT: return %[[S2]], %[[S3]]
// A piece that stays (an argument): the last member copies it into its
// window and fills the border.
// CHECK-LABEL: func.func @kept_dispatch_1(
// CHECK-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<2x3x4xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<2x5x9xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<2x5x9xf32>>
// CHECK: %[[L:.*]] = "flow.dispatch.tensor.load"(%arg0)
// CHECK: %[[E4:.*]] = tensor.empty() : tensor<2x3x9xf32>
// CHECK: %[[W:.*]] = tensor.insert_slice %[[L]] into %[[E4]][0, 0, 5] [2, 3, 4] [1, 1, 1]
// CHECK: %[[P4:.*]] = tensor.pad %[[W]] low[0, 1, 0] high[0, 1, 0]
// CHECK: "flow.dispatch.tensor.store"(%[[P4]], %arg2)
// A pad along the concat dim stays a dispatch of its own (form-dispatch-
// regions does not fuse pads of the innermost dim): the concat is placed
// as without it.
// CHECK-LABEL: func.func @concat_dim_dispatch_3(
// CHECK: tensor.pad %{{.*}} low[0, 0, 1] high[0, 0, 1]
// CHECK-LABEL: func.func @concat_dim(
// CHECK: tied_operands = array<i64: 1>
// CHECK-NEXT: "flow.dispatch"(%{{.*}}) {entry_point = @concat_dim_dispatch_3::@concat_dim_dispatch_3, workload
// plan-memory: one uninitialized buffer (the windows and the border cover
// it), all three members tagged as the chain's windows: no barrier
// between them; the bufferized border kernel fills the border only.
// HAL-LABEL: func.func @padded_dispatch_2(
// HAL-NOT: memref.alloca
// HAL-NOT: linalg.generic
// HAL: linalg.fill {{.*}} outs(%{{.*}} : memref<2x1x9xf32, strided<[54, 9, 1]>>)
// HAL: linalg.fill {{.*}} outs(%{{.*}} : memref<2x2x9xf32, strided<[54, 9, 1], offset: 36>>)
// HAL-NEXT: return
// HAL-LABEL: func.func @padded(
// HAL: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 432 : i64, uninitialized}
// HAL-NOT: hal.command_buffer.barrier
// HAL: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]]) {{.*}}executable = @padded_dispatch_0
// HAL-SAME: windows = array<i64: 0, [[TAG:[0-9]+]]>
// HAL-NEXT: "hal.command_buffer.dispatch"(%{{.*}}, %{{.*}}, %[[OUT]], %[[OUT]]) {{.*}}executable = @padded_dispatch_1
// HAL-SAME: windows = array<i64: 0, [[TAG]], [[TAG]]>
// HAL-NEXT: "hal.command_buffer.dispatch"(%{{.*}}, %[[OUT]], %[[OUT]]) {{.*}}executable = @padded_dispatch_2
// HAL-SAME: windows = array<i64: [[TAG]], [[TAG]]>
func.func @padded(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x6x9xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %b = arith.addf %y, %y : tensor<2x3x4xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 1, 0] high[0, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %z : f32
  } : tensor<2x3x9xf32> to tensor<2x6x9xf32>
  return %p : tensor<2x6x9xf32>
}
func.func @shared(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> (tensor<2x5x9xf32>, tensor<2x3x9xf32>) {
  %a = math.exp %x : tensor<2x3x5xf32>
  %b = arith.addf %y, %y : tensor<2x3x4xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  %m = arith.constant 0xFF800000 : f32
  %p = tensor.pad %c low[0, 1, 0] high[0, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %m : f32
  } : tensor<2x3x9xf32> to tensor<2x5x9xf32>
  %n = math.tanh %c : tensor<2x3x9xf32>
  return %p, %n : tensor<2x5x9xf32>, tensor<2x3x9xf32>
}
func.func @kept(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x5x9xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %c = tensor.concat dim(2) %a, %y : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 1, 0] high[0, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %z : f32
  } : tensor<2x3x9xf32> to tensor<2x5x9xf32>
  return %p : tensor<2x5x9xf32>
}
func.func @concat_dim(%x: tensor<2x3x5xf32>, %y: tensor<2x3x4xf32>) -> tensor<2x3x11xf32> {
  %a = math.exp %x : tensor<2x3x5xf32>
  %b = arith.addf %y, %y : tensor<2x3x4xf32>
  %c = tensor.concat dim(2) %a, %b : (tensor<2x3x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x9xf32>
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index):
    tensor.yield %z : f32
  } : tensor<2x3x9xf32> to tensor<2x3x11xf32>
  return %p : tensor<2x3x11xf32>
}
