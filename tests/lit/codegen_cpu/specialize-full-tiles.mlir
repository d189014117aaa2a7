// RUN: kiln-opt-cpu --select-launch-config --tile-and-distribute --specialize-full-tiles %s | FileCheck %s
// RUN: kiln-opt-cpu --select-launch-config --tile-and-distribute --specialize-full-tiles --lower-to-loops %s | FileCheck %s --check-prefix=LOOPS
// specialize-full-tiles: 20000 elements in tiles of 8192 leave an edge tile
// of 3616. The full tile (bound - offset >= 8192) gets static shapes, the
// edge tile keeps the min() sizes; lower-to-loops then vectorizes the
// first and runs a scalar loop of memref.dim trips in the second. Tiles
// that divide the bounds get no scf.if.

// CHECK-LABEL: func.func @edge()
// CHECK: %[[OFF:.*]] = arith.muli
// CHECK: %[[REM:.*]] = arith.subi %{{.*}}, %[[OFF]] : index
// CHECK: %[[SIZE:.*]] = arith.minsi %{{.*}}, %[[REM]] : index
// CHECK: %[[FULL:.*]] = arith.cmpi sge, %[[REM]], %{{.*}} : index
// CHECK: scf.if %[[FULL]] {
// CHECK: memref.subview %{{.*}}[%[[OFF]]] [8192] [1] : memref<20000xf32> to memref<8192xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>)
// CHECK: } else {
// CHECK: memref.subview %{{.*}}[%[[OFF]]] [%[[SIZE]]] [1] : memref<20000xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<?xf32, strided<[1], offset: ?>>)
// CHECK: }
// CHECK-LABEL: func.func @exact()
// CHECK-NOT: scf.if
// CHECK: linalg.transpose ins(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>)

// LOOPS-LABEL: func.func @edge()
// LOOPS: scf.if
// LOOPS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOOPS-NEXT: %[[V:.*]] = vector.load %{{.*}}[%[[I]]] : memref<8192xf32, strided<[1], offset: ?>>, vector<8xf32>
// LOOPS-NEXT: %[[N:.*]] = arith.negf %[[V]] : vector<8xf32>
// LOOPS-NEXT: vector.store %[[N]], %{{.*}}[%[[I]]] : memref<8192xf32, strided<[1], offset: ?>>, vector<8xf32>
// LOOPS: } else {
// LOOPS: %[[D:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?xf32, strided<[1], offset: ?>>
// LOOPS: scf.for %[[J:.*]] = %{{.*}} to %[[D]] step %{{.*}} {
// LOOPS-NEXT: %[[S:.*]] = memref.load %{{.*}}[%[[J]]] : memref<?xf32, strided<[1], offset: ?>>
// LOOPS-NEXT: %[[M:.*]] = arith.negf %[[S]] : f32
// LOOPS-NEXT: memref.store %[[M]], %{{.*}}[%[[J]]]
// LOOPS-NOT: linalg.
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @edge() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<20000xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<20000xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<20000xf32>) outs(%o : memref<20000xf32>) {
    ^bb0(%x: f32, %out: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
    return
  }
  func.func @exact() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<16384xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<16384xf32>
    linalg.transpose ins(%a : memref<16384xf32>) outs(%o : memref<16384xf32>) permutation = [0]
    return
  }
}
