// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// Grouped convolutions of 2, 4 or 8 channels a group whose groups the
// launch splits take tiles of whole 16-lane vectors of groups, the last
// tile partial (launch_rule.c lane_groups_tile): lower_conv.c's lane path
// runs 16 / L groups a vector; a tile of one group of 8 ran on 8 lanes.
//
// 13 groups of 8 at 28x28 (RegNetY-400MF): 13 tiles of one group (26
// with the rows halved) become 7 tiles of 2 groups, the last of 1 (14).
// CHECK-LABEL: func.func @eights()
// CHECK-SAME: tile_sizes = array<i64: 1, 14, 28, 2, 8, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 7, 2, 1>
//
// 22 groups of 4 at stride 2 (18x16): tiles of 4 groups, the last of 2
// (22 tiles of one group before).
// CHECK-LABEL: func.func @fours()
// CHECK-SAME: tile_sizes = array<i64: 1, 18, 16, 4, 4, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 6, 1, 1>
//
// 22 groups of 2: tiles of 8, 8 and 6 groups, an odd count that no
// retiling in whole vectors evens out: the rows are halved (6).
// CHECK-LABEL: func.func @twos()
// CHECK-SAME: tile_sizes = array<i64: 1, 23, 42, 8, 2, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 3, 2, 1>
//
// Groups of 16 (20x20) are a vector each: one group a tile, as before.
// CHECK-LABEL: func.func @sixteens()
// CHECK-SAME: tile_sizes = array<i64: 1, 10, 20, 1, 16, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 13, 2, 1>
#x8 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3 * 8 + d7)>
#x4s2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3 * 4 + d7)>
#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3 * 2 + d7)>
#x16 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3 * 16 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @eights() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x30x30x104xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<13x3x3x8x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x28x28x13x8xf32>
    linalg.generic {indexing_maps = [#x8, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x30x30x104xf32>, memref<13x3x3x8x8xf32>) outs(%o : memref<1x28x28x13x8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @fours() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x37x33x88xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<22x3x3x4x4xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x18x16x22x4xf32>
    linalg.generic {indexing_maps = [#x4s2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x37x33x88xf32>, memref<22x3x3x4x4xf32>) outs(%o : memref<1x18x16x22x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @twos() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x48x44x44xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<22x3x3x2x2xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x46x42x22x2xf32>
    linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x48x44x44xf32>, memref<22x3x3x2x2xf32>) outs(%o : memref<1x46x42x22x2xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @sixteens() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x22x22x208xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<13x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x20x20x13x16xf32>
    linalg.generic {indexing_maps = [#x16, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x22x22x208xf32>, memref<13x3x3x16x16xf32>) outs(%o : memref<1x20x20x13x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
