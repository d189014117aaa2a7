// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// conv_2d_nchw_fchw through the shared-memory GEMM as an implicit GEMM per
// batch image: m = output channel f, n = output pixel (oh, ow) (contiguous
// in the NCHW output), k = filter tap (c, kh, kw) (contiguous in the
// filter). A is the filter, B the input at (b, c, oh * sh + kh * dh,
// ow * sw + kw * dw), C the output.
// @conv: batch 2, 3 input channels, 20 output channels, 7 x 9 = 63 output
// pixels, strides [2, 2], dilations [1, 2]. Filter and input move element
// by element, consecutive threads on consecutive k (filter) and n
// (input); 9-pixel output rows are not groups of 4, so the 4 x 4 thread
// tile's vector accumulators are read and written lane by lane.
// @conv1x1: 1x1 at stride 1 with 16-pixel rows: the input (B) and the
// output (C) move as aligned vector<4xf32>.

module attributes {kiln.target = "cuda:sm_80"} {
  func.func @conv() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<2x3x17x21xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<20x3x3x3xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<2x20x7x9xf32>
    linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>} ins(%0, %1 : memref<2x3x17x21xf32>, memref<20x3x3x3xf32>) outs(%2 : memref<2x20x7x9xf32>)
    return
  }
  func.func @conv1x1() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<2x16x8x16xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<36x16x1x1xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<2x36x8x16xf32>
    linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%0, %1 : memref<2x16x8x16xf32>, memref<36x16x1x1xf32>) outs(%2 : memref<2x36x8x16xf32>)
    return
  }
}

// CHECK-LABEL: func.func @conv()
// CHECK-SAME: block_tile = array<i64: 20, 63>, k_step = 16 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 4, 4>
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x20xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x64xf32, 3>
// CHECK-NOT: linalg.conv
// batch, channel blocks, pixel blocks, K steps over c x kh x kw = 27
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c2 step %c1 {
// CHECK: scf.for %[[F0:.*]] = %{{.*}} to %c20 step %c20{{.*}} {
// CHECK: scf.for %[[P0:.*]] = %{{.*}} to %c63 step %c63{{.*}} {
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c27 step %c16 {
// A: the filter, element e -> (row e / 16, k e % 16), k split as (c, kh, kw)
// CHECK: scf.for %[[E:.*]] = %{{.*}} to %c320 step
// CHECK: %[[R:.*]] = arith.divsi %[[E]], %c16{{.*}} : index
// CHECK-NEXT: %c16{{.*}} = arith.constant 16 : index
// CHECK-NEXT: %[[KQ:.*]] = arith.remsi %[[E]], %c16{{.*}} : index
// CHECK: scf.if
// CHECK-NEXT: %[[F:.*]] = arith.addi %[[F0]], %[[R]] : index
// CHECK-NEXT: %[[K:.*]] = arith.addi %[[K0]], %[[KQ]] : index
// CHECK: %[[C:.*]] = arith.divsi %[[K]], %c9{{.*}} : index
// CHECK: %[[T:.*]] = arith.remsi %[[K]], %c9{{.*}} : index
// CHECK: %[[KH:.*]] = arith.divsi %[[T]], %c3 : index
// CHECK: %[[KW:.*]] = arith.remsi %[[T]], %c3{{.*}} : index
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[F]], %[[C]], %[[KH]], %[[KW]]] : memref<20x3x3x3xf32>
// CHECK-NEXT: memref.store %[[X]], %[[AS]][%[[KQ]], %[[R]]] : memref<16x20xf32, 3>
// B: the input, element e -> (k e / 63, pixel e % 63), consecutive threads on consecutive pixels
// CHECK: scf.for %[[E2:.*]] = %{{.*}} to %c1008 step
// CHECK: %[[KR:.*]] = arith.divsi %[[E2]], %c63{{.*}} : index
// CHECK-NEXT: %c63{{.*}} = arith.constant 63 : index
// CHECK-NEXT: %[[NQ:.*]] = arith.remsi %[[E2]], %c63{{.*}} : index
// CHECK: scf.if
// CHECK-NEXT: %[[K2:.*]] = arith.addi %[[K0]], %[[KR]] : index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[P0]], %[[NQ]] : index
// CHECK: %[[C2:.*]] = arith.divsi %[[K2]], %c9{{.*}} : index
// CHECK: %[[T2:.*]] = arith.remsi %[[K2]], %c9{{.*}} : index
// CHECK: %[[KH2:.*]] = arith.divsi %[[T2]], %c3 : index
// CHECK: %[[KW2:.*]] = arith.remsi %[[T2]], %c3{{.*}} : index
// CHECK-NEXT: %[[OH:.*]] = arith.divsi %[[P]], %c9 : index
// CHECK-NEXT: %[[OW:.*]] = arith.remsi %[[P]], %c9 : index
// CHECK: %[[SH:.*]] = arith.muli %[[OH]], %c2{{.*}} : index
// CHECK: %[[H:.*]] = arith.addi %[[SH]], %[[KH2]] : index
// CHECK: %[[SW:.*]] = arith.muli %[[OW]], %c2{{.*}} : index
// CHECK: %[[DW:.*]] = arith.muli %[[KW2]], %c2{{.*}} : index
// CHECK-NEXT: %[[W:.*]] = arith.addi %[[SW]], %[[DW]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %{{.*}}[%[[B]], %[[C2]], %[[H]], %[[W]]] : memref<2x3x17x21xf32>
// CHECK-NEXT: memref.store %[[Y]], %[[BS]][%[[KR]], %[[NQ]]] : memref<16x64xf32, 3>
// CHECK: "hal.interface.barrier"() : () -> ()
// C: 4 channels x 4 pixels per thread, no global vector access
// CHECK-NOT: vector.load %{{.*}} : memref<2x20x7x9xf32>
// CHECK: memref.load %{{.*}}[%[[B]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x20x7x9xf32>
// CHECK-NEXT: vector.broadcast
// CHECK-COUNT-3: vector.insert
// CHECK: %{{.*}}:4 = scf.for
// CHECK-COUNT-4: vector.fma
// CHECK-NOT: vector.store %{{.*}} : memref<2x20x7x9xf32>
// CHECK: vector.extract %{{.*}}#0[0]
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%[[B]], %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x20x7x9xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: } {kiln.gpu_distributed}

// CHECK-LABEL: func.func @conv1x1()
// CHECK-SAME: block_tile = array<i64: 36, 64>, k_step = 16 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 4, 8>
// CHECK-NOT: vector.load %{{.*}} : memref<36x16x1x1xf32>
// CHECK: memref.load %{{.*}} : memref<36x16x1x1xf32>
// CHECK: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x16x8x16xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}} {alignment = 16 : i64} : memref<16x64xf32, 3>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-COUNT-8: vector.load %{{.*}} {alignment = 16 : i64} : memref<2x36x8x16xf32>, vector<4xf32>
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: vector.fma
// CHECK-COUNT-8: vector.store %{{.*}} {alignment = 16 : i64} : memref<2x36x8x16xf32>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: } {kiln.gpu_distributed}
