// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): a 1x1 convolution over all
// the workgroup's pixels (rows merged) whose whole filter fits L2 beside
// the streams (at most 512 KiB) runs each register tile of pixels over
// every column block before the next tile (lower_conv.c pixels_outer):
// the output and the residual then go out and come in a whole pixel at a
// time, and the tile's input stays in L1. A bigger filter keeps the
// column blocks outermost (each block's weights stay in L1).
// CHECK-NOT: linalg.

// 4 rows of 20 pixels merged into 80, 40 -> 72 channels (a pair of
// vectors in blocks of 32 over [0, 64), then one vector of 8): tiles of
// 8 pixels outside the blocks of 32, then tiles of 16 outside the one
// of 8; the residual prefetched and read inside both.
// CHECK-LABEL: func.func @residual()
// CHECK: %[[RES:.*]] = hal.interface.binding {binding = 3 : i32}
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %c80 step %c8 {
// CHECK-NOT: scf.for
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c64 step %c32 {
// CHECK: memref.prefetch %[[RES]][%{{.*}}, %{{.*}}, %[[P]], %[[J]]]
// CHECK: vector.fma
// CHECK: vector.load %[[RES]][%{{.*}}, %{{.*}}, %[[P]], %[[J]]]
// CHECK: scf.for %[[P2:.*]] = %{{.*}} to %c80 step %c16 {
// CHECK: scf.for %[[J2:.*]] = %c64 to %c72 step %c8 {
// CHECK: vector.load %[[RES]][%{{.*}}, %{{.*}}, %[[P2]], %[[J2]]]
// CHECK: return

// 512 -> 512 channels over 8 pixels: 1 MiB of filter, the blocks of 32
// outermost, the pixels inside.
// CHECK-LABEL: func.func @big()
// CHECK: scf.for %{{.*}} = %{{.*}} to %c512 step %c32 {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c8{{.*}} {
// CHECK: vector.fma
// CHECK: return

module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @residual() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x20x40xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x40x72xf32>
    %bias = hal.interface.binding {binding = 2 : i32} : memref<72xf32>
    %res = hal.interface.binding {binding = 3 : i32} : memref<1x4x20x72xf32>
    %o = hal.interface.binding {binding = 4 : i32} : memref<1x4x20x72xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x4x20x72xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x4x20x40xf32>, memref<1x1x40x72xf32>) outs(%o : memref<1x4x20x72xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %bias, %res : memref<1x4x20x72xf32>, memref<72xf32>, memref<1x4x20x72xf32>) outs(%o : memref<1x4x20x72xf32>) {
    ^bb0(%x: f32, %b: f32, %r: f32, %out: f32):
      %s = arith.addf %x, %b : f32
      %t = arith.addf %s, %r : f32
      %z = arith.constant 0.0 : f32
      %m = arith.maximumf %t, %z : f32
      linalg.yield %m : f32
    }
    return
  }
  func.func @big() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x1x8x512xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x512x512xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x1x8x512xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x1x8x512xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x1x8x512xf32>, memref<1x1x512x512xf32>) outs(%o : memref<1x1x8x512xf32>)
    return
  }
}
