// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A static constant pad that is the single use of a root's value, leaving
// the innermost dim (the channels, of any count) unpadded, joins the
// root's dispatch (form-dispatch-regions): the root
// computes straight into the pad's window (bufferize-kernels, a subview
// made before any op), the border is filled around it, and nothing is
// copied. A value also read elsewhere, or a pad of the innermost dim,
// keeps the pad in a dispatch of its own.
// CHECK-LABEL: func.func @fused_dispatch_0() {
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<4x7x16xf32>
// CHECK: %[[W:.*]] = memref.subview %[[P]][1, 2, 0] [2, 3, 16] [1, 1, 1] : memref<4x7x16xf32> to memref<2x3x16xf32, strided<[112, 16, 1], offset: 144>>
// CHECK: linalg.generic {{.*}} outs(%[[W]] : memref<2x3x16xf32, strided<[112, 16, 1], offset: 144>>)
// CHECK: math.exp
// CHECK-COUNT-4: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<{{[0-9]}}x{{[0-9]}}x16xf32, strided
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func @fused(
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @fused_dispatch_0
// CHECK-NOT: "hal.command_buffer.dispatch"
// CHECK: return
// CHECK-LABEL: func.func @shared_dispatch_0() {
// CHECK: math.exp
// CHECK-NOT: linalg.fill
// CHECK: return
// CHECK-LABEL: func.func @shared_dispatch_1() {
// CHECK-COUNT-4: linalg.fill
// CHECK: linalg.generic
// CHECK-LABEL: func.func @shared(
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @shared_dispatch_0
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @shared_dispatch_1
// CHECK-LABEL: func.func @inner(
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @inner_dispatch_0
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @inner_dispatch_1
// 21 channels (not a multiple of the 16-lane vector): joins all the same.
// CHECK-LABEL: func.func @odd_dispatch_0() {
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<5x4x21xf32>
// CHECK: %[[W:.*]] = memref.subview %[[P]][1, 0, 0] [3, 3, 21] [1, 1, 1]
// CHECK: math.exp
// CHECK: linalg.fill
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func @odd(
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @odd_dispatch_0
// CHECK-NOT: "hal.command_buffer.dispatch"
// CHECK: return
func.func @fused(%a: tensor<2x3x16xf32>) -> tensor<4x7x16xf32> {
  %cst = arith.constant 0.5 : f32
  %e = math.exp %a : tensor<2x3x16xf32>
  %p = tensor.pad %e low[1, 2, 0] high[1, 2, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<2x3x16xf32> to tensor<4x7x16xf32>
  return %p : tensor<4x7x16xf32>
}
func.func @shared(%a: tensor<2x3x16xf32>) -> (tensor<4x7x16xf32>, tensor<2x3x16xf32>) {
  %cst = arith.constant 0.5 : f32
  %e = math.exp %a : tensor<2x3x16xf32>
  %p = tensor.pad %e low[1, 2, 0] high[1, 2, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<2x3x16xf32> to tensor<4x7x16xf32>
  return %p, %e : tensor<4x7x16xf32>, tensor<2x3x16xf32>
}
func.func @inner(%a: tensor<2x16xf32>) -> tensor<2x19xf32> {
  %cst = arith.constant 0.5 : f32
  %e = math.exp %a : tensor<2x16xf32>
  %p = tensor.pad %e low[0, 1] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %cst : f32
  } : tensor<2x16xf32> to tensor<2x19xf32>
  return %p : tensor<2x19xf32>
}
func.func @odd(%a: tensor<3x3x21xf32>) -> tensor<5x4x21xf32> {
  %cst = arith.constant 0.0 : f32
  %e = math.exp %a : tensor<3x3x21xf32>
  %p = tensor.pad %e low[1, 0, 0] high[1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<3x3x21xf32> to tensor<5x4x21xf32>
  return %p : tensor<5x4x21xf32>
}
