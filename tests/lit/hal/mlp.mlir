// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow,hal | kiln-opt - --pass-pipeline=hal | FileCheck %s
// The MLP through flow and hal, for two targets: one variant per target,
// each with the export and its own bufferized kernel; matmul, bias and
// relu computed in place in the output binding; the intermediate between
// the two dispatches in the transient arena; one barrier.
// CHECK-LABEL: "hal.executable"() ({
// CHECK-NEXT: "hal.executable.variant"() ({
// CHECK-NEXT: "hal.executable.export"() {binding_count = 4 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 7 : i32, sym_name = "mlp_dispatch_0", workload = array<i64: 4, 16>, written_mask = 8 : i32}
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @mlp_dispatch_0() {
// CHECK-NEXT: %[[A:.*]] = hal.interface.binding {binding = 0 : i32} : memref<4x8xf32>
// CHECK-NEXT: %[[W:.*]] = hal.interface.binding {binding = 1 : i32} : memref<8x16xf32>
// CHECK-NEXT: %[[B:.*]] = hal.interface.binding {binding = 2 : i32} : memref<16xf32>
// CHECK-NEXT: %[[O:.*]] = hal.interface.binding {binding = 3 : i32} : memref<4x16xf32>
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.fill ins(%[[Z]] : f32) outs(%[[O]] : memref<4x16xf32>)
// CHECK-NEXT: linalg.matmul ins(%[[A]], %[[W]] : memref<4x8xf32>, memref<8x16xf32>) outs(%[[O]] : memref<4x16xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[O]], %[[B]] : memref<4x16xf32>, memref<16xf32>) outs(%[[O]] : memref<4x16xf32>)
// CHECK: }) {sym_name = "llvm_cpu_x86_64", target = "llvm-cpu:x86_64"}
// CHECK-NEXT: "hal.executable.variant"() ({
// CHECK-NEXT: "hal.executable.export"() {binding_count = 4 : i32
// CHECK: func.func @mlp_dispatch_0() {
// CHECK: }) {sym_name = "llvm_cpu_aarch64", target = "llvm-cpu:aarch64"}
// CHECK-NEXT: }) {sym_name = "mlp_dispatch_0", sym_visibility = "private"}
// CHECK: func.func @mlp_dispatch_1() {
// CHECK: linalg.softmax dimension(1) ins(%{{.*}} : memref<4x16xf32>) outs(%{{.*}} : memref<4x16xf32>)
// CHECK: "hal.rodata"() {index = 0 : i32, sym_name = "__rodata_0", sym_visibility = "private", value = dense<5.000000e-01> : tensor<8x16xf32>}
// CHECK-NEXT: "hal.rodata"() {index = 1 : i32, sym_name = "__rodata_1"
// CHECK-NEXT: func.func @mlp(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<4x8xf32>) -> tensor<4x16xf32>}
// CHECK-NEXT: "hal.buffer_view.assert"(%arg0) {element_type = f32, input = 0 : i32, shape = array<i64: 4, 8>}
// CHECK-NEXT: %[[IN:.*]] = "hal.buffer_view.buffer"(%arg0)
// CHECK-NEXT: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 256 : i64, uninitialized}
// CHECK-NEXT: %[[AR:.*]] = "hal.buffer.allocate"() {size = 256 : i64, transient, uninitialized}
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK-NEXT: %[[R0:.*]] = "hal.buffer.rodata"() {index = 0 : i32}
// CHECK-NEXT: %[[R1:.*]] = "hal.buffer.rodata"() {index = 1 : i32}
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[IN]], %[[R0]], %[[R1]], %[[AR]]) {constants = array<i32>, executable = @mlp_dispatch_0, lengths = array<i64: 128, 512, 64, 256>, offsets = array<i64: 0, 0, 0, 0>, ordinal = 0 : i32, readonly_mask = 7 : i32, workload = array<i64: 4, 16>}
// CHECK-NEXT: "hal.command_buffer.barrier"(%[[CB]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[AR]], %[[OUT]]) {{{.*}}executable = @mlp_dispatch_1
// CHECK-NEXT: "hal.command_buffer.execute"(%[[CB]])
// CHECK-NEXT: "hal.device.wait"()
// CHECK-NEXT: %[[V:.*]] = "hal.buffer_view.create"(%[[OUT]]) {element_type = f32, offset = 0 : i64, shape = array<i64: 4, 16>}
// CHECK-NEXT: return %[[V]] : !hal.buffer_view
module attributes {kiln.targets = ["llvm-cpu:x86_64", "llvm-cpu:aarch64"]} {
func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.5> : tensor<8x16xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<4x16xf32>) dimensions = [0]
  %a = arith.addf %m, %bb : tensor<4x16xf32>
  %zs = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = arith.maximumf %a, %zs : tensor<4x16xf32>
  %s = linalg.softmax dimension(1) ins(%r : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
}
