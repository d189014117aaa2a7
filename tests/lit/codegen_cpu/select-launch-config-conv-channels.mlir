// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// Convolution channels that do not halve into 64-lane multiples. Where
// there are more of them than output pixels and the weights are big (a
// classifier written as a 1x1 convolution: 512 -> 1000 on 13x13, 2 MB),
// the workgroups cut the channels into 32-lane blocks, an even count
// reaching 8 (7 x 128 + 104), instead of 13 row tiles each streaming all
// the weights.
// CHECK-LABEL: func.func @classifier()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 13, 13, 128, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// The same channels over more pixels than channels (40x40) keep whole
// channels and split the output rows.
// CHECK-LABEL: func.func @many_pixels()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 5, 40, 1000, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// Small weights (64 -> 200, 50 KB) stay whole too: streaming them costs
// little, and row tiles read each input pixel once.
// CHECK-LABEL: func.func @small_weights()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 1, 13, 200, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 13, 1, 1>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @classifier() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x13x13x512xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x512x1000xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x13x13x1000xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x13x13x512xf32>, memref<1x1x512x1000xf32>) outs(%o : memref<1x13x13x1000xf32>)
    return
  }
  func.func @many_pixels() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x40x40x512xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x512x1000xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x40x40x1000xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x40x40x512xf32>, memref<1x1x512x1000xf32>) outs(%o : memref<1x40x40x1000xf32>)
    return
  }
  func.func @small_weights() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x13x13x64xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x64x200xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x13x13x200xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x13x13x64xf32>, memref<1x1x64x200xf32>) outs(%o : memref<1x13x13x200xf32>)
    return
  }
}
