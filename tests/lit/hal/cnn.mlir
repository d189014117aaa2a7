// RUN: kiln-opt %s --pass-pipeline=flow,hal | FileCheck %s
// A small CNN: conv (root) + relu fused in place into the output binding;
// max pooling as its own dispatch (its window operand is scratch: a
// memref.alloca); the conv weights are rodata.
// CHECK-LABEL: func.func @cnn_dispatch_0() {
// CHECK: %[[O:.*]] = hal.interface.binding {binding = 2 : i32} : memref<1x6x6x4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[O]] : memref<1x6x6x4xf32>)
// CHECK-NEXT: linalg.conv_2d_nhwc_hwcf {{.*}} outs(%[[O]] : memref<1x6x6x4xf32>)
// CHECK-NEXT: linalg.generic {{.*}} ins(%[[O]] : memref<1x6x6x4xf32>) outs(%[[O]] : memref<1x6x6x4xf32>)
// CHECK: arith.maximumf
// CHECK: }) {sym_name = "llvm_cpu_x86_64", target = "llvm-cpu:x86_64"}
// CHECK: }) {sym_name = "llvm_cpu_aarch64", target = "llvm-cpu:aarch64"}
// CHECK-LABEL: func.func @cnn_dispatch_1() {
// CHECK: %[[WIN:.*]] = memref.alloca() : memref<2x2xf32>
// CHECK: linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %[[WIN]] : memref<1x6x6x4xf32>, memref<2x2xf32>) outs(%{{.*}} : memref<1x3x3x4xf32>)
// CHECK: "hal.rodata"() {index = 0 : i32, sym_name = "__rodata_0", sym_visibility = "private", value = dense<2.500000e-01> : tensor<3x3x3x4xf32>}
// CHECK-LABEL: func.func @cnn(%arg0: !hal.buffer_view) -> !hal.buffer_view
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @cnn_dispatch_0, lengths = array<i64: 768, 432, 576>
// CHECK-NEXT: "hal.command_buffer.barrier"
// CHECK-NEXT: "hal.command_buffer.dispatch"({{.*}}executable = @cnn_dispatch_1, lengths = array<i64: 576, 144>
module attributes {kiln.targets = ["llvm-cpu:x86_64", "llvm-cpu:aarch64"]} {
func.func @cnn(%x: tensor<1x8x8x3xf32>) -> tensor<1x3x3x4xf32> {
  %w = arith.constant dense<0.25> : tensor<3x3x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x6x6x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%z : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %zs = arith.constant dense<0.0> : tensor<1x6x6x4xf32>
  %r = arith.maximumf %c, %zs : tensor<1x6x6x4xf32>
  %k = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<1x3x3x4xf32>
  %pf = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%r, %k : tensor<1x6x6x4xf32>, tensor<2x2xf32>) outs(%pf : tensor<1x3x3x4xf32>) -> tensor<1x3x3x4xf32>
  return %p : tensor<1x3x3x4xf32>
}
}
