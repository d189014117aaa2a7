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
//
// Blocked filters of 16 channels ([M/16, kh, kw, C, 16], the output
// [N, H, W, M/16, 16]): a workgroup takes two blocks, which the
// microkernel pairs into register tiles of 32 columns (400 channels: 12
// pairs and a last tile of one block), where one block a workgroup gave
// tiles of one vector.
// CHECK-LABEL: func.func @blocks()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 7, 7, 2, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 13, 1, 1>
//
// Too few pairs for the target (144 channels: 5 tiles of up to two
// blocks): the output rows split too.
// CHECK-LABEL: func.func @block_rows()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 7, 14, 2, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 5, 2, 1>
//
// Groups (the block loop selects X's channels too: 25 groups of 16) are
// no blocks to pair: one group a workgroup, as before.
// CHECK-LABEL: func.func @groups()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 7, 7, 1, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 25, 1, 1>
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
  func.func @blocks() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x400xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<25x1x1x400x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x25x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x7x7x400xf32>, memref<25x1x1x400x16xf32>) outs(%o : memref<1x7x7x25x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @block_rows() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x14x14x144xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<9x1x1x144x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x14x14x9x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x14x14x144xf32>, memref<9x1x1x144x16xf32>) outs(%o : memref<1x14x14x9x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @groups() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x15x15x25x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<25x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x25x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x15x15x25x16xf32>, memref<25x3x3x16x16xf32>) outs(%o : memref<1x7x7x25x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
