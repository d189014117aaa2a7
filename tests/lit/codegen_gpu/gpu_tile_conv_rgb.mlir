// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// gpu-tile-matmul-shared's register path for an NHWC convolution whose
// channels are not a multiple of 4 (an RGB image's first convolution:
// 7 x 7 x 3 taps, K = 147, neither contiguous groups of 4 taps nor a K that
// groups of 4 divide). sm_90, 128 threads: a 64 x 16 block tile of 2 x 4
// thread tiles, 32-deep K steps (the last 19 deep). Each thread stages 4
// groups of A per step (64 x 32 / 4 / 128) as 4 scalar input loads each,
// its taps clamped to the step's last (min(k, kb - 1): the last step's
// rows past 19 are never read), issued before the K loop for step 0 and
// a step ahead inside it (carried to the next step with the 8
// accumulator scalars: 28 iter_args); C += the accumulators once after it. Before, such convolutions took
// the per-step path: element-by-element loads that each waited before
// their store, two barriers per step.

module attributes {kiln.target = "cuda:sm_90"} {
  func.func @rgb() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1x21x21x3xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<7x7x3x16xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<1x8x8x16xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%2 : memref<1x8x8x16xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%0, %1 : memref<1x21x21x3xf32>, memref<7x7x3x16xf32>) outs(%2 : memref<1x8x8x16xf32>)
    return
  }
}

// CHECK-LABEL: func.func @rgb()
// CHECK-SAME: block_tile = array<i64: 64, 16>, k_step = 32 : i64
// CHECK-SAME: thread_tile = array<i64: 2, 4>
// CHECK: %[[T128:.*]] = arith.cmpi eq, %{{.*}}, %c128 : index
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK: scf.if
// step 0's first group: its first tap clamped to the step's last (31)
// CHECK: %[[C31:.*]] = arith.constant 31 : index
// CHECK-NEXT: %[[K:.*]] = arith.minsi %{{.*}}, %[[C31]] : index
// CHECK: arith.divsi %[[K]], %c21{{.*}} : index
// CHECK: memref.load %{{.*}} : memref<1x21x21x3xf32>
// CHECK-COUNT-15: memref.load %{{.*}} : memref<1x21x21x3xf32>
// CHECK-NOT: memref.load %{{.*}} : memref<1x21x21x3xf32>
// CHECK-NOT: "hal.interface.barrier"
// CHECK: arith.constant 147 : index
// CHECK-NEXT: arith.constant 32 : index
// CHECK-NEXT: %{{.*}}:28 = scf.for %{{.*}} = %{{.*}} to %c147 step %{{.*}} iter_args(
// CHECK: "hal.interface.barrier"() : () -> ()
// the next step's groups, a step ahead
// CHECK-COUNT-16: memref.load %{{.*}} : memref<1x21x21x3xf32>
// CHECK: vector.fma
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: scf.yield
