// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// Four distributed dims: x = the innermost (2 tiles of 8192 over 9000),
// y = the next (5), z = the two outer ones collapsed (3 * 2 = 6) and
// delinearized with the innermost of them varying fastest.

// CHECK: workgroup_count = array<i64: 2, 5, 6>
// CHECK: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[Y:.*]] = hal.interface.workgroup.id {dim = 1 : i32} : index
// CHECK: %[[Z:.*]] = hal.interface.workgroup.id {dim = 2 : i32} : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[D1:.*]] = arith.remui %[[Z]], %[[C3]] : index
// CHECK: %[[D0:.*]] = arith.divui %[[Z]], %[[C3]] : index
// CHECK: %[[D3:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: %[[S3:.*]] = arith.minsi
// CHECK: memref.subview %{{.*}}[%[[D0]], %[[D1]], %[[Y]], %[[D3]]] [1, 1, 1, %[[S3]]] [1, 1, 1, 1] : memref<2x3x5x9000xf32> to memref<1x1x1x?xf32, strided<[135000, 45000, 9000, 1], offset: ?>>
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @collapse() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<2x3x5x9000xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<2x3x5x9000xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<2x3x5x9000xf32>) outs(%o : memref<2x3x5x9000xf32>) {
    ^bb0(%x: f32, %out: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
    return
  }
}
