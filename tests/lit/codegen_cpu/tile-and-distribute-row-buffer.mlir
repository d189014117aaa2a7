// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// A row chain over a run-time number of rows (form-dispatch-regions: a
// LayerNorm over a dynamic batch): its per-row values live in a
// kernel-local buffer sized by the push constant (bufferize-kernels).
// Workgroups take tiles of whole rows, the count known at run time, and
// the buffer becomes one of the row tile's static size that every op
// reads and writes at offset 0, the edge tile a prefix of it: no stack
// allocation of run-time size is left. The last op writes its rows x
// columns transposed (a transpose propagate-transposes moved into it):
// it takes the same row tile, as the output's second dim.
// CHECK-LABEL: func.func @row_chain()
// CHECK-SAME: tile_sizes = array<i64: [[T:[0-9]+]], 0>, {{.*}}workgroup_count = array<i64: -9223372036854775808, 1, 1>
// CHECK-NOT: memref.alloca(
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<[[T]]xf32>
// CHECK-NOT: memref.alloca
// CHECK: %[[SZ:.*]] = arith.minsi
// CHECK: %[[S1:.*]] = memref.subview %[[BUF]][0] [%[[SZ]]] [1] : memref<[[T]]xf32> to memref<?xf32, strided<[1]>>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[S1]]
// CHECK: %[[S2:.*]] = memref.subview %[[BUF]][0] [%[[SZ]]] [1]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} {{.*}}outs(%[[S2]]
// CHECK: %[[S3:.*]] = memref.subview %[[BUF]][0] [%[[SZ]]] [1]
// CHECK: %[[O:.*]] = memref.subview %{{.*}}[0, %{{.*}}] [6, %[[SZ]]] [1, 1] : memref<6x?xf32> to memref<6x?xf32, strided<[?, 1], offset: ?>>
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %[[S3]] : {{.*}}) outs(%[[O]]
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @row_chain() {
    %c = hal.interface.constant {index = 0 : i32} : i32
    %n = arith.index_castui %c : i32 to index
    %x = hal.interface.binding(%n) {binding = 0 : i32} : memref<?x6xf32>
    %y = hal.interface.binding(%n) {binding = 1 : i32} : memref<6x?xf32>
    %zero = arith.constant 0.0 : f32
    %sum = memref.alloca(%n) : memref<?xf32>
    linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
    linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x6xf32>) outs(%sum : memref<?xf32>) {
    ^bb0(%a: f32, %acc: f32):
      %t = arith.addf %acc, %a : f32
      linalg.yield %t : f32
    }
    linalg.generic {indexing_maps = [#full, #row, #tr], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<?x6xf32>, memref<?xf32>) outs(%y : memref<6x?xf32>) {
    ^bb0(%a: f32, %s: f32, %o: f32):
      %d = arith.subf %a, %s : f32
      linalg.yield %d : f32
    }
    return
  }
}
