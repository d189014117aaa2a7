// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// A dynamic dim tiles as a large one: rows are split into tiles of 2048
// (the elementwise budget over 4 columns), their count known at run time
// only (workgroup_count '?'), the tile box reads the output binding's
// dynamic dim after it and every tile, the last included, gets
// min(tile, rows - offset).
// CHECK-LABEL: func.func @dyn()
// CHECK-SAME: tile_sizes = array<i64: 2048, 4>, {{.*}}workgroup_count = array<i64: -9223372036854775808, 1, 1>
// CHECK: %[[OUT:.*]] = hal.interface.binding(%{{.*}}) {binding = 1 : i32} : memref<?x4xf32>
// CHECK: %[[ID:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[N:.*]] = memref.dim %[[OUT]], %{{.*}} : memref<?x4xf32>
// CHECK: %[[OFF:.*]] = arith.muli %[[ID]], %{{.*}} : index
// CHECK: %[[REM:.*]] = arith.subi %[[N]], %[[OFF]] : index
// CHECK: %[[SZ:.*]] = arith.minsi %{{.*}}, %[[REM]] : index
// CHECK: memref.subview %{{.*}}[%[[OFF]], 0] [%[[SZ]], 4] [1, 1] : memref<?x4xf32> to memref<?x4xf32, strided<[4, 1], offset: ?>>
// CHECK: linalg.transpose
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @dyn() {
    %c = hal.interface.constant {index = 0 : i32} : i32
    %n = arith.index_castui %c : i32 to index
    %a = hal.interface.binding(%n) {binding = 0 : i32} : memref<?x4xf32>
    %o = hal.interface.binding(%n) {binding = 1 : i32} : memref<?x4xf32>
    linalg.transpose ins(%a : memref<?x4xf32>) outs(%o : memref<?x4xf32>) permutation = [0, 1]
    return
  }
}
