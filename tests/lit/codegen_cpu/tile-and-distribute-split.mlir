// RUN: kiln-opt --select-launch-config --tile-and-distribute %s | FileCheck %s
// Two-worker splits of window reductions and pads: tiles cut the output
// rows by a divisor and the channels by a divisor of their 16-lane groups,
// the fewest tiles reaching the work's target with an even count where
// there is one.
//
// A pad (a fill of the whole padded buffer, then a copy into its
// interior) splits its rows like the dims it does not pad: each tile
// fills the padded rows its tile covers, the first tile also the row
// above the interior, the last the row below. The batch (2) is cut first,
// one image a tile, as a convolution's is (launch_rule.c outer_first),
// then the rows in 2 to reach 4 tiles.
// CHECK-LABEL: func.func @pad_nhwc()
// CHECK-SAME: tile_sizes = array<i64: 1, 20, 40, 64>, {{.*}}workgroup_count = array<i64: 2, 2, 1>
// CHECK: %[[X:.*]] = hal.interface.workgroup.id {dim = 0 : i32} : index
// CHECK: %[[B:.*]] = hal.interface.workgroup.id {dim = 1 : i32} : index
// CHECK: %[[OFF:.*]] = arith.muli %[[X]], %{{.*}} : index
// CHECK: %[[P:.*]] = hal.interface.binding {binding = 1 : i32} : memref<2x42x42x64xf32>
// CHECK: %[[FIRST:.*]] = arith.minsi %[[OFF]], %{{.*}} : index
// CHECK: %[[LO:.*]] = arith.addi %[[OFF]], %[[FIRST]] : index
// CHECK: %[[START:.*]] = arith.maxsi %{{.*}}, %[[LO]] : index
// CHECK: %[[PF:.*]] = memref.subview %[[P]][%[[B]], %{{.*}}, 0, 0] [1, %{{.*}}, 42, 64] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[PF]] : memref<1x?x42x64xf32
// CHECK: %[[W:.*]] = memref.subview %[[P]][0, 1, 1, 0] [2, 40, 40, 64]
// CHECK: %[[WT:.*]] = memref.subview %[[W]][%[[B]], %[[OFF]], 0, 0] [1, 20, 40, 64] [1, 1, 1, 1]
// CHECK: linalg.generic {{.*}} outs(%[[WT]] :
//
// A convolution computing into the window of a static pad (bufferized:
// only the border is filled around it) splits rows and channels as any
// convolution: each tile fills its channels of the border rows its rows
// cover (the row above for the first, the two below for the last), and
// of the left and right columns along its rows.
// CHECK-LABEL: func.func @conv_border()
// CHECK-SAME: tile_sizes = array<i64: 1, 8, 32, 32, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 4, 1>
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: %[[TOP:.*]] = memref.subview %{{.*}}[0, 0, 0, 0] [1, 1, 34, 64]
// CHECK: memref.subview %[[TOP]][0, %{{.*}}, 0, %{{.*}}] [1, %{{.*}}, 34, 32]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x?x34x32xf32
// CHECK: %[[BOT:.*]] = memref.subview %{{.*}}[0, 33, 0, 0] [1, 2, 34, 64]
// CHECK: memref.subview %[[BOT]][0, %{{.*}}, 0, %{{.*}}] [1, %{{.*}}, 34, 32]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x?x34x32xf32
// CHECK: %[[LEFT:.*]] = memref.subview %{{.*}}[0, 1, 0, 0] [1, 32, 1, 64]
// CHECK: memref.subview %[[LEFT]][0, %{{.*}}, 0, %{{.*}}] [1, 8, 1, 32]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x8x1x32xf32
// CHECK: %[[RIGHT:.*]] = memref.subview %{{.*}}[0, 1, 33, 0] [1, 32, 1, 64]
// CHECK: memref.subview %[[RIGHT]][0, %{{.*}}, 0, %{{.*}}] [1, 8, 1, 32]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : memref<1x8x1x32xf32
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
// Batched depthwise convolutions split their images first (outer_first),
// as the batched 1x1 convolutions around them do, so two workers each
// read the images their own core wrote: 8 images of 56x56x72, one a tile
// (the rows once gave 8 tiles of 7 rows of all 8 images); 3 images of
// 28x28x40 (a target of 8 tiles) take the rows in 4 for 12 tiles, the
// even count; 3 images of a small 14x14x24 map (a target of 2 tiles) take
// the rows in 2, 6 tiles, not 3 (2 against 1).
// CHECK-LABEL: func.func @depthwise_batch8()
// CHECK-SAME: tile_sizes = array<i64: 1, 56, 56, 72, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
// CHECK-LABEL: func.func @depthwise_batch3()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 28, 40, 0, 0>, {{.*}}workgroup_count = array<i64: 4, 3, 1>
// CHECK-LABEL: func.func @depthwise_batch3_small()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 14, 24, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 3, 1>
// 3 images of 23 rows (a target of 2): no even count with the images
// cut (3 tiles, 2 against 1), so the images stay whole and the rows
// split alone, 23 tiles of one row (12 against 11).
// CHECK-LABEL: func.func @depthwise_batch3_odd()
// CHECK-SAME: tile_sizes = array<i64: 3, 1, 20, 24, 0, 0>, {{.*}}workgroup_count = array<i64: 23, 1, 1>
//
// Where no divisors give an even count (launch_rule.c window_even), the
// rows, else the channels in whole lane groups, take an even count with a
// partial last tile: 144 channels (9 lane groups) at 65x65 gave 9 tiles
// of one group and all rows; now 2 row tiles of 33 + 32 each. A global
// pool of 144 channels: 3 tiles of 48 become 80 + 64.
// CHECK-LABEL: func.func @depthwise_odd_rows()
// CHECK-SAME: tile_sizes = array<i64: 1, 33, 65, 16, 0, 0>, {{.*}}workgroup_count = array<i64: 9, 2, 1>
// CHECK-LABEL: func.func @global_pool_odd()
// CHECK-SAME: tile_sizes = array<i64: 1, 80, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
//
// An elementwise op over 7 rows of a 7x7x784 map (no even count of rows
// is better) splits the channels instead: 400 + 384, 14 tiles, not 7.
// CHECK-LABEL: func.func @even_inner()
// CHECK-SAME: tile_sizes = array<i64: 1, 1, 7, 400>, {{.*}}workgroup_count = array<i64: 2, 7, 1>
//
// Elementwise ops whose element budget gives an odd tile count take the
// even one two workers finish soonest: 116 channels in 4 tiles of 29,
// not 3 of 41; 14 rows in 2 tiles of 7, not 3 of 5.
// CHECK-LABEL: func.func @even_channels()
// CHECK-SAME: tile_sizes = array<i64: 1, 29, 14, 14>, {{.*}}workgroup_count = array<i64: 4, 1, 1>
// CHECK-LABEL: func.func @even_rows()
// CHECK-SAME: tile_sizes = array<i64: 1, 7, 14, 116>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
// A small pool stays one workgroup.
// CHECK-LABEL: func.func @small_pool()
// CHECK-SAME: workgroup_count = array<i64: 1, 1, 1>
//
// Below the work target but not tiny, a pool and a pad take two tiles,
// not one (on two workers each thread then reads the half its producer
// wrote on its own core): a global pool of 13x13x256 in 2 tiles of 128
// channels, a pad of 28x28x24 (not a multiple of 16 channels) in 2 tiles
// of 14 rows.
// CHECK-LABEL: func.func @modest_pool()
// CHECK-SAME: tile_sizes = array<i64: 1, 128, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
// CHECK-LABEL: func.func @modest_pad()
// CHECK-SAME: tile_sizes = array<i64: 1, 14, 28, 24>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
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
  func.func @conv_border() {
    %z = arith.constant 0.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x32x32x32xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x32x64xf32>
    %p = hal.interface.binding {binding = 2 : i32} : memref<1x35x34x64xf32>
    %w = memref.subview %p[0, 1, 1, 0] [1, 32, 32, 64] [1, 1, 1, 1] : memref<1x35x34x64xf32> to memref<1x32x32x64xf32, strided<[76160, 2176, 64, 1], offset: 2240>>
    linalg.fill ins(%z : f32) outs(%w : memref<1x32x32x64xf32, strided<[76160, 2176, 64, 1], offset: 2240>>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<1x32x32x32xf32>, memref<1x1x32x64xf32>) outs(%w : memref<1x32x32x64xf32, strided<[76160, 2176, 64, 1], offset: 2240>>)
    %top = memref.subview %p[0, 0, 0, 0] [1, 1, 34, 64] [1, 1, 1, 1] : memref<1x35x34x64xf32> to memref<1x1x34x64xf32, strided<[76160, 2176, 64, 1]>>
    linalg.fill ins(%z : f32) outs(%top : memref<1x1x34x64xf32, strided<[76160, 2176, 64, 1]>>)
    %bot = memref.subview %p[0, 33, 0, 0] [1, 2, 34, 64] [1, 1, 1, 1] : memref<1x35x34x64xf32> to memref<1x2x34x64xf32, strided<[76160, 2176, 64, 1], offset: 71808>>
    linalg.fill ins(%z : f32) outs(%bot : memref<1x2x34x64xf32, strided<[76160, 2176, 64, 1], offset: 71808>>)
    %left = memref.subview %p[0, 1, 0, 0] [1, 32, 1, 64] [1, 1, 1, 1] : memref<1x35x34x64xf32> to memref<1x32x1x64xf32, strided<[76160, 2176, 64, 1], offset: 2176>>
    linalg.fill ins(%z : f32) outs(%left : memref<1x32x1x64xf32, strided<[76160, 2176, 64, 1], offset: 2176>>)
    %right = memref.subview %p[0, 1, 33, 0] [1, 32, 1, 64] [1, 1, 1, 1] : memref<1x35x34x64xf32> to memref<1x32x1x64xf32, strided<[76160, 2176, 64, 1], offset: 4288>>
    linalg.fill ins(%z : f32) outs(%right : memref<1x32x1x64xf32, strided<[76160, 2176, 64, 1], offset: 4288>>)
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
  func.func @depthwise_batch8() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<8x58x58x72xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x72xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<8x56x56x72xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<8x58x58x72xf32>, memref<3x3x72xf32>) outs(%o : memref<8x56x56x72xf32>)
    return
  }
  func.func @depthwise_batch3() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x59x59x40xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<5x5x40xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<3x28x28x40xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%a, %f : memref<3x59x59x40xf32>, memref<5x5x40xf32>) outs(%o : memref<3x28x28x40xf32>)
    return
  }
  func.func @depthwise_batch3_small() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x16x16x24xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x24xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<3x14x14x24xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<3x16x16x24xf32>, memref<3x3x24xf32>) outs(%o : memref<3x14x14x24xf32>)
    return
  }
  func.func @depthwise_batch3_odd() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x25x22x24xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x24xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<3x23x20x24xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<3x25x22x24xf32>, memref<3x3x24xf32>) outs(%o : memref<3x23x20x24xf32>)
    return
  }
  func.func @depthwise_odd_rows() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x67x67x144xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x144xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x65x65x144xf32>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %f : memref<1x67x67x144xf32>, memref<3x3x144xf32>) outs(%o : memref<1x65x65x144xf32>)
    return
  }
  func.func @global_pool_odd() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x33x33x144xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x144xf32>
    %z = arith.constant 0.0 : f32
    linalg.fill ins(%z : f32) outs(%o : memref<1x144xf32>)
    linalg.generic {indexing_maps = [affine_map<(n, c, h, w) -> (n, h, w, c)>, affine_map<(n, c, h, w) -> (n, c)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a : memref<1x33x33x144xf32>) outs(%o : memref<1x144xf32>) {
    ^bb0(%x: f32, %acc: f32):
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @even_inner() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x784xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x7x7x784xf32>
    linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (n, h, w, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x7x7x784xf32>) outs(%o : memref<1x7x7x784xf32>) {
    ^bb0(%x: f32, %y: f32):
      %e = math.exp %x : f32
      linalg.yield %e : f32
    }
    return
  }
  func.func @even_channels() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x116x14x14xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x116x14x14xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x116x14x14xf32>) outs(%o : memref<1x116x14x14xf32>) {
    ^bb0(%x: f32, %out: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
    return
  }
  func.func @even_rows() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x14x14x116xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x14x14x116xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x14x14x116xf32>) outs(%o : memref<1x14x14x116xf32>) {
    ^bb0(%x: f32, %out: f32):
      %n = arith.negf %x : f32
      linalg.yield %n : f32
    }
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
  func.func @modest_pool() {
    %z = arith.constant 0.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x13x13x256xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x256xf32>
    linalg.fill ins(%z : f32) outs(%o : memref<1x256xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%a : memref<1x13x13x256xf32>) outs(%o : memref<1x256xf32>) {
    ^bb0(%x: f32, %out: f32):
      %r = arith.addf %out, %x : f32
      linalg.yield %r : f32
    }
    return
  }
  func.func @modest_pad() {
    %z = arith.constant 0.000000e+00 : f32
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x28x28x24xf32>
    %p = hal.interface.binding {binding = 1 : i32} : memref<1x30x30x24xf32>
    linalg.fill ins(%z : f32) outs(%p : memref<1x30x30x24xf32>)
    %pw = memref.subview %p[0, 1, 1, 0] [1, 28, 28, 24] [1, 1, 1, 1] : memref<1x30x30x24xf32> to memref<1x28x28x24xf32, strided<[21600, 720, 24, 1], offset: 744>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : memref<1x28x28x24xf32>) outs(%pw : memref<1x28x28x24xf32, strided<[21600, 720, 24, 1], offset: 744>>) {
    ^bb0(%x: f32, %out: f32):
      linalg.yield %x : f32
    }
    return
  }
}
