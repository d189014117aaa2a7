// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// Two-worker splits of window reductions and pads: tiles cut the output
// rows by a divisor and the channels by a divisor of their 16-lane groups,
// the fewest tiles reaching the work's target with an even count where
// there is one.
//
// A pad (a fill of the whole padded buffer, then a copy into its
// interior) splits along the dims it does not pad (batch, channels), and
// the fill is restricted to the same batch and channels as the copy.
// CHECK-LABEL: func.func @pad_nhwc()
// CHECK-SAME: tile_sizes = array<i64: 1, 40, 40, 32>, {{.*}}workgroup_count = array<i64: 2, 2, 1>
// CHECK-DAG: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK-DAG: %[[Y:.*]] = hal.interface.workgroup.id {dim = 1 : i32} : index
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<2x42x42x64xf32>
// CHECK: %[[PF:.*]] = memref.subview %[[P]][%{{.*}}, 0, 0, %{{.*}}] [1, 42, 42, 32] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[PF]] :
// CHECK: %[[W:.*]] = memref.subview %[[P]][0, 1, 1, 0] [2, 40, 40, 64]
// CHECK: %[[WT:.*]] = memref.subview %[[W]][%{{.*}}, 0, 0, %{{.*}}] [1, 40, 40, 32] [1, 1, 1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[WT]] :
//
// A global pool (one output row) whose fused body (a SiLU recomputed
// before the sum) counts 5 ops: 2 tiles of 48 channels (at 1 op it would
// stay one workgroup, like @small_pool), the fill split with it.
// CHECK-LABEL: func.func @global_pool_silu()
// CHECK-SAME: tile_sizes = array<i64: 1, 48, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x48xf32, strided<[96, 1], offset: ?>>)
// CHECK: memref.subview %{{.*}}[0, 0, 0, %{{.*}}] [1, 56, 56, 48]
//
// A depthwise convolution on a 7x7 map: channels in 4 tiles, not rows in 7
// (4 against 3 on two workers).
// CHECK-LABEL: func.func @depthwise_7x7()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 7, 512, 0, 0>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
//
// A small pool stays one workgroup.
// CHECK-LABEL: func.func @small_pool()
// CHECK-SAME: workgroup_count = array<i64: 1, 1, 1>
module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @pad_nhwc() {
    %z = arith.constant 0.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<2x40x40x64xf32>
    %p = hal.interface.binding {binding = 1 : i32} : memref<2x42x42x64xf32>
    linalg.fill ins(%z : f32) outs(%p : memref<2x42x42x64xf32>)
    %pw = memref.subview %p[0, 1, 1, 0] [2, 40, 40, 64] [1, 1, 1, 1] : memref<2x42x42x64xf32> to memref<2x40x40x64xf32, strided<[112896, 2688, 64, 1], offset: 2752>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<2x40x40x64xf32>) outs(%pw : memref<2x40x40x64xf32, strided<[112896, 2688, 64, 1], offset: 2752>>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
  func.func @global_pool_silu() {
    %z = arith.constant 0.000000e+00 : f32
    %one = arith.constant 1.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x56x56x96xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x96xf32>
    linalg.fill ins(%z : f32) outs(%o : memref<1x96xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a : memref<1x56x56x96xf32>) outs(%o : memref<1x96xf32>) {
    ^bb0(%x: f32, %out: f32):
      %n = arith.negf %x : f32
      %e = math.exp %n : f32
      %d = arith.addf %e, %one : f32
      %s = arith.divf %x, %d : f32
      %r = arith.addf %out, %s : f32
      linalg.yield %r : f32
    }
    return
  }
  func.func @depthwise_7x7() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x9x9x2048xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x2048xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x2048xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<1x9x9x2048xf32>, memref<3x3x2048xf32>) outs(%o : memref<1x7x7x2048xf32>)
    return
  }
  func.func @small_pool() {
    %z = arith.constant 0.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x64xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x64xf32>
    linalg.fill ins(%z : f32) outs(%o : memref<1x64xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a : memref<1x7x7x64xf32>) outs(%o : memref<1x64xf32>) {
    ^bb0(%x: f32, %out: f32):
      %r = arith.addf %out, %x : f32
      linalg.yield %r : f32
    }
    return
  }
}
