// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// tile-and-distribute restricts ops that come after the root (a bias add
// fused after a matmul) to the root's tile: the check compares them with
// the root's output type from before tiling, not with its subview. A
// kernel that fits in one tile gets zero tile sizes and one workgroup in
// select-launch-config and is left whole by tile-and-distribute, also
// when its ops write other shapes than the root (pad: fill, then a copy
// into a window).

// CHECK-LABEL: func.func @matmul_bias()
// CHECK-SAME: tile_sizes = array<i64: 4, 64, 0>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
// CHECK: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[OFF:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: %[[B:.*]] = hal.interface.binding {binding = 2 : i32} : memref<256xf32>
// CHECK: %[[O:.*]] = hal.interface.binding {binding = 3 : i32} : memref<4x256xf32>
// CHECK: linalg.matmul
// CHECK: %[[IN:.*]] = memref.subview %[[O]][0, %[[OFF]]] [4, 64] [1, 1] : memref<4x256xf32> to memref<4x64xf32, strided<[256, 1], offset: ?>>
// CHECK: %[[BT:.*]] = memref.subview %[[B]][%[[OFF]]] [64] [1] : memref<256xf32> to memref<64xf32, strided<[1], offset: ?>>
// CHECK: %[[OUT:.*]] = memref.subview %[[O]][0, %[[OFF]]] [4, 64] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[IN]], %[[BT]] : {{.*}}) outs(%[[OUT]] :

// CHECK-LABEL: func.func @small_pad()
// CHECK-SAME: tile_sizes = array<i64: 0, 0>, {{.*}}workgroup_count = array<i64: 1, 1, 1>
// CHECK-NOT: hal.interface.workgroup.id
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<4x7xf32>)
// CHECK: %[[W:.*]] = memref.subview %{{.*}}[1, 2] [2, 3] [1, 1] : memref<4x7xf32> to memref<2x3xf32, strided<[7, 1], offset: 9>>
// CHECK-NEXT: linalg.generic {{.*}} ins(%{{.*}} : memref<2x3xf32>) outs(%[[W]] : memref<2x3xf32, strided<[7, 1], offset: 9>>)
// CHECK: return
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @matmul_bias() {
    %zero = arith.constant 0.0 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x784xf32>
    %w = hal.interface.binding {binding = 1 : i32} : memref<784x256xf32>
    %b = hal.interface.binding {binding = 2 : i32} : memref<256xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<4x256xf32>
    linalg.fill ins(%zero : f32) outs(%o : memref<4x256xf32>)
    linalg.matmul ins(%a, %w : memref<4x784xf32>, memref<784x256xf32>) outs(%o : memref<4x256xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%o, %b : memref<4x256xf32>, memref<256xf32>) outs(%o : memref<4x256xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @small_pad() {
    %v = arith.constant 5.000000e-01 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<2x3xf32>
    %p = hal.interface.binding {binding = 1 : i32} : memref<4x7xf32>
    linalg.fill ins(%v : f32) outs(%p : memref<4x7xf32>)
    %pw = memref.subview %p[1, 2] [2, 3] [1, 1] : memref<4x7xf32> to memref<2x3xf32, strided<[7, 1], offset: 9>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<2x3xf32>) outs(%pw : memref<2x3xf32, strided<[7, 1], offset: 9>>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
}
