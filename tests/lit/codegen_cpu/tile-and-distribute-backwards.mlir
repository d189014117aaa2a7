// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// Reads that run backwards along a loop (a negative coefficient: Winograd's
// input transform reads d1 * 2 - d0 + 2, a flip reads -d0 + N - 1) are
// confined to the workgroup's tile like forward ones: the window starts at
// the loop's last value in the tile and the map counts from there. That
// needs the loop's span in every tile to be static (an unsplit loop's
// bound, or a split loop whose tiles divide it); otherwise the kernel
// stays one workgroup, as every kernel with such a read did before.

// CHECK-DAG: #[[FLIP:.*]] = affine_map<(d0, d1) -> (-d0 + 31, d1)>
// CHECK-DAG: #[[TAPS:.*]] = affine_map<(d0, d1, d2) -> (-d0 + d1 * 2, d2)>

// CHECK-LABEL: func.func @flip_rows()
// CHECK-SAME: tile_sizes = array<i64: 32, 256>, {{.*}}workgroup_count = array<i64: 16, 1, 1>
// CHECK: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[OFF:.*]] = arith.muli %[[X]], %c32 : index
// CHECK: %[[NEG:.*]] = arith.muli %[[OFF]], %c-1 : index
// CHECK: %[[START:.*]] = arith.addi %c480, %[[NEG]] : index
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%[[START]], 0] [32, 256] [1, 1]
// CHECK: linalg.generic {indexing_maps = [#[[FLIP]], {{.*}}]{{.*}} ins(%[[IN]] :

// CHECK-LABEL: func.func @taps_backwards()
// CHECK-SAME: tile_sizes = array<i64: 1, 128, 64>, {{.*}}workgroup_count = array<i64: 4, 2, 1>
// CHECK: memref.subview %{{.*}}[%{{.*}}, 0] [255, 64] [1, 1] : memref<1026x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[TAPS]],

// CHECK-LABEL: func.func @flip_partial_tiles()
// CHECK-SAME: tile_sizes = array<i64: 0, 0>, {{.*}}workgroup_count = array<i64: 1, 1, 1>
// CHECK-NOT: memref.subview
// CHECK: return
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @flip_rows() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<512x256xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<512x256xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (-d0 + 511, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<512x256xf32>) outs(%o : memref<512x256xf32>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
  func.func @taps_backwards() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1026x64xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<2x512x64xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d1 * 2 - d0 + 2, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : memref<1026x64xf32>) outs(%o : memref<2x512x64xf32>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
  func.func @flip_partial_tiles() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<500x256xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<500x256xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (-d0 + 499, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<500x256xf32>) outs(%o : memref<500x256xf32>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
}
