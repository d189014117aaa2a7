// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): grouped convolutions of 4 or
// 2 channels a group in and out take vectors across groups (lower_conv.c
// lane_groups): the tile's weights packed once into a panel of
// [group vector][tap][ci][group][co], one input vector per pixel and tap,
// the in-lane broadcast of each input channel (vector.shuffle) times its
// weight vector. Groups past the last whole vector take narrower ones.
// CHECK-NOT: linalg.

// 6 groups of 4: one vector of 4 groups, then one of 2 (8 lanes); the
// panel holds 6 x 9 taps x 16 floats; 7 register rows of a 7-pixel row.
// CHECK-LABEL: func.func @lanes()
// CHECK: memref.alloca() {{.*}} : memref<1x864xf32>
// CHECK: memref.store %{{.*}}, %alloca[%{{.*}}, %{{.*}}] : memref<1x864xf32>
// CHECK: %{{.*}}:7 = scf.for
// CHECK: vector.load %alloca[%{{.*}}] : memref<1x864xf32>, vector<16xf32>
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<2x9x9x6x4xf32>, vector<16xf32>
// CHECK-NEXT: %[[B0:.*]] = vector.shuffle %[[X]], %[[X]] [0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT: vector.fma %[[B0]],
// CHECK-NEXT: vector.shuffle %[[X]], %[[X]] [1, 1, 1, 1, 5, 5, 5, 5, 9, 9, 9, 9, 13, 13, 13, 13]
// CHECK-COUNT-6: vector.store %{{.*}} : memref<2x7x7x6x4xf32>, vector<16xf32>
// CHECK: vector.shuffle %{{.*}} [3, 3, 3, 3, 7, 7, 7, 7] : vector<8xf32>, vector<8xf32>
// CHECK: return

// 8 groups of 2: one vector of 8 groups.
// CHECK-LABEL: func.func @pairs()
// CHECK: memref.alloca() {{.*}} : memref<1x288xf32>
// CHECK: vector.shuffle %{{.*}} [1, 1, 3, 3, 5, 5, 7, 7, 9, 9, 11, 11, 13, 13, 15, 15] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector<8xf32>
// CHECK: return

// 8 channels a group: one group's lanes, no shuffles.
// CHECK-LABEL: func.func @eights()
// CHECK-NOT: vector.shuffle
// CHECK: return

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @lanes() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<2x9x9x6x4xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<6x3x3x4x4xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<2x7x7x6x4xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<2x9x9x6x4xf32>, memref<6x3x3x4x4xf32>) outs(%o : memref<2x7x7x6x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @pairs() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<2x7x7x8x2xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x3x3x2x2xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<2x5x5x8x2xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<2x7x7x8x2xf32>, memref<8x3x3x2x2xf32>) outs(%o : memref<2x5x5x8x2xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @eights() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<2x5x5x3x8xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x3x8x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<2x3x3x3x8xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<2x5x5x3x8xf32>, memref<3x3x3x8x8xf32>) outs(%o : memref<2x3x3x3x8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
