// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 16 (avx512f): convolutions whose blocked
// filters (convert-convs-to-nhwc's [M/NB, kh, kw, C, NB], read in place)
// take 2 MiB or more prefetch, with each filter vector they load, the
// same row of the panel they read next (lower_conv.c prefetch_distance);
// smaller filters stay in cache from one call to the next and do not.
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
