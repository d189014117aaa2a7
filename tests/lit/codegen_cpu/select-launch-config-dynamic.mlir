// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// A convolution whose batch is known at run time only gets the tiles of the
// same convolution with batch 1 (the batch is tiled by 1 and its workgroup
// count, the outermost, is computed at run time): full tiles are those of
// the static shape, so they take the same microkernel.
// CHECK-LABEL: func.func @conv_static()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 2, 14, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 7, 1>
// CHECK-LABEL: func.func @conv_dyn()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 2, 14, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 7, -9223372036854775808>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @conv_static() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x16x16x32xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x32x64xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x14x14x64xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x16x16x32xf32>, memref<3x3x32x64xf32>) outs(%o : memref<1x14x14x64xf32>)
    return
  }
  func.func @conv_dyn() {
    %c = hal.interface.constant {index = 0 : i32} : i32
    %n = arith.index_castui %c : i32 to index
    %in = hal.interface.binding(%n) {binding = 0 : i32} : memref<?x16x16x32xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x32x64xf32>
    %o = hal.interface.binding(%n) {binding = 2 : i32} : memref<?x14x14x64xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<?x16x16x32xf32>, memref<3x3x32x64xf32>) outs(%o : memref<?x14x14x64xf32>)
    return
  }
}
