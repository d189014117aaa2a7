// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | kiln-opt --specialize-full-tiles | FileCheck %s
// RUN: kiln-opt --select-launch-config --tile-and-distribute --specialize-full-tiles --lower-to-loops %s | FileCheck %s --check-prefix=LOOPS
// specialize-full-tiles: 28000 elements in tiles of 8192 leave an edge tile
// of 3424. The full tile (bound - offset >= 8192) and the edge tile both
// get static shapes; lower-to-loops then vectorizes both. Tiles that
// divide the bounds get no scf.if. A matmul of 129x80 in 64x64 tiles has
// an edge in both dims: four static copies (64/1 rows x 64/16 columns),
// each on the register-blocked microkernel.

// CHECK-LABEL: func.func @edge()
// CHECK: %[[OFF:.*]] = arith.muli
// CHECK: %[[REM:.*]] = arith.subi %{{.*}}, %[[OFF]] : index
// CHECK-NOT: arith.minsi
// CHECK: %[[FULL:.*]] = arith.cmpi sge, %[[REM]], %{{.*}} : index
// CHECK: scf.if %[[FULL]] {
// CHECK: memref.subview %{{.*}}[%[[OFF]]] [8192] [1] : memref<28000xf32> to memref<8192xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>)
// CHECK: } else {
// CHECK: memref.subview %{{.*}}[%[[OFF]]] [3424] [1] : memref<28000xf32> to memref<3424xf32, strided<[1], offset: ?>>
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<3424xf32, strided<[1], offset: ?>>) outs(%{{.*}} : memref<3424xf32, strided<[1], offset: ?>>)
// CHECK: }
// CHECK-LABEL: func.func @exact()
// CHECK-NOT: scf.if
// CHECK: linalg.transpose ins(%{{.*}} : memref<8192xf32, strided<[1], offset: ?>>)
// CHECK-LABEL: func.func @matmul_edges()
// CHECK: scf.if
// CHECK: scf.if
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<64x32xf32, {{.*}}>, memref<32x64xf32, {{.*}}>) outs(%{{.*}} : memref<64x64xf32,
// CHECK: } else {
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<64x32xf32, {{.*}}>, memref<32x16xf32, {{.*}}>) outs(%{{.*}} : memref<64x16xf32,
// CHECK: } else {
// CHECK: scf.if
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<1x32xf32, {{.*}}>, memref<32x64xf32, {{.*}}>) outs(%{{.*}} : memref<1x64xf32,
// CHECK: } else {
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<1x32xf32, {{.*}}>, memref<32x16xf32, {{.*}}>) outs(%{{.*}} : memref<1x16xf32,
// CHECK-NOT: memref<?x

// LOOPS-LABEL: func.func @edge()
// LOOPS: scf.if
// LOOPS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOOPS-NEXT: %[[V:.*]] = vector.load %{{.*}}[%[[I]]] : memref<8192xf32, strided<[1], offset: ?>>, vector<8xf32>
// LOOPS-NEXT: %[[N:.*]] = arith.negf %[[V]] : vector<8xf32>
// LOOPS-NEXT: vector.store %[[N]], %{{.*}}[%[[I]]] : memref<8192xf32, strided<[1], offset: ?>>, vector<8xf32>
// LOOPS: } else {
// LOOPS: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// LOOPS-NEXT: %[[S:.*]] = vector.load %{{.*}}[%[[J]]] : memref<3424xf32, strided<[1], offset: ?>>, vector<8xf32>
// LOOPS-NEXT: %[[M:.*]] = arith.negf %[[S]] : vector<8xf32>
// LOOPS-NEXT: vector.store %[[M]], %{{.*}}[%[[J]]]
// LOOPS-NOT: linalg.
// LOOPS-LABEL: func.func @matmul_edges()
// LOOPS-COUNT-4: vector.fma
// LOOPS-NOT: memref.dim
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @edge() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<28000xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<28000xf32>
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : memref<28000xf32>) outs(%o : memref<28000xf32>) {
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
  func.func @matmul_edges() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<129x32xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<32x80xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<129x80xf32>
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%c : memref<129x80xf32>)
    linalg.matmul ins(%a, %b : memref<129x32xf32>, memref<32x80xf32>) outs(%c : memref<129x80xf32>)
    return
  }
}
