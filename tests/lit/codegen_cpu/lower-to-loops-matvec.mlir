// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, a matmul of few rows (a classifier's matvec at batch 1
// or 2), vector width 8 (avx2, 8 accumulators): the register tile is 4
// column vectors wide while the rows times 4 fit the accumulators, so each
// k step reads 4 vectors of B's row (32 columns), where a 2-vector tile
// read half of every row in each of two passes; 3 rows (12 accumulators)
// keep the 2-vector tile.

// CHECK-LABEL: func.func @mv1()
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %[[C64:.*]] step %[[C32:.*]] {
// CHECK: %{{.*}}:4 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-NEXT: %[[B0:.*]] = vector.load %[[B:.*]][%[[K]], %[[J0]]] : memref<16x64xf32>, vector<8xf32>
// CHECK-COUNT-3: vector.load %[[B]][%[[K]], %{{.*}}] : memref<16x64xf32>, vector<8xf32>
// CHECK-NEXT: %[[A0:.*]] = memref.load %{{.*}}[%{{.*}}, %[[K]]] : memref<1x16xf32>
// CHECK-NEXT: %[[AV:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK-COUNT-4: vector.fma %[[AV]], %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-NEXT: scf.yield
// CHECK-COUNT-4: vector.store

// CHECK-LABEL: func.func @mv2()
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C32:.*]] {
// CHECK: %{{.*}}:8 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-COUNT-4: vector.load %{{.*}}[%[[K]], %{{.*}}] : memref<16x64xf32>, vector<8xf32>
// CHECK-NEXT: memref.load %{{.*}} : memref<2x16xf32>
// CHECK-NEXT: vector.broadcast
// CHECK-COUNT-4: vector.fma
// CHECK-NEXT: memref.load %{{.*}} : memref<2x16xf32>
// CHECK-NEXT: vector.broadcast
// CHECK-COUNT-4: vector.fma
// CHECK-NEXT: scf.yield

// CHECK-LABEL: func.func @mv3()
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C16:.*]] {
// CHECK: %{{.*}}:6 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-COUNT-2: vector.load %{{.*}}[%[[K]], %{{.*}}] : memref<16x64xf32>, vector<8xf32>
// CHECK-NEXT: memref.load %{{.*}} : memref<3x16xf32>
module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @mv1() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x16xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<16x64xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<1x64xf32>
    linalg.matmul ins(%a, %b : memref<1x16xf32>, memref<16x64xf32>) outs(%c : memref<1x64xf32>)
    return
  }
  func.func @mv2() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<2x16xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<16x64xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<2x64xf32>
    linalg.matmul ins(%a, %b : memref<2x16xf32>, memref<16x64xf32>) outs(%c : memref<2x64xf32>)
    return
  }
  func.func @mv3() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x16xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<16x64xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<3x64xf32>
    linalg.matmul ins(%a, %b : memref<3x16xf32>, memref<16x64xf32>) outs(%c : memref<3x64xf32>)
    return
  }
}
