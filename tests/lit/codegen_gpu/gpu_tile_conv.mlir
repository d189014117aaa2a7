// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// conv_2d_nhwc_hwcf through the shared-memory GEMM as an implicit GEMM:
// m = output pixel (n, oh, ow) over the output tile (here 1 x 15 x 31 =
// 465 pixels), n = output channel (20), k = filter tap (kh, kw, c) over
// 5 x 3 x 3 = 45. A's elements are the input at (n, oh * 2 + kh,
// ow + kw * 2, c) (strides [2, 1], dilations [1, 2]), loaded one by one
// since 3 channels do not make groups of 4; the filter (B) and the output
// (C) rows are 20 floats, so they move as aligned vector<4xf32>.
// Launched with the configured block size, it takes the register path
// (A's groups as 4 scalar taps: gpu_tile_conv_rgb.mlir); the checks below
// follow the per-step path of other launches.

module attributes {kiln.target = "cuda:sm_80"} {
  func.func @conv() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1x33x35x3xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<5x3x3x20xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<1x15x31x20xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%0, %1 : memref<1x33x35x3xf32>, memref<5x3x3x20xf32>) outs(%2 : memref<1x15x31x20xf32>)
    return
  }
}

// CHECK-LABEL: func.func @conv()
// CHECK-SAME: block_tile = array<i64: 64, 20>, k_step = 16 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 4, 8>
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x64xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x24xf32, 3>
// CHECK-NOT: linalg.conv
// CHECK: scf.for %{{.*}} = %{{.*}} to %c465{{.*}} step %c64
// CHECK: scf.for %{{.*}} = %{{.*}} to %c20{{.*}} step %c20
// CHECK: scf.for %{{.*}} = %{{.*}} to %c45 step %c16 {
// A: scalar, the pixel and the tap decomposed
// CHECK-NOT: vector.load %{{.*}} : memref<1x33x35x3xf32>
// CHECK: %[[N:.*]] = arith.divsi %[[M:.*]], %c465 : index
// CHECK-NEXT: %[[R:.*]] = arith.remsi %[[M]], %c465 : index
// CHECK-NEXT: %[[OH:.*]] = arith.divsi %[[R]], %c31 : index
// CHECK-NEXT: %[[OW:.*]] = arith.remsi %[[R]], %c31 : index
// CHECK: %[[KH:.*]] = arith.divsi %[[K:.*]], %c9 : index
// CHECK: %[[T:.*]] = arith.remsi %[[K]], %c9{{.*}} : index
// CHECK: %[[KW:.*]] = arith.divsi %[[T]], %c3 : index
// CHECK: %[[C:.*]] = arith.remsi %[[T]], %c3{{.*}} : index
// CHECK: %[[SH:.*]] = arith.muli %[[OH]], %c2 : index
// CHECK: %[[H:.*]] = arith.addi %[[SH]], %[[KH]] : index
// CHECK: %[[DW:.*]] = arith.muli %[[KW]], %c2{{.*}} : index
// CHECK: %[[W:.*]] = arith.addi %[[OW]], %[[DW]] : index
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[N]], %[[H]], %[[W]], %[[C]]] : memref<1x33x35x3xf32>
// CHECK-NEXT: memref.store %[[X]], %[[AS]]
// B: the filter's rows as vectors
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<5x3x3x20xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}}, %[[BS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<16x24xf32, 3>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// C: 4 pixels x 8 channels per thread (48 thread tiles, at most one per
// thread of the 64; the workgroup-memory tiles are as wide as the thread
// tiles' grid, 24 columns)
// CHECK-COUNT-8: vector.load %{{.*}} {alignment = 16 : i64} : memref<1x15x31x20xf32>, vector<4xf32>
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: vector.fma
// CHECK-COUNT-8: vector.store %{{.*}} {alignment = 16 : i64} : memref<1x15x31x20xf32>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: } {kiln.gpu_distributed}
