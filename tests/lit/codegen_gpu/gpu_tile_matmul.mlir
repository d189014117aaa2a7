// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// gpu-tile-matmul-shared on an sm_80 kernel (64 threads, 64x64 block
// tiles, 16-deep K steps, 8x8 thread tiles) whose rows are 16-byte aligned
// (68 and 260 floats) but whose sizes are not multiples of the tiles
// (130 rows, 260 columns, K = 68): A and B tiles go to workgroup memory
// (memory space 3, at the kernel entry; A transposed) through vector<4xf32>
// loads with alignment = 16 where a group of 4 lies in the tile, scalar
// loads guarded by the tile's sizes elsewhere; a barrier; each thread's
// 8x8 outputs as 16 vector accumulators over the K step (vector.fma of
// shared-memory rows), read and written back with aligned vector<4xf32>
// accesses, or guarded scalar loops for partial thread tiles; a barrier.
// The outermost new loop is marked kiln.gpu_distributed for
// distribute-to-threads; the fill before it is left to that pass.

module attributes {kiln.target = "cuda:sm_80"} {
  func.func @mm() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<130x68xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<68x260xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<130x260xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%2 : memref<130x260xf32>)
    linalg.matmul ins(%0, %1 : memref<130x68xf32>, memref<68x260xf32>) outs(%2 : memref<130x260xf32>)
    return
  }
}

// CHECK-LABEL: func.func @mm()
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x64xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x64xf32, 3>
// CHECK: linalg.fill
// CHECK: %[[A:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [%{{.*}}, 68] [1, 1] : memref<130x68xf32> to memref<?x68xf32, strided<[68, 1], offset: ?>>
// CHECK-NEXT: %[[B:.*]] = memref.subview
// CHECK-NEXT: %[[C:.*]] = memref.subview
// CHECK-NOT: linalg.matmul
// block tiles of the workgroup tile
// CHECK: scf.for %[[BM0:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %[[BN0:.*]] = %{{.*}} to %{{.*}} step %c64
// CHECK: %[[MB:.*]] = arith.minsi %c64{{.*}}, %{{.*}} : index
// CHECK: %[[NB:.*]] = arith.minsi %c64{{.*}}, %{{.*}} : index
// K steps
// Launched with the configured 64 threads, a block whose valid columns
// are a multiple of 4 (all of them here: 260 = 4 x 64 + 4) takes the
// register path: 8 x 8 = 64 thread tiles, their 64 accumulators in
// registers across the K steps (scalars in the loop's iter_args, so
// SIMT-on-CPU can keep them per thread), next to 32 scalars of the next
// step's staged A and B groups (4 + 4 vectors per thread); K = 68 leaves
// a 4-deep last step; C += the accumulators after the loop
// (gpu_tile_matmul_staged.mlir checks that path in detail).
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c64
// CHECK: %[[R4:.*]] = arith.remsi %[[NB]], %c4 : index
// CHECK-NEXT: %[[W4:.*]] = arith.cmpi eq, %[[R4]], %{{.*}} : index
// CHECK-NEXT: %[[FAST:.*]] = arith.andi %[[ONE]], %[[W4]] : i1
// CHECK-NEXT: scf.if %[[FAST]] {
// CHECK: %{{.*}}:96 = scf.for %{{.*}} = %{{.*}} to %c68 step %c16{{.*}} iter_args(
// CHECK: arith.minsi %c16{{.*}}, %{{.*}} : index
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: scf.for %{{.*}} iter_args(
// CHECK-COUNT-16: vector.fma
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: scf.yield
// CHECK-COUNT-16: vector.load %[[C]]
// CHECK: } else {
// Other launches accumulate in C per K step.
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c68 step %c16 {
// CHECK: %[[KB:.*]] = arith.minsi %c16{{.*}}, %{{.*}} : index
// 1. cooperative loads: A's 64 x 16 tile as 256 groups of 4 along k
// CHECK: %[[T:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: scf.for %[[G:.*]] = %[[T]] to %c256 step %[[N]] {
// CHECK: scf.if
// CHECK: %[[V:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x68xf32, strided<[68, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: %[[E0:.*]] = vector.extract %[[V]][0] : f32 from vector<4xf32>
// CHECK-NEXT: memref.store %[[E0]], %[[AS]][%{{.*}}, %{{.*}}] : memref<16x64xf32, 3>
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[AS]]
// B's 16 x 64 tile: rows copied as vectors
// CHECK: scf.for %{{.*}} = %[[T]] to %c256{{.*}} step %[[N]] {
// CHECK: %[[W:.*]] = vector.load %[[B]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<68x?xf32, strided<[260, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: vector.store %[[W]], %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, 3>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// 3. thread tiles
// CHECK-NEXT: %[[T2:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N2:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: scf.for %{{.*}} = %[[T2]] to %c64{{.*}} step %[[N2]] {
// CHECK: scf.if
// CHECK-COUNT-16: vector.load %[[C]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<?x?xf32, strided<[260, 1], offset: ?>>, vector<4xf32>
// CHECK: %{{.*}}:16 = scf.for %[[KK:.*]] = %{{.*}} to %[[KB]] step %{{.*}} iter_args(
// CHECK: vector.load %[[AS]][%[[KK]], %{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, 3>, vector<4xf32>
// CHECK: vector.load %[[BS]][%[[KK]], %{{.*}}] {alignment = 16 : i64} : memref<16x64xf32, 3>, vector<4xf32>
// CHECK: vector.broadcast
// CHECK-COUNT-16: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store %{{.*}}, %[[C]][%{{.*}}, %{{.*}}] {alignment = 16 : i64}
// CHECK: } else {
// partial thread tile: scalar loops bounded by the tile's valid sizes
// CHECK: arith.minsi %c8{{.*}}, %{{.*}} : index
// CHECK: scf.for
// CHECK: arith.minsi %c8{{.*}}, %{{.*}} : index
// CHECK: scf.for
// CHECK: memref.load %[[C]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[KB]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: memref.load %[[AS]]
// CHECK: memref.load %[[BS]]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[C]]
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } {kiln.gpu_distributed}
// CHECK-NEXT: return
