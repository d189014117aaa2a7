// RUN: kiln-opt --select-gpu-launch-config --tile-and-distribute --gpu-tile-matmul-shared %s | FileCheck %s
// The ONNX importer's Conv, a multiply-accumulate linalg.generic over (n,
// g, m, oh, ow | c, kh, kw) with X[n][g][c][oh*2 + kh][ow*2 + kw],
// W[g][m][c][kh][kw], out[n][g][m][oh][ow], goes through the shared-memory
// implicit GEMM per batch image and group: m = output channel of the
// group (8), n = output pixel (8 x 16 = 128, two block columns of 64), k
// = (c, kh, kw) (36). 16-pixel output rows move as aligned vector<4xf32>.
// @not_mac has the same maps but folds with maximumf: not a convolution,
// it stays a linalg.generic on the plain path.
#x = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 * 2 + d7)>
#w = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#o = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
module attributes {kiln.target = "cuda:sm_80"} {
  func.func @grouped() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1x2x4x17x33xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<2x8x4x3x3xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<1x2x8x8x16xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%0, %1 : memref<1x2x4x17x33xf32>, memref<2x8x4x3x3xf32>) outs(%2 : memref<1x2x8x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.addf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return
  }
  func.func @not_mac() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1x2x4x17x33xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<2x8x4x3x3xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<1x2x8x8x16xf32>
    linalg.generic {indexing_maps = [#x, #w, #o], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%0, %1 : memref<1x2x4x17x33xf32>, memref<2x8x4x3x3xf32>) outs(%2 : memref<1x2x8x8x16xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %3 = arith.mulf %in, %in_0 : f32
      %4 = arith.maximumf %out, %3 : f32
      linalg.yield %4 : f32
    }
    return
  }
}

// CHECK-LABEL: func.func @grouped()
// CHECK-SAME: block_tile = array<i64: 8, 64>, k_step = 16 : i64, pipeline = "gpu-conv-shared", thread_tile = array<i64: 2, 4>
// CHECK-NEXT: %[[AS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x8xf32, 3>
// CHECK-NEXT: %[[BS:.*]] = memref.alloca() {alignment = 16 : i64, kiln.gpu_distributed} : memref<16x64xf32, 3>
// CHECK-NOT: linalg.generic
// batch, group, channel blocks, pixel blocks, K steps
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %c1 step
// CHECK: scf.for %[[G:.*]] = %{{.*}} to %c2 step
// CHECK: scf.for %[[F0:.*]] = %{{.*}} to %c8 step %c8
// CHECK: scf.for %[[P0:.*]] = %{{.*}} to %c128 step %c64
// CHECK: scf.for %[[K0:.*]] = %{{.*}} to %c36 step %c16
// A: the group's filter, element by element
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[G]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<2x8x4x3x3xf32>
// CHECK-NEXT: memref.store %[[X]], %[[AS]]
// B: the group's input window at stride 2
// CHECK: %[[P:.*]] = arith.addi %[[P0]], %{{.*}} : index
// CHECK: %[[OH:.*]] = arith.divsi %[[P]], %c16 : index
// CHECK-NEXT: %[[OW:.*]] = arith.remsi %[[P]], %c16 : index
// CHECK: %[[SH:.*]] = arith.muli %[[OH]], %c2{{.*}} : index
// CHECK: %[[H:.*]] = arith.addi %[[SH]], %{{.*}} : index
// CHECK: %[[SW:.*]] = arith.muli %[[OW]], %c2{{.*}} : index
// CHECK: %[[W:.*]] = arith.addi %[[SW]], %{{.*}} : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %{{.*}}[%[[B]], %[[G]], %{{.*}}, %[[H]], %[[W]]] : memref<1x2x4x17x33xf32>
// CHECK-NEXT: memref.store %[[Y]], %[[BS]]
// CHECK: "hal.interface.barrier"() : () -> ()
// C: 2 channels x 4 pixels per thread as aligned vectors
// CHECK-COUNT-2: vector.load %{{.*}}[%[[B]], %[[G]], %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x2x8x8x16xf32>, vector<4xf32>
// CHECK: %{{.*}}:2 = scf.for
// CHECK-COUNT-2: vector.fma
// CHECK-COUNT-2: vector.store %{{.*}}, %{{.*}}[%[[B]], %[[G]], %{{.*}}, %{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<1x2x8x8x16xf32>, vector<4xf32>
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: } {kiln.gpu_distributed}

// CHECK-LABEL: func.func @not_mac()
// CHECK-NOT: block_tile
// CHECK-SAME: pipeline = "gpu-reduction"
// CHECK-NOT: memref.alloca
// CHECK: linalg.generic
// CHECK: arith.maximumf
