// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// Convolutions whose workgroup count would be odd (one of two workers a
// tile more than the other; launch_rule.c conv_even).
//
// 9 blocks of 32 channels at 14x14: one block a workgroup gave 9; the
// output rows are halved instead, 18 tiles of equal work.
// CHECK-LABEL: func.func @rows_halved()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 14, 1, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 9, 2, 1>
//
// 55 groups of 8 channels at 7x7 (RegNetY's last stage): 5 tiles of 11
// groups (3 against 2 on two workers) become 4 tiles of 14, 14, 14 and
// 13 groups.
// CHECK-LABEL: func.func @groups_retiled()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 7, 14, 8, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
//
// 55 output rows in 11 tiles of 5 (6 against 5 tiles: 30 rows against
// 25) become 14 tiles of 4 and a last one of 3 (28 rows against 27).
// CHECK-LABEL: func.func @rows_retiled()
// CHECK-SAME: tile_sizes = array<i64: 1, 4, 55, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 14, 1, 1>
//
// 25 groups at 7x7 have no even split of equal or shorter shares: 25.
// CHECK-LABEL: func.func @odd_left()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 7, 1, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 25, 1, 1>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>
#xg = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3 * 8 + d7)>
#xg16 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3 * 16 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @rows_halved() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x16x16x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<9x3x3x16x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x14x14x9x32xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x16x16x16xf32>, memref<9x3x3x16x32xf32>) outs(%o : memref<1x14x14x9x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @groups_retiled() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x440xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<55x3x3x8x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x55x8xf32>
    linalg.generic {indexing_maps = [#xg, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x9x9x440xf32>, memref<55x3x3x8x8xf32>) outs(%o : memref<1x7x7x55x8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @rows_retiled() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x55x55x96xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x96x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x55x55x16xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x55x55x96xf32>, memref<1x1x96x16xf32>) outs(%o : memref<1x55x55x16xf32>)
    return
  }
  func.func @odd_left() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x400xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<25x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x25x16xf32>
    linalg.generic {indexing_maps = [#xg16, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x9x9x400xf32>, memref<25x3x3x16x16xf32>) outs(%o : memref<1x7x7x25x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
