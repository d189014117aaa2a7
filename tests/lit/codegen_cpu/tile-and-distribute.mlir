// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// tile-and-distribute: workgroup ids pick the tile (x = innermost distributed
// dim, y = next, z = outer ones); edge tiles get min(tile, bound - offset);
// every op is restricted to the tile through memref.subview, windows of a
// strided convolution included; linalg.index is shifted by the tile offset;
// a kernel whose fused op reads the root's input at other positions keeps
// one workgroup and is left unchanged.

// Convolutions (cg_igemm): whole output rows of a block of output
// channels; channels split first (64 -> 2 x 32), then output rows by a
// divisor (40 -> 2 x 20), so every tile is full (static sizes, no min).
// CHECK-LABEL: func.func @conv()
// CHECK-SAME: tile_sizes = array<i64: 1, 20, 11, 32, 0, 0, 0>, vector_width = 8 : i64, workgroup_count = array<i64: 2, 2, 1>
// CHECK: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[Y:.*]] = hal.interface.workgroup.id {dim = 1 : i32} : index
// CHECK: %[[OH:.*]] = arith.muli %[[Y]], %{{.*}} : index
// CHECK: %[[OF:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: %[[OUT:.*]] = hal.interface.binding {binding = 2 : i32}
// CHECK: %[[T:.*]] = memref.subview %[[OUT]][0, %[[OH]], 0, %[[OF]]] [1, 20, 11, 32] [1, 1, 1, 1] : memref<1x40x11x64xf32> to memref<1x20x11x32xf32, strided<[28160, 704, 64, 1], offset: ?>>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[T]] :
// Input rows 2*oh .. 2*(oh+19)+2: a window of 41 rows (stride 2, 3 taps).
// CHECK: %[[H0:.*]] = arith.muli %[[OH]], %{{.*}} : index
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[0, %[[H0]], 0, 0] [1, 41, 23, 5] [1, 1, 1, 1] : memref<1x81x23x5xf32> to memref<1x41x23x5xf32, strided<[9315, 115, 5, 1], offset: ?>>
// CHECK: %[[FL:.*]] = memref.subview %{{.*}}[0, 0, 0, %[[OF]]] [3, 2, 5, 32] [1, 1, 1, 1] : memref<3x2x5x64xf32> to memref<3x2x5x32xf32, strided<[640, 320, 64, 1], offset: ?>>
// CHECK: %[[T2:.*]] = memref.subview %[[OUT]][0, %[[OH]], 0, %[[OF]]]
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[IN]], %[[FL]] : {{.*}}) outs(%[[T2]] :

// CHECK-LABEL: func.func @index()
// CHECK-SAME: tile_sizes = array<i64: 18, 450>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
// CHECK: %[[ID:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[OFF:.*]] = arith.muli %[[ID]], %{{.*}} : index
// CHECK: memref.subview %{{.*}}[%[[OFF]], 0] [%{{.*}}, 450] [1, 1] : memref<70x450xf32> to memref<?x450xf32, strided<[450, 1], offset: ?>>
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: arith.index_cast %[[G]] : index to i32

// Softmax: rows are distributed, the softmax dimension stays whole.
// CHECK-LABEL: func.func @softmax()
// CHECK-SAME: tile_sizes = array<i64: 256, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
// CHECK: %[[SID:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[SOFF:.*]] = arith.muli %[[SID]], %{{.*}} : index
// CHECK: %[[SIN:.*]] = memref.subview %{{.*}}[%[[SOFF]], 0] [%{{.*}}, 10] [1, 1] : memref<300x10xf32> to memref<?x10xf32, strided<[10, 1], offset: ?>>
// CHECK: %[[SOUT:.*]] = memref.subview %{{.*}}[%[[SOFF]], 0] [%{{.*}}, 10] [1, 1] : memref<300x10xf32> to memref<?x10xf32, strided<[10, 1], offset: ?>>
// CHECK: linalg.softmax dimension(1) ins(%[[SIN]] : {{.*}}) outs(%[[SOUT]] :

// CHECK-LABEL: func.func @not_distributable()
// CHECK-SAME: tile_sizes = array<i64: 0, 0>, {{.*}}workgroup_count = array<i64: 1, 1, 1>
// CHECK-NOT: hal.interface.workgroup.id
// CHECK-NOT: memref.subview
// CHECK: return
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @conv() {
    %zero = arith.constant 0.0 : f32
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x81x23x5xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x2x5x64xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x40x11x64xf32>
    linalg.fill ins(%zero : f32) outs(%o : memref<1x40x11x64xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%in, %f : memref<1x81x23x5xf32>, memref<3x2x5x64xf32>) outs(%o : memref<1x40x11x64xf32>)
    return
  }
  func.func @index() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<70x450xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<70x450xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<70x450xf32>) outs(%o : memref<70x450xf32>) {
    ^bb0(%x: f32, %out: f32):
      %i = linalg.index 0 : index
      %ii = arith.index_cast %i : index to i32
      %fi = arith.sitofp %ii : i32 to f32
      %r = arith.addf %x, %fi : f32
      linalg.yield %r : f32
    }
    return
  }
  func.func @softmax() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<300x10xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<300x10xf32>
    linalg.softmax dimension(1) ins(%a : memref<300x10xf32>) outs(%o : memref<300x10xf32>)
    return
  }
  func.func @not_distributable() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<300x300xf32>
    %t = hal.interface.binding {binding = 1 : i32} : memref<300x300xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<300x300xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<300x300xf32>) outs(%t : memref<300x300xf32>) {
    ^bb0(%x: f32, %out: f32):
      %m = arith.mulf %x, %x : f32
      linalg.yield %m : f32
    }
    linalg.transpose ins(%t : memref<300x300xf32>) outs(%o : memref<300x300xf32>) permutation = [1, 0]
    return
  }
}
