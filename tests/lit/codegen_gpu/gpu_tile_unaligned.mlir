// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// gpu-tile-matmul-shared on sm_90 (128 threads, 4x8 thread tiles, 32-deep
// K steps) where global rows are not 16-byte aligned (33 and 65 floats):
// the vector<4xf32> global loads and stores keep the element alignment
// (no alignment attribute: NVPTX splits them), while workgroup-memory
// accesses stay 16-byte aligned. A batch_matmul walks its workgroup's
// batch; a 1x3 output gets 1x1 thread tiles with scalar accumulators; a
// kernel with private scratch (a bufferized intermediate, private to each
// GPU thread) is left to distribute-to-threads.

module attributes {kiln.target = "cuda:sm_90"} {
  func.func @bmm() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<3x70x33xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<3x33x65xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<3x70x65xf32>
    linalg.batch_matmul ins(%0, %1 : memref<3x70x33xf32>, memref<3x33x65xf32>) outs(%2 : memref<3x70x65xf32>)
    return
  }
  func.func @tiny() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1x5xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<5x3xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<1x3xf32>
    linalg.matmul ins(%0, %1 : memref<1x5xf32>, memref<5x3xf32>) outs(%2 : memref<1x3xf32>)
    return
  }
  func.func @scratch() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<8x8xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<8x8xf32>
    %t = memref.alloca() : memref<8x8xf32>
    linalg.matmul ins(%0, %0 : memref<8x8xf32>, memref<8x8xf32>) outs(%t : memref<8x8xf32>)
    linalg.matmul ins(%t, %0 : memref<8x8xf32>, memref<8x8xf32>) outs(%1 : memref<8x8xf32>)
    return
  }
}

// CHECK-LABEL: func.func @bmm()
// CHECK-SAME: block_tile = array<i64: 64, 64>, k_step = 32 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 4, 8>
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<32x64xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<32x64xf32, 3>
// CHECK: scf.for %[[BI:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c33 step %c32 {
// CHECK: vector.load %{{.*}}[%[[BI]], %{{.*}}, %{{.*}}] : memref<1x?x33xf32, strided<[2310, 33, 1], offset: ?>>, vector<4xf32>
// CHECK: vector.load %{{.*}}[%[[BI]], %{{.*}}, %{{.*}}] : memref<1x33x?xf32, strided<[2145, 65, 1], offset: ?>>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x64xf32, 3>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: scf.for %{{.*}} = %{{.*}} to %c128{{.*}} step
// CHECK-COUNT-8: vector.load %{{.*}}[%[[BI]], %{{.*}}, %{{.*}}] : memref<1x?x?xf32, strided<[4550, 65, 1], offset: ?>>, vector<4xf32>
// CHECK: %{{.*}}:8 = scf.for
// CHECK: vector.load %[[AS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<32x64xf32, 3>, vector<4xf32>
// CHECK-COUNT-8: vector.fma
// CHECK-COUNT-8: vector.store %{{.*}}, %{{.*}}[%[[BI]], %{{.*}}, %{{.*}}] : memref<1x?x?xf32, strided<[4550, 65, 1], offset: ?>>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: } {kiln.gpu_distributed}

// CHECK-LABEL: func.func @tiny()
// CHECK-SAME: block_tile = array<i64: 1, 3>, k_step = 5 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 1, 1>
// CHECK: memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<5x4xf32, 3>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: scf.if
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<1x3xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (f32) {
// CHECK: %[[P:.*]] = arith.mulf
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: } {kiln.gpu_distributed}

// CHECK-LABEL: func.func @scratch()
// CHECK-SAME: pipeline = "gpu-matmul"
// CHECK-NOT: kiln.gpu_distributed
// CHECK: linalg.matmul
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: return
