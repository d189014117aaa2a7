// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// Streamed matmuls (cg_streamed_matmul: at most 4 rows, B past the 16 MiB
// pre-packing cap): whole rows, wide column tiles (cg_stream_tile: the
// widest of 1024, 512, ... giving 4 tiles or more whose two halves are
// within 1/8 of each other).
//
// AlexNet's 4096 x 4096 at batch 1: 4 tiles of 1024 columns (a page of
// each B row per tile).
// CHECK-LABEL: func.func @fc_4096()
// CHECK-SAME: pipeline = "cpu-matmul", tile_sizes = array<i64: 1, 1024, 0>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
// 4 rows, 2100 columns: 1024 gives 3 tiles, 512 gives 5 (the last 52
// wide: halves of 1076 and 1024 columns).
// CHECK-LABEL: func.func @fc_rows4()
// CHECK-SAME: tile_sizes = array<i64: 4, 512, 0>, {{.*}}workgroup_count = array<i64: 5, 1, 1>
// 1537 columns: 512 gives 4 tiles of which the first worker takes 1024
// columns (1.33x of a half), 256 gives 7 within 1/8.
// CHECK-LABEL: func.func @fc_1537()
// CHECK-SAME: tile_sizes = array<i64: 2, 256, 0>, {{.*}}workgroup_count = array<i64: 7, 1, 1>
// Not streamed: 5 rows (64 x 64 register tiles), and B of exactly 16 MiB
// (pre-packed: 64-column blocks).
// CHECK-LABEL: func.func @rows5()
// CHECK-SAME: tile_sizes = array<i64: 5, 64, 0>
// CHECK-LABEL: func.func @cap()
// CHECK-SAME: tile_sizes = array<i64: 1, 64, 0>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @fc_4096() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x4096xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<4096x4096xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<1x4096xf32>
    linalg.matmul ins(%a, %b : memref<1x4096xf32>, memref<4096x4096xf32>) outs(%c : memref<1x4096xf32>)
    return
  }
  func.func @fc_rows4() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x2053xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<2053x2100xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<4x2100xf32>
    linalg.matmul ins(%a, %b : memref<4x2053xf32>, memref<2053x2100xf32>) outs(%c : memref<4x2100xf32>)
    return
  }
  func.func @fc_1537() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<2x2731xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<2731x1537xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<2x1537xf32>
    linalg.matmul ins(%a, %b : memref<2x2731xf32>, memref<2731x1537xf32>) outs(%c : memref<2x1537xf32>)
    return
  }
  func.func @rows5() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<5x4096xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<4096x4096xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<5x4096xf32>
    linalg.matmul ins(%a, %b : memref<5x4096xf32>, memref<4096x4096xf32>) outs(%c : memref<5x4096xf32>)
    return
  }
  func.func @cap() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x1024xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<1024x4096xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<1x4096xf32>
    linalg.matmul ins(%a, %b : memref<1x1024xf32>, memref<1024x4096xf32>) outs(%c : memref<1x4096xf32>)
    return
  }
}
