// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// Kernels over a run-time batch (launch_rule.c run_time_outer): the batch
// takes tiles of one image, its count the host's (workgroup_count '?'),
// and the static loops split as for one image, so a pad or a pool spreads
// over the workers at batch 1 too (both ran as one workgroup before).
//
// A pad of [?, 20, 20, 32] into [?, 22, 22, 32]: 12800 elements an image,
// two tiles of 16 channels. The interior's view (the root's output, of the
// run-time batch) and the dim it reads move above the border fills, which
// the tile box then restricts to each tile's channels and images.
// CHECK-LABEL: func.func @pad_batch()
// CHECK-SAME: tile_sizes = array<i64: 1, 20, 20, 16>, {{.*}}workgroup_count = array<i64: 2, -9223372036854775808, 1>
// CHECK: %[[OUT:.*]] = hal.interface.binding(%{{.*}}) {binding = 1 : i32} : memref<?x22x22x32xf32>
// CHECK: %[[TOP:.*]] = memref.subview %[[OUT]][0, 0, 0, 0]
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x20x20x32xf32>
// CHECK: %[[WIN:.*]] = memref.subview %[[OUT]][0, 1, 1, 0] [%[[N]], 20, 20, 32]
// CHECK: %[[IMG:.*]] = hal.interface.workgroup.id {dim = 1 : i32}
// CHECK: %[[TOPT:.*]] = memref.subview %[[TOP]][%[[IMG]], 0, 0, %{{.*}}] [%{{.*}}, 1, 22, 16]
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[TOPT]] :
// CHECK: %[[WINT:.*]] = memref.subview %[[WIN]][%[[IMG]], 0, 0, %{{.*}}] [%{{.*}}, 20, 20, 16]
// CHECK: linalg.generic {{.*}} outs(%[[WINT]] :
//
// A 3x3 stride-2 max pool over a run-time batch, 56x56x64 out: 8 tiles
// of 7 rows an image (was: the elementwise budget's 784 workgroups of
// 4 x 64).
// CHECK-LABEL: func.func @pool_batch()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 56, 64, 0, 0>, {{.*}}workgroup_count = array<i64: 8, -9223372036854775808, 1>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#px = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
#pw = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#po = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @pad_batch() {
    %0 = hal.interface.constant {index = 0 : i32} : i32
    %1 = arith.index_castui %0 : i32 to index
    %2 = hal.interface.binding(%1) {binding = 0 : i32} : memref<?x20x20x32xf32>
    %3 = hal.interface.binding(%1) {binding = 1 : i32} : memref<?x22x22x32xf32>
    %cst = arith.constant 0.000000e+00 : f32
    %c0 = arith.constant 0 : index
    %d0 = memref.dim %3, %c0 : memref<?x22x22x32xf32>
    %s0 = memref.subview %3[0, 0, 0, 0] [%d0, 1, 22, 32] [1, 1, 1, 1] : memref<?x22x22x32xf32> to memref<?x1x22x32xf32, strided<[15488, 704, 32, 1]>>
    linalg.fill ins(%cst : f32) outs(%s0 : memref<?x1x22x32xf32, strided<[15488, 704, 32, 1]>>)
    %d1 = memref.dim %3, %c0 : memref<?x22x22x32xf32>
    %s1 = memref.subview %3[0, 21, 0, 0] [%d1, 1, 22, 32] [1, 1, 1, 1] : memref<?x22x22x32xf32> to memref<?x1x22x32xf32, strided<[15488, 704, 32, 1], offset: 14784>>
    linalg.fill ins(%cst : f32) outs(%s1 : memref<?x1x22x32xf32, strided<[15488, 704, 32, 1], offset: 14784>>)
    %d2 = memref.dim %3, %c0 : memref<?x22x22x32xf32>
    %s2 = memref.subview %3[0, 1, 0, 0] [%d2, 20, 1, 32] [1, 1, 1, 1] : memref<?x22x22x32xf32> to memref<?x20x1x32xf32, strided<[15488, 704, 32, 1], offset: 704>>
    linalg.fill ins(%cst : f32) outs(%s2 : memref<?x20x1x32xf32, strided<[15488, 704, 32, 1], offset: 704>>)
    %d3 = memref.dim %3, %c0 : memref<?x22x22x32xf32>
    %s3 = memref.subview %3[0, 1, 21, 0] [%d3, 20, 1, 32] [1, 1, 1, 1] : memref<?x22x22x32xf32> to memref<?x20x1x32xf32, strided<[15488, 704, 32, 1], offset: 1376>>
    linalg.fill ins(%cst : f32) outs(%s3 : memref<?x20x1x32xf32, strided<[15488, 704, 32, 1], offset: 1376>>)
    %d4 = memref.dim %2, %c0 : memref<?x20x20x32xf32>
    %w = memref.subview %3[0, 1, 1, 0] [%d4, 20, 20, 32] [1, 1, 1, 1] : memref<?x22x22x32xf32> to memref<?x20x20x32xf32, strided<[15488, 704, 32, 1], offset: 736>>
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%2 : memref<?x20x20x32xf32>) outs(%w : memref<?x20x20x32xf32, strided<[15488, 704, 32, 1], offset: 736>>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    }
    return
  }
  func.func @pool_batch() {
    %0 = hal.interface.constant {index = 0 : i32} : i32
    %1 = arith.index_castui %0 : i32 to index
    %2 = hal.interface.binding(%1) {binding = 0 : i32} : memref<?x113x113x64xf32>
    %3 = hal.interface.binding(%1) {binding = 1 : i32} : memref<?x56x56x64xf32>
    %alloca = memref.alloca() : memref<3x3xf32>
    %cst = arith.constant 0xFF800000 : f32
    linalg.fill ins(%cst : f32) outs(%3 : memref<?x56x56x64xf32>)
    linalg.generic {indexing_maps = [#px, #pw, #po], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%2, %alloca : memref<?x113x113x64xf32>, memref<3x3xf32>) outs(%3 : memref<?x56x56x64xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %4 = arith.maximumf %out, %in : f32
      linalg.yield %4 : f32
    }
    return
  }
}
