// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// Convolutions whose input passes a core's L2 (launch_rule.c
// pixel_tiles): the workgroups take images and output rows with all the
// output channels, the tile's input within 512 KB, so the input is read
// once rather than once per channel block.
// ResNeXt's 1x1 256 -> 256 at 4x56x56 (12.8 MB of input, 256 KB of
// blocked filters), which the channel split gave 8 workgroups of one
// 32-lane block each: 4 images x 7 tiles of 8 rows (458 KB each).
// CHECK-LABEL: func.func @dense_1x1()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 8, 56, 8, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 7, 4, 1>
//
// HWCF filters (64 -> 128, 32 KB) that the channel split cut into 32
// lanes: whole channels, 2 tiles of 28 rows an image.
// CHECK-LABEL: func.func @hwcf()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 28, 56, 128, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 4, 1>
//
// Grouped, 32 groups of 8 (73 KB of weights; the channel split read 2 of
// every 16 lines of each pixel, a pixel apart): pixel tiles too, all the
// groups, 4 images x 14 tiles of 4 rows (348 KB of input each).
// CHECK-LABEL: func.func @grouped()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 4, 56, 32, 8, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 14, 4, 1>
//
// Grouped, stride 2, 32 groups of 16 (295 KB of weights, within the
// 512 KB that stay in L2 beside a tile): 4 x 7 tiles of 2 output rows.
// CHECK-LABEL: func.func @grouped_s2()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 2, 14, 32, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 7, 4, 1>
//
// Grouped with 1.2 MB of weights (32 groups of 32): every pixel tile
// would read them from beyond L2, so the groups split as before.
// CHECK-LABEL: func.func @grouped_big_weights()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 4, 14, 14, 4, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// 512 groups of 4 (295 KB): past the 256 KB panel lower_conv's lane path
// packs a tile's groups into, so the groups split as before.
// CHECK-LABEL: func.func @grouped_lanes_panel()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 28, 28, 64, 4, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// Weights of 8 MB over 4x7x7 pixels (0.8 MB of input): reading them once
// per pixel tile would move more, so the channels split as before.
// CHECK-LABEL: func.func @big_weights()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 4, 7, 7, 8, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// An input within 512 KB (1x28x28x128, 401 KB): no change.
// CHECK-LABEL: func.func @small_input()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 28, 28, 1, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#gx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
#gw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#gx2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3, d7)>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @dense_1x1() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x56x56x256xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x1x1x256x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x56x56x8x32xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<4x56x56x256xf32>, memref<8x1x1x256x32xf32>) outs(%o : memref<4x56x56x8x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @hwcf() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x56x56x64xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x64x128xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x56x56x128xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<4x56x56x64xf32>, memref<1x1x64x128xf32>) outs(%o : memref<4x56x56x128xf32>)
    return
  }
  func.func @grouped() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x58x58x32x8xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x8x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x56x56x32x8xf32>
    linalg.generic {indexing_maps = [#gx, #gw, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<4x58x58x32x8xf32>, memref<32x3x3x8x8xf32>) outs(%o : memref<4x56x56x32x8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @grouped_s2() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x30x30x32x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x14x14x32x16xf32>
    linalg.generic {indexing_maps = [#gx2, #gw, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<4x30x30x32x16xf32>, memref<32x3x3x16x16xf32>) outs(%o : memref<4x14x14x32x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @grouped_big_weights() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x16x16x32x32xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x32x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x14x14x32x32xf32>
    linalg.generic {indexing_maps = [#gx, #gw, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<4x16x16x32x32xf32>, memref<32x3x3x32x32xf32>) outs(%o : memref<4x14x14x32x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @grouped_lanes_panel() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x30x30x512x4xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<512x3x3x4x4xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x28x28x512x4xf32>
    linalg.generic {indexing_maps = [#gx, #gw, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x30x30x512x4xf32>, memref<512x3x3x4x4xf32>) outs(%o : memref<1x28x28x512x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @big_weights() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<4x7x7x1024xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<64x1x1x1024x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x7x7x64x32xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<4x7x7x1024xf32>, memref<64x1x1x1024x32xf32>) outs(%o : memref<4x7x7x64x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @small_input() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x28x28x128xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x1x1x128x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x28x28x8x32xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x28x28x128xf32>, memref<8x1x1x128x32xf32>) outs(%o : memref<1x28x28x8x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
