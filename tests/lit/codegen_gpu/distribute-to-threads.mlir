// RUN: kiln-opt --distribute-to-threads %s | FileCheck %s
// distribute-to-threads: each top-level op of a GPU kernel is split along
// its widest parallel loop that every operand indexes with exactly that
// dim (all outputs must): thread t of n (read at run time) gets the chunk
// [t*c, t*c + size), c = ceil(B / n), size clamped to [0, c] (partial
// chunks), and a barrier separates consecutive ops. The fill, matmul and
// bias generic split columns (70 > 5 rows; the matmul's B is split, A is
// not), the row reduction splits rows (its columns are a reduction), and
// the scalar store runs on thread 0 only.

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<5x8xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<8x70xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<70xf32>
    %3 = hal.interface.binding {binding = 3 : i32} : memref<5x70xf32>
    %4 = hal.interface.binding {binding = 4 : i32} : memref<5xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%3 : memref<5x70xf32>)
    linalg.matmul ins(%0, %1 : memref<5x8xf32>, memref<8x70xf32>) outs(%3 : memref<5x70xf32>)
    linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %2 : memref<5x70xf32>, memref<70xf32>) outs(%3 : memref<5x70xf32>) {
    ^bb0(%in: f32, %b: f32, %out: f32):
      %s = arith.addf %in, %b : f32
      linalg.yield %s : f32
    }
    linalg.reduce ins(%3 : memref<5x70xf32>) outs(%4 : memref<5xf32>) dimensions = [1]
      (%in: f32, %init: f32) {
        %s = arith.addf %in, %init : f32
        linalg.yield %s : f32
      }
    %c0 = arith.constant 0 : index
    memref.store %cst, %4[%c0] : memref<5xf32>
    return
  }
}

// CHECK-LABEL: func.func @k()
// CHECK: %[[T:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: %[[C:.*]] = arith.ceildivsi %[[C70:.*]], %[[N]] : index
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[T]], %[[C]] : index
// CHECK-NEXT: %[[L:.*]] = arith.subi %[[C70]], %[[S]] : index
// CHECK-NEXT: %[[M:.*]] = arith.minsi %[[L]], %[[C]] : index
// CHECK: %[[SZ:.*]] = arith.maxsi %[[M]], %{{.*}} : index
// CHECK-NEXT: %[[OFF:.*]] = arith.minsi %[[S]], %[[C70]] : index
// CHECK: %[[V:.*]] = memref.subview %{{.*}}[0, %[[OFF]]] [5, %[[SZ]]] [1, 1] : memref<5x70xf32> to memref<5x?xf32, strided<[70, 1], offset: ?>>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[V]] : memref<5x?xf32, strided<[70, 1], offset: ?>>)
// CHECK-NEXT: "hal.interface.barrier"() : () -> ()
// CHECK: memref.subview %{{.*}} : memref<8x70xf32> to memref<8x?xf32, strided<[70, 1], offset: ?>>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<5x8xf32>, memref<8x?xf32, strided<[70, 1], offset: ?>>) outs(%{{.*}} : memref<5x?xf32, strided<[70, 1], offset: ?>>)
// CHECK-NEXT: "hal.interface.barrier"() : () -> ()
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<5x?xf32, strided<[70, 1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<5x?xf32, strided<[70, 1], offset: ?>>)
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: memref.subview %{{.*}} : memref<5x70xf32> to memref<?x70xf32, strided<[70, 1], offset: ?>>
// CHECK: linalg.reduce ins(%{{.*}} : memref<?x70xf32, strided<[70, 1], offset: ?>>) outs(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>) dimensions = [1]
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: %[[T0:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK: %[[Z:.*]] = arith.cmpi eq, %[[T0]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[Z]] {
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: return
