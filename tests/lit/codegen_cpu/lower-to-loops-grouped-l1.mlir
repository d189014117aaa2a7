// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f), grouped convolutions (a loop
// X, W and the output use): register tiles of at most 8 rows where the
// input pixels of a row lie a multiple of 4 KiB apart, all in one L1 set
// of 8 ways (lower_conv.c l1_rows; 4 where groups share lines), and
// before each tile's microkernel a prefetch of every input line the tile
// reads at the next output row and not at this one (prefetch_next_row).
// CHECK-NOT: linalg.

// 32 groups of 16 at stride 2, 512 channels: pixels 4 KiB apart. A row
// of 19 takes tiles of 7, 7 and 5 rows (16 without the limit); the next
// output row adds two input rows of 15 pixels (7-row tile), 11 (5 rows).
// CHECK-LABEL: func.func @stride2()
// CHECK-COUNT-30: memref.prefetch %{{.*}} : memref<1x5x39x32x16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:7 = scf.for
// CHECK-COUNT-22: memref.prefetch %{{.*}} : memref<1x5x39x32x16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:5 = scf.for
// CHECK: return

// The same at stride 1: pixels 2 KiB apart, over two sets, take the usual
// tiles (10 and 9 rows); one new input row of 12 and 11 pixels.
// CHECK-LABEL: func.func @spread()
// CHECK-COUNT-12: memref.prefetch %{{.*}} : memref<1x4x21x32x16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:10 = scf.for
// CHECK-COUNT-11: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:9 = scf.for
// CHECK: return

// 32 groups of 8 input channels (16 output channels: not the lane path,
// whose groups have as many outputs as inputs) at stride 2, 256
// channels: pixels 1 KiB apart, rows 2 KiB apart over two sets, and two
// groups share each line: 4 rows a set, so a row of 28 takes tiles of 7
// rows (14 without the halving).
// CHECK-LABEL: func.func @shared()
// CHECK: %{{.*}}:7 = scf.for
// CHECK-NOT: %{{.*}}:14 = scf.for
// CHECK: return

// 256 groups of 4 (lane path), 1024 channels at stride 1: 4 KiB apart,
// but the lane path's 4 accumulators a row allow 4 rows only (16
// accumulators, CV_LANE_ACC): tiles of 4 and 3 rows (16 and 12
// accumulators); one new input row of 6 and 5 pixels.
// CHECK-LABEL: func.func @lanes()
// CHECK-COUNT-6: memref.prefetch %{{.*}} : memref<1x4x21x256x4xf32>
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:16 = scf.for
// CHECK-COUNT-5: memref.prefetch
// CHECK-NOT: memref.prefetch
// CHECK: %{{.*}}:12 = scf.for
// CHECK: return

#x2 = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 * 2 + d6, d3, d7)>
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @stride2() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x5x39x32x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x19x32x16xf32>
    linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x5x39x32x16xf32>, memref<32x3x3x16x16xf32>) outs(%o : memref<1x2x19x32x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @spread() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x21x32x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x16x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x19x32x16xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x4x21x32x16xf32>, memref<32x3x3x16x16xf32>) outs(%o : memref<1x2x19x32x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @shared() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x5x57x32x8xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<32x3x3x8x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x28x32x16xf32>
    linalg.generic {indexing_maps = [#x2, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x5x57x32x8xf32>, memref<32x3x3x8x16xf32>) outs(%o : memref<1x2x28x32x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @lanes() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x21x256x4xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<256x3x3x4x4xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x19x256x4xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x4x21x256x4xf32>, memref<256x3x3x4x4xf32>) outs(%o : memref<1x2x19x256x4xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
