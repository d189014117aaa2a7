// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// A dynamic dim that other dims tile after is tiled for a typical size
// (128), so it does not take the whole budget; the outermost parallel
// dim, dynamic or not, takes the rest. Workgroup counts over dynamic dims
// are '?' (the host computes ceildiv(dim, tile) before each dispatch).
//
// A softmax over a dynamic row length: rows of a typical 128 elements give
// 8192 / 128 = 64 rows a workgroup (the static 128-long softmax's tile),
// not 256, so a 4x128x128 softmax runs as 8 workgroups, not 4.
// CHECK-LABEL: func.func @softmax_dyn()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 64, 0>, {{.*}}workgroup_count = array<i64: -9223372036854775808, -9223372036854775808, 1>
// CHECK-LABEL: func.func @softmax_static()
// CHECK-SAME: pipeline = "cpu-reduction", tile_sizes = array<i64: 1, 64, 0>, {{.*}}workgroup_count = array<i64: 2, 4, 1>
//
// A transpose whose innermost dim is dynamic: 128 x 64 tiles (was 8192 x 1:
// at 128 columns, 64 one-row workgroups per batch); the static 64 dim is
// then one whole tile, so the grid is (columns / 128) x batch.
// CHECK-LABEL: func.func @transpose_dyn_inner()
// CHECK-SAME: pipeline = "cpu-elementwise", tile_sizes = array<i64: 1, 64, 128>, {{.*}}workgroup_count = array<i64: -9223372036854775808, -9223372036854775808, 1>
//
// The outermost dim dynamic and alone: it takes the whole budget.
// CHECK-LABEL: func.func @rows_dyn()
// CHECK-SAME: tile_sizes = array<i64: 2048, 4>, {{.*}}workgroup_count = array<i64: -9223372036854775808, 1, 1>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @softmax_dyn() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %p1 = hal.interface.constant {index = 1 : i32} : i32
    %b = arith.index_castui %p0 : i32 to index
    %n = arith.index_castui %p1 : i32 to index
    %a = hal.interface.binding(%b, %n, %n) {binding = 0 : i32} : memref<?x?x?xf32>
    %o = hal.interface.binding(%b, %n, %n) {binding = 1 : i32} : memref<?x?x?xf32>
    linalg.softmax dimension(2) ins(%a : memref<?x?x?xf32>) outs(%o : memref<?x?x?xf32>)
    return
  }
  func.func @softmax_static() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x128x128xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<4x128x128xf32>
    linalg.softmax dimension(2) ins(%a : memref<4x128x128xf32>) outs(%o : memref<4x128x128xf32>)
    return
  }
  func.func @transpose_dyn_inner() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %p1 = hal.interface.constant {index = 1 : i32} : i32
    %b = arith.index_castui %p0 : i32 to index
    %n = arith.index_castui %p1 : i32 to index
    %a = hal.interface.binding(%b, %n) {binding = 0 : i32} : memref<?x?x64xf32>
    %o = hal.interface.binding(%b, %n) {binding = 1 : i32} : memref<?x64x?xf32>
    linalg.transpose ins(%a : memref<?x?x64xf32>) outs(%o : memref<?x64x?xf32>) permutation = [0, 2, 1]
    return
  }
  func.func @rows_dyn() {
    %c = hal.interface.constant {index = 0 : i32} : i32
    %n = arith.index_castui %c : i32 to index
    %a = hal.interface.binding(%n) {binding = 0 : i32} : memref<?x4xf32>
    %o = hal.interface.binding(%n) {binding = 1 : i32} : memref<?x4xf32>
    linalg.transpose ins(%a : memref<?x4xf32>) outs(%o : memref<?x4xf32>) permutation = [0, 1]
    return
  }
}
