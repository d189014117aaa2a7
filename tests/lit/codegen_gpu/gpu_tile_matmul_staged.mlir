// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// gpu-tile-matmul-shared's register path on an sm_90 kernel (128 threads,
// 64x64 block tiles, 32-deep K steps, 4x8 thread tiles) with K = 96 and
// 16-byte aligned rows. Launched with the configured 128 threads and a
// block whose valid columns are a multiple of 4 (132 columns leave a
// 4-column edge block), each thread moves a fixed 4 groups of A
// (64 x 32 / 4 / 128) and 4 of B per K step as straight-line vector loads,
// rows and columns clamped to the block's valid ones (minsi), so edge
// blocks take this path too. The first step's groups are loaded before
// the K loop; each step stores the groups it carries into workgroup memory
// (A transposed), waits at a barrier, then loads the next step's groups
// (at min(k0 + 32, 64): the last step reloads its own) before its FMAs,
// and carries them as 16 x 4 scalars after the 32 accumulators, which
// start at zero (64 iter_args). C += the accumulators once after the
// loop: as vectors for a thread tile inside the block's valid part,
// element by element under a guard otherwise. Other launches take the
// per-step path after the else.

module attributes {kiln.target = "cuda:sm_90"} {
  func.func @mm() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<192x96xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<96x132xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<192x132xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%2 : memref<192x132xf32>)
    linalg.matmul ins(%0, %1 : memref<192x96xf32>, memref<96x132xf32>) outs(%2 : memref<192x132xf32>)
    return
  }
}

// CHECK-LABEL: func.func @mm()
// CHECK-SAME: block_tile = array<i64: 64, 64>, k_step = 32 : i64
// CHECK-SAME: thread_tile = array<i64: 4, 8>
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {{.*}} : memref<32x64xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {{.*}} : memref<32x64xf32, 3>
// CHECK: %[[A:.*]] = memref.subview %{{.*}} : memref<192x96xf32> to
// CHECK-NEXT: %[[B:.*]] = memref.subview
// CHECK-NEXT: %[[C:.*]] = memref.subview
// CHECK: scf.for %{{.*}} = %{{.*}} to %dim step %c64
// CHECK: arith.minsi
// CHECK: %[[NB:.*]] = arith.minsi %c64{{.*}}, %{{.*}} : index
// CHECK: %[[T128:.*]] = arith.cmpi eq, %{{.*}}, %c128 : index
// CHECK: %[[R4:.*]] = arith.remsi %[[NB]], %c4 : index
// CHECK-NEXT: %[[W4:.*]] = arith.cmpi eq, %[[R4]], %{{.*}} : index
// CHECK-NEXT: %[[GO:.*]] = arith.andi %[[T128]], %[[W4]] : i1
// CHECK-NEXT: scf.if %[[GO]] {
// CHECK-NOT: vector.load %[[C]]
// thread t's columns: 4 (t mod 8) and 32 more (its two 4-wide chunks
// interleave with its row neighbours', so a warp reads B's shared row as
// consecutive 16-byte chunks)
// CHECK: %[[TX:.*]] = arith.remsi %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[COL:.*]] = arith.muli %[[TX]], %[[FOUR]] : index
// the first K step's groups, B's columns clamped to the block's last group
// CHECK-COUNT-4: vector.load %[[A]][{{.*}}] {alignment = 16 : i64}
// CHECK: arith.addi %[[NB]], %c-4
// CHECK: vector.load %[[B]][{{.*}}] {alignment = 16 : i64}
// CHECK: %{{.*}}:64 = scf.for %[[K0:.*]] = %{{.*}} to %c96 step %c32{{.*}} iter_args(
// CHECK-COUNT-16: memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-4: vector.store %{{.*}}, %[[BS]]
// CHECK-NEXT: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K0]], %[[C32]] : index
// CHECK-NEXT: %[[LAST:.*]] = arith.constant 64 : index
// CHECK-NEXT: arith.minsi %[[LAST]], %[[NEXT]] : index
// CHECK-COUNT-4: vector.load %[[A]]
// CHECK-COUNT-4: vector.load %[[B]]
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>, vector<4xf32>) {
// CHECK: vector.load %[[BS]][%{{.*}}, %[[COL]]]
// CHECK-NEXT: %[[C32B:.*]] = arith.constant 32 : index
// CHECK-NEXT: %[[COL2:.*]] = arith.addi %[[COL]], %[[C32B]] : index
// CHECK-NEXT: vector.load %[[BS]][%{{.*}}, %[[COL2]]]
// CHECK-COUNT-8: vector.fma
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: scf.yield
// a whole thread tile: C += as vectors
// CHECK: scf.if %{{.*}} {
// CHECK: %[[OLD:.*]] = vector.load %[[C]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %{{.*}} : vector<4xf32>
// CHECK: vector.store %[[SUM]], %[[C]]
// across the block's edge: element by element
// CHECK: } else {
// CHECK: scf.if %{{.*}} {
// CHECK: memref.load %[[C]]
// CHECK: arith.addf %{{.*}} : f32
// CHECK-NEXT: memref.store %{{.*}}, %[[C]]
// other launches
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c96 step %c32 {
