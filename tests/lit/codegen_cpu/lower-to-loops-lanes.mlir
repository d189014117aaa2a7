// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): grouped convolutions of 8, 4
// or 2 channels a group in and out take vectors across groups (lower_conv.c
// lane_groups): the tile's weights packed once into a panel of
// [group vector][tap][rotation s][group][ci] (weight (ci, co) at s =
// (co - ci) mod L), one input vector per pixel and tap, multiplied as
// loaded by the L weight vectors of the tap into L accumulators a pixel;
// after the reduction accumulator s rotated by s lanes within each
// group's block (vector.shuffle) and the L summed (microkernel.c
// rotate). Groups past the last whole vector take narrower ones.
// CHECK-NOT: linalg.

// 6 groups of 4: one vector of 4 groups, then one of 2 (8 lanes); the
// panel holds 6 x 9 taps x 16 floats; a 7-pixel row in tiles of 4 and
// 3 pixels (16 and 12 accumulators), no shuffle in the reduction.
// CHECK-LABEL: func.func @lanes()
// CHECK: memref.alloca() {{.*}} : memref<1x864xf32>
// CHECK: memref.store %{{.*}}, %alloca[%{{.*}}, %{{.*}}] : memref<1x864xf32>
// CHECK: %[[A:[0-9]+]]:16 = scf.for
// CHECK-NOT: vector.shuffle
// CHECK: vector.load %alloca[%{{.*}}] : memref<1x864xf32>, vector<16xf32>
// CHECK-NOT: vector.shuffle
// CHECK: %[[X:.*]] = vector.load %{{.*}} : memref<2x9x9x6x4xf32>, vector<16xf32>
// CHECK-NEXT: vector.fma %[[X]], %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NEXT: vector.fma %[[X]],
// CHECK-NEXT: vector.fma %[[X]],
// CHECK-NEXT: vector.fma %[[X]],
// CHECK-NOT: vector.shuffle
// CHECK: scf.yield
// CHECK-NOT: vector.shuffle
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[R1:.*]] = vector.shuffle %[[A]]#1, %[[A]]#1 [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14] : vector<16xf32>, vector<16xf32>
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[A]]#0, %[[R1]] : vector<16xf32>
// CHECK-NEXT: %[[R2:.*]] = vector.shuffle %[[A]]#2, %[[A]]#2 [2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13]
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S1]], %[[R2]]
// CHECK-NEXT: %[[R3:.*]] = vector.shuffle %[[A]]#3, %[[A]]#3 [1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12]
// CHECK-NEXT: %[[S3:.*]] = arith.addf %[[S2]], %[[R3]]
// CHECK-NEXT: vector.store %[[S3]], %{{.*}} : memref<2x7x7x6x4xf32>, vector<16xf32>
// CHECK: %{{.*}}:12 = scf.for
// CHECK: vector.shuffle %{{.*}} [3, 0, 1, 2, 7, 4, 5, 6] : vector<8xf32>, vector<8xf32>
// CHECK: return

// 8 groups of 2: one vector of 8 groups, the 5-pixel row in one tile of
// 10 accumulators.
// CHECK-LABEL: func.func @pairs()
// CHECK: memref.alloca() {{.*}} : memref<1x288xf32>
// CHECK: %{{.*}}:10 = scf.for
// CHECK: vector.shuffle %{{.*}} [1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14] : vector<16xf32>, vector<16xf32>
// CHECK-NOT: vector<8xf32>
// CHECK: return

// 3 groups of 8: one vector of 2 groups in tiles of 2 pixels and 1 (16
// and 8 accumulators; the rotations cross the vector's two 256-bit
// halves, each rotated on its own), then the last group alone on 8
// lanes; the panel holds 3 x 9 taps x 64 floats. (One group's 8 lanes
// with a broadcast per fma before.)
// CHECK-LABEL: func.func @eights()
// CHECK: memref.alloca() {{.*}} : memref<1x1728xf32>
// CHECK: %{{.*}}:16 = scf.for
// CHECK-NOT: vector.shuffle
// CHECK: scf.yield
// CHECK-NOT: vector.shuffle
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: vector.shuffle %{{.*}} [7, 0, 1, 2, 3, 4, 5, 6, 15, 8, 9, 10, 11, 12, 13, 14] : vector<16xf32>, vector<16xf32>
// CHECK: %{{.*}}:8 = scf.for
// CHECK: vector.shuffle %{{.*}} [1, 2, 3, 4, 5, 6, 7, 0] : vector<8xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<2x3x3x3x8xf32>, vector<8xf32>
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
