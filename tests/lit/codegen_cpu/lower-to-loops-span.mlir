// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): convolutions whose output
// rows are shorter than half the register rows of a tile take register
// tiles of several whole output rows (lower_conv.c span_loop), equal
// spans with a shorter last one; longer rows keep one-row tiles.
// CHECK-NOT: linalg.

// 16 channels (one vector: up to 16 register rows), 7x7 output: tiles of
// 2 output rows (14 accumulators) over rows 0..6, then row 6 alone (7).
// CHECK-LABEL: func.func @span()
// CHECK: scf.for %[[OH:.*]] = %{{.*}} to %c6 step %c2{{.*}} {
// CHECK: %{{.*}}:14 = scf.for
// CHECK-COUNT-14: vector.fma
// CHECK: vector.store %{{.*}}#6, %{{.*}}[%{{.*}}, %[[OH]], %c6{{.*}}, %{{.*}}] : memref<2x7x7x16xf32>
// CHECK-NEXT: vector.store %{{.*}}#7, %{{.*}}[%{{.*}}, %[[OH1:.*]], %c0{{.*}}, %{{.*}}] : memref<2x7x7x16xf32>
// CHECK: %{{.*}}:7 = scf.for
// CHECK-COUNT-7: vector.fma
// CHECK-NOT: vector.fma
// CHECK: return

// 32 channels (pairs of vectors: up to 8 register rows), 4x4 output:
// tiles of 2 output rows of 4 pixels, 16 accumulators.
// CHECK-LABEL: func.func @span_pairs()
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{.*}} step %c2{{.*}} {
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-16: vector.fma
// CHECK-NOT: vector.fma
// CHECK: return

// Rows of 9 pixels (more than half of 16): one output row a tile.
// CHECK-LABEL: func.func @no_span()
// CHECK-NOT: :18 = scf.for
// CHECK: %{{.*}}:9 = scf.for
// CHECK-COUNT-9: vector.fma
// CHECK-NOT: vector.fma
// CHECK: return

#x = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @span() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<2x9x9x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<2x7x7x16xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<2x9x9x16xf32>, memref<3x3x16x16xf32>) outs(%o : memref<2x7x7x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @span_pairs() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x6x6x8xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x8x32xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x4x4x32xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x6x6x8xf32>, memref<3x3x8x32xf32>) outs(%o : memref<1x4x4x32xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @no_span() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x5x11x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x3x9x16xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x5x11x16xf32>, memref<3x3x16x16xf32>) outs(%o : memref<1x3x9x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
