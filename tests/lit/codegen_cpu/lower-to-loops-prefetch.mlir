// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): convolutions whose blocked
// filters (convert-convs-to-nhwc's [M/NB, kh, kw, C, NB], read in place)
// take 2 MiB or more prefetch, with each filter vector they load, the
// same row of the panel they read next (lower_conv.c prefetch_distance);
// so do those of 64 KiB or more whose workgroups each read their own
// blocks (kiln.launch's workgroup count times the tile's filter less than
// twice the filter: w_read_once); other smaller filters stay in cache
// from one call to the next, or from one workgroup to the next, and do
// not.
// A fused epilogue's input read per output pixel (a residual) is
// prefetched into L1 for every register row and column vector of a tile
// before its reduction (lower_conv.c prefetch_epilogue); one read the
// same for every pixel (a bias) is not.
// CHECK-NOT: linalg.

// 8 blocks of 16 on 16 lanes, 2.25 MiB: paired blocks, the filter rows
// of a block (3 x 3 x 512 x 16 floats) past the panel budget, so each
// kh row is a reduction block and the next panel is the next kh row,
// 3 x 512 x 16 = 24576 floats on.
// CHECK-LABEL: func.func @conv_prefetch()
// CHECK: %[[D:.*]] = arith.constant 24576 : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[L:.*]], %[[D]] : index
// CHECK-NEXT: memref.prefetch %[[W:.*]][%[[B:.*]], %[[KH:.*]], %[[KW:.*]], %[[C:.*]], %[[I]]], read, locality<1>, data : memref<8x3x3x512x16xf32>
// CHECK-NEXT: vector.load %[[W]][%[[B]], %[[KH]], %[[KW]], %[[C]], %[[L]]] : memref<8x3x3x512x16xf32>, vector<16xf32>
// CHECK: memref.prefetch %[[W]]
// CHECK-NEXT: vector.load %[[W]]
// CHECK-NOT: memref.prefetch
// CHECK-LABEL: func.func @conv_small()
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK-NOT: memref.prefetch

// A 1x1 400 -> 128 in blocks of 16 (200 KiB) over 7x7 pixels, the
// launch's one workgroup reading the whole filter: paired blocks, the
// next panel the next pair, 2 x 400 x 16 = 12800 floats on. (Fails on
// the 2 MiB rule alone.)
// CHECK-LABEL: func.func @conv_once()
// CHECK: %[[D:.*]] = arith.constant 12800 : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[L:.*]], %[[D]] : index
// CHECK-NEXT: memref.prefetch %[[W:.*]][%[[B:.*]], %[[KH:.*]], %[[KW:.*]], %[[C:.*]], %[[I]]], read, locality<1>, data : memref<8x1x1x400x16xf32>
// CHECK-NEXT: vector.load %[[W]][%[[B]], %[[KH]], %[[KW]], %[[C]], %[[L]]] : memref<8x1x1x400x16xf32>, vector<16xf32>
// The same launched as two workgroups of pixels (each reads the whole
// filter: the second finds it in cache).
// CHECK-LABEL: func.func @conv_split()
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK-NOT: memref.prefetch
// The same filter in HWCF (all 128 output channels along its last dim:
// the next column block lies in the same rows) is not prefetched.
// CHECK-LABEL: func.func @conv_hwcf_once()
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK-NOT: memref.prefetch

// 1x1, 2 rows of 20 pixels merged into one row loop of 40, 32 channels:
// tiles of 8 rows x 2 vectors, so 16 prefetches of the residual
// (binding 3) before the fmas, none of the bias (binding 2), and the
// residual loaded at the same indices in the epilogue.
// CHECK-LABEL: func.func @conv_residual()
// CHECK: %[[RES:.*]] = hal.interface.binding {binding = 3 : i32}
// CHECK: memref.prefetch %[[RES]][%[[N:.*]], %[[H:.*]], %[[P:.*]], %[[J:.*]]], read, locality<3>, data : memref<1x2x20x32xf32>
// CHECK-COUNT-15: memref.prefetch %[[RES]][{{.*}}], read, locality<3>, data : memref<1x2x20x32xf32>
// CHECK-NOT: memref.prefetch
// CHECK: vector.fma
// CHECK-NOT: memref.prefetch
// CHECK: vector.load %[[RES]][%[[N]], %[[H]], %[[P]], %[[J]]] : memref<1x2x20x32xf32>, vector<16xf32>
// CHECK-NOT: memref.prefetch
// CHECK: return

module attributes {kiln.target = "llvm-cpu:x86_64+avx512f"} {
  func.func @conv_prefetch() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x4x512xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x3x3x512x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x2x8x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x4x4x512xf32>, memref<8x3x3x512x16xf32>) outs(%o : memref<1x2x2x8x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @conv_small() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x4x64xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x3x3x64x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x2x8x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x4x4x64xf32>, memref<8x3x3x64x16xf32>) outs(%o : memref<1x2x2x8x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @conv_once() attributes {kiln.launch = {pipeline = "cpu-conv", tile_sizes = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, vector_width = 16 : i64, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>}} {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x400xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x1x1x400x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x8x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x7x7x400xf32>, memref<8x1x1x400x16xf32>) outs(%o : memref<1x7x7x8x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @conv_split() attributes {kiln.launch = {pipeline = "cpu-conv", tile_sizes = array<i64: 0, 0, 0, 0, 0, 0, 0, 0>, vector_width = 16 : i64, workgroup_count = array<i64: 2, 1, 1>, workgroup_size = array<i64: 1, 1, 1>}} {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x400xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<8x1x1x400x16xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x8x16xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x7x7x400xf32>, memref<8x1x1x400x16xf32>) outs(%o : memref<1x7x7x8x16xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @conv_hwcf_once() attributes {kiln.launch = {pipeline = "cpu-conv", tile_sizes = array<i64: 0, 0, 0, 0, 0, 0, 0>, vector_width = 16 : i64, workgroup_count = array<i64: 1, 1, 1>, workgroup_size = array<i64: 1, 1, 1>}} {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x7x7x400xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x400x128xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x7x7x128xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x7x7x400xf32>, memref<1x1x400x128xf32>) outs(%o : memref<1x7x7x128xf32>)
    return
  }
  func.func @conv_residual() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x2x20x64xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x64x32xf32>
    %bias = hal.interface.binding {binding = 2 : i32} : memref<32xf32>
    %res = hal.interface.binding {binding = 3 : i32} : memref<1x2x20x32xf32>
    %o = hal.interface.binding {binding = 4 : i32} : memref<1x2x20x32xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x2x20x32xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x2x20x64xf32>, memref<1x1x64x32xf32>) outs(%o : memref<1x2x20x32xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %bias, %res : memref<1x2x20x32xf32>, memref<32xf32>, memref<1x2x20x32xf32>) outs(%o : memref<1x2x20x32xf32>) {
    ^bb0(%x: f32, %b: f32, %r: f32, %out: f32):
      %s = arith.addf %x, %b : f32
      %t = arith.addf %s, %r : f32
      %u = arith.maximumf %t, %zero : f32
      linalg.yield %u : f32
    }
    return
  }
}
