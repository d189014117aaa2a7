// RUN: kiln-opt %s --convert-convs-to-nhwc | FileCheck %s
// convert-convs-to-nhwc: NCHW convolutions with constant filters become
// channels-last ones between two transposes, the filter permuted at
// compile time into the layout the CPU kernels read.
//
// The grouped case's maps (below):
// CHECK-DAG: #[[GX:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d3, d7)>
// CHECK-DAG: #[[GW:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
// CHECK-DAG: #[[GO:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// and the blocked case's (below; its filter map is the grouped one):
// CHECK-DAG: #[[BX:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>
//
// The ONNX importer's form with one group: conv_2d_nhwc_hwcf; strides
// (2, 1) and dilations (1, 2) carried over; W [3 (m), 2 (c), 2, 2] with
// W[m][c][kh][kw] = 8m + 4c + 2kh + kw + 1 becomes HWCF
// W'[kh][kw][c][m], so W'[0][0][0] = [1, 9, 17], W'[0][0][1] = [5, 13, 21].
// CHECK-LABEL: func.func @plain(
// CHECK: %[[X:.*]] = linalg.transpose ins(%arg0 : tensor<2x2x5x6xf32>) outs(%{{.*}} : tensor<2x5x6x2xf32>) permutation = [0, 2, 3, 1]
// CHECK: %[[Z:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x2x4x3xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[\[}}1.000000e+00, 9.000000e+00, 1.700000e+01], [5.000000e+00, 1.300000e+01, 2.100000e+01]], {{\[\[}}2.000000e+00, 1.000000e+01, 1.800000e+01], [6.000000e+00, 1.400000e+01, 2.200000e+01]]], {{\[\[\[}}3.000000e+00, 1.100000e+01, 1.900000e+01], [7.000000e+00, 1.500000e+01, 2.300000e+01]], {{\[\[}}4.000000e+00, 1.200000e+01, 2.000000e+01], [8.000000e+00, 1.600000e+01, 2.400000e+01]]]]> : tensor<2x2x2x3xf32>
// CHECK: %[[C:.*]] = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%[[X]], %[[W]] : tensor<2x5x6x2xf32>, tensor<2x2x2x3xf32>) outs(%[[Z]] : tensor<2x2x4x3xf32>)
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[C]] : tensor<2x2x4x3xf32>) outs(%{{.*}} : tensor<2x3x2x4xf32>) permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: linalg.generic
//
// Depthwise (3 groups of one channel in, one out): depthwise_conv_2d_nhwc_hwc
// with W' [kh, kw, C]: W[c][0][0][kh][kw] = 10c + 2kh + kw.
// CHECK-LABEL: func.func @depthwise(
// CHECK: linalg.transpose ins(%arg0 : tensor<1x3x4x4xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[\[}}0.000000e+00, 1.000000e+01, 2.000000e+01], [1.000000e+00, 1.100000e+01, 2.100000e+01]], {{\[\[}}2.000000e+00, 1.200000e+01, 2.200000e+01], [3.000000e+00, 1.300000e+01, 2.300000e+01]]]> : tensor<2x2x3xf32>
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %[[W]] : tensor<1x4x4x3xf32>, tensor<2x2x3xf32>) outs(%{{.*}} : tensor<1x3x3x3xf32>)
// CHECK: linalg.transpose {{.*}} permutation = [0, 3, 1, 2]
//
// Two groups of 2 -> 3 channels: a generic over (n, oh, ow, g, m, c, kh,
// kw) on [N, H, W, G, C/G], the filter [G, kh, kw, C/G, M/G].
// CHECK-LABEL: func.func @grouped(
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<1x4x3x3xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK: %[[X5:.*]] = "flow.tensor.reshape"(%[[T]]) : (tensor<1x3x3x4xf32>) -> tensor<1x3x3x2x2xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[GX]], #[[GW]], #[[GO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[X5]], %{{.*}} : tensor<1x3x3x2x2xf32>, tensor<2x1x1x2x3xf32>) outs(%{{.*}} : tensor<1x3x3x2x3xf32>)
// CHECK: %[[Y4:.*]] = "flow.tensor.reshape"(%[[G]]) : (tensor<1x3x3x2x3xf32>) -> tensor<1x3x3x6xf32>
// CHECK: linalg.transpose ins(%[[Y4]] : tensor<1x3x3x6xf32>) {{.*}} permutation = [0, 3, 1, 2]
//
// linalg.conv_2d_nchw_fchw with a constant filter: the same as @plain.
// CHECK-LABEL: func.func @named(
// CHECK: linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%{{.*}}, %{{.*}} : tensor<1x3x3x2xf32>, tensor<2x2x2x1xf32>)
//
// A filter that is not a constant: left alone.
// CHECK-LABEL: func.func @runtime_filter(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.conv_2d_nchw_fchw
//
// A one-group filter of 64 KiB or more (64 x 32 x 3 x 3 floats = 72 KiB)
// with output channels a multiple of 32: blocks of 32 output channels,
// a generic reading all of [N, H, W, C] over reduction loops (kh, kw, c),
// input channels innermost, the filter [M/32, kh, kw, C, 32] in that
// order like the microkernel's panel rows (read in place, no per-call
// packing), the output [N, OH, OW, M/32, 32] viewed as [N, OH, OW, M].
// CHECK-LABEL: func.func @blocked(
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<1x32x5x5xf32>) {{.*}} permutation = [0, 2, 3, 1]
// CHECK-NOT: flow.tensor.reshape
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[BX]], #[[GW]], #[[GO]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[T]], %{{.*}} : tensor<1x5x5x32xf32>, tensor<2x3x3x32x32xf32>) outs(%{{.*}} : tensor<1x3x3x2x32xf32>)
// CHECK: %[[Y4:.*]] = "flow.tensor.reshape"(%[[B]]) : (tensor<1x3x3x2x32xf32>) -> tensor<1x3x3x64xf32>
// CHECK: linalg.transpose ins(%[[Y4]] : tensor<1x3x3x64xf32>) {{.*}} permutation = [0, 3, 1, 2]
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 * 2 + d6, d4 + d7 * 2)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#co = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#dx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
func.func @plain(%x: tensor<2x2x5x6xf32>) -> tensor<2x3x2x4xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]], [[[9.0, 10.0], [11.0, 12.0]], [[13.0, 14.0], [15.0, 16.0]]], [[[17.0, 18.0], [19.0, 20.0]], [[21.0, 22.0], [23.0, 24.0]]]]> : tensor<3x2x2x2xf32>
  %w5 = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 3, 2, 2, 2] : tensor<3x2x2x2xf32> into tensor<1x3x2x2x2xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [2, 1, 2, 5, 6] : tensor<2x2x5x6xf32> into tensor<2x1x2x5x6xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x3x2x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x3x2x4xf32>) -> tensor<2x1x3x2x4xf32>
  %c = linalg.generic {indexing_maps = [#cx, #cw, #co], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x5, %w5 : tensor<2x1x2x5x6xf32>, tensor<1x3x2x2x2xf32>) outs(%z : tensor<2x1x3x2x4xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x1x3x2x4xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<2x1x3x2x4xf32> into tensor<2x3x2x4xf32>
  return %f : tensor<2x3x2x4xf32>
}
func.func @depthwise(%x: tensor<1x3x4x4xf32>) -> tensor<1x3x3x3xf32> {
  %w = arith.constant dense<[[[[0.0, 1.0], [2.0, 3.0]]], [[[10.0, 11.0], [12.0, 13.0]]], [[[20.0, 21.0], [22.0, 23.0]]]]> : tensor<3x1x2x2xf32>
  %w5 = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [3, 1, 1, 2, 2] : tensor<3x1x2x2xf32> into tensor<3x1x1x2x2xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 3, 1, 4, 4] : tensor<1x3x4x4xf32> into tensor<1x3x1x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x1x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x1x3x3xf32>) -> tensor<1x3x1x3x3xf32>
  %c = linalg.generic {indexing_maps = [#dx, #cw, #co], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x5, %w5 : tensor<1x3x1x4x4xf32>, tensor<3x1x1x2x2xf32>) outs(%z : tensor<1x3x1x3x3xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x3x1x3x3xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x3x1x3x3xf32> into tensor<1x3x3x3xf32>
  return %f : tensor<1x3x3x3xf32>
}
func.func @grouped(%x: tensor<1x4x3x3xf32>) -> tensor<1x6x3x3xf32> {
  %w = arith.constant dense<1.5> : tensor<2x3x2x1x1xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 2, 2, 3, 3] : tensor<1x4x3x3xf32> into tensor<1x2x2x3x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x3x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x3x3x3xf32>) -> tensor<1x2x3x3x3xf32>
  %c = linalg.generic {indexing_maps = [#dx, #cw, #co], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x5, %w : tensor<1x2x2x3x3xf32>, tensor<2x3x2x1x1xf32>) outs(%z : tensor<1x2x3x3x3xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x2x3x3x3xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x2x3x3x3xf32> into tensor<1x6x3x3xf32>
  return %f : tensor<1x6x3x3xf32>
}
func.func @named(%x: tensor<1x2x3x3xf32>) -> tensor<1x1x2x2xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]]]]> : tensor<1x2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>) outs(%z : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %c : tensor<1x1x2x2xf32>
}
func.func @runtime_filter(%x: tensor<1x2x3x3xf32>, %w: tensor<1x2x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x2x3x3xf32>, tensor<1x2x2x2xf32>) outs(%z : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  return %c : tensor<1x1x2x2xf32>
}
func.func @blocked(%x: tensor<1x32x5x5xf32>) -> tensor<1x64x3x3xf32> {
  %w = arith.constant dense<0.5> : tensor<64x32x3x3xf32>
  %w5 = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 64, 32, 3, 3] : tensor<64x32x3x3xf32> into tensor<1x64x32x3x3xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 1, 32, 5, 5] : tensor<1x32x5x5xf32> into tensor<1x1x32x5x5xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x64x3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x64x3x3xf32>) -> tensor<1x1x64x3x3xf32>
  %c = linalg.generic {indexing_maps = [#dx, #cw, #co], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x5, %w5 : tensor<1x1x32x5x5xf32>, tensor<1x64x32x3x3xf32>) outs(%z : tensor<1x1x64x3x3xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x1x64x3x3xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x1x64x3x3xf32> into tensor<1x64x3x3xf32>
  return %f : tensor<1x64x3x3xf32>
}
