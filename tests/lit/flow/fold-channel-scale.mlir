// RUN: kiln-opt %s --fold-channel-scale | FileCheck %s
// fold-channel-scale: a per-channel scale of a convolution's input (a
// squeeze-excitation's x * s before its projection) moves onto a per-call
// copy of the filter, W'[.., c, ..] = W[.., c, ..] * s[c], when the
// filter is the smaller tensor; the constant itself is never written.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[S2:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d2)>
// CHECK-DAG: #[[ID3:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SD:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-DAG: #[[BIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>
// CHECK-DAG: #[[BW:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
// CHECK-DAG: #[[S5:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (0, 0, 0, d3)>
//
// A 1x1 convolution: the scale, read at (d0, 0, 0, d3), is read at the
// filter's channel dim; the convolution reads x itself.
// CHECK-LABEL: func.func @pointwise(
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<1x1x4x3xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x1x4x3xf32>
// CHECK: %[[WS:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[S2]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[W]], %arg1 : tensor<1x1x4x3xf32>, tensor<1x1x1x4xf32>) outs(%[[E]] : tensor<1x1x4x3xf32>)
// CHECK: arith.mulf
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%arg0, %[[WS]] : tensor<1x5x6x4xf32>, tensor<1x1x4x3xf32>)
// CHECK-NOT: linalg.generic
// CHECK: return
//
// A depthwise 3x3 with a [C] scale (read at d3 alone), and a blocked
// filter [M/NB, KH, KW, C, NB] of a generic convolution (its channel loop
// d7 is the filter's dim 3).
// CHECK-LABEL: func.func @depthwise(
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[SD]], #[[ID3]]]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%arg0, %{{.*}} : tensor<1x5x6x4xf32>, tensor<3x3x4xf32>)
// CHECK-LABEL: func.func @blocked(
// CHECK: %[[WB:.*]] = linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[S5]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %arg1 : tensor<2x1x1x4x2xf32>, tensor<1x1x1x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[BIN]], #[[BW]], #{{map[0-9]*}}], {{.*}} ins(%arg0, %[[WB]] : tensor<1x5x6x4xf32>, tensor<2x1x1x4x2xf32>)
//
// Left alone: a filter larger than the activation, a batch of 2 (each
// image has its own scale), a scale varying over the image, and a
// scaled value read elsewhere too.
// CHECK-LABEL: func.func @big_filter(
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[G]],
// CHECK-LABEL: func.func @batch2(
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[G]],
// CHECK-LABEL: func.func @spatial(
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[G]],
// CHECK-LABEL: func.func @shared(
// CHECK: %[[G:.*]] = linalg.generic
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[G]],
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#sc = affine_map<(d0, d1, d2, d3) -> (d0, 0, 0, d3)>
#c = affine_map<(d0, d1, d2, d3) -> (d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, d3)>
func.func @pointwise(%x: tensor<1x5x6x4xf32>, %s: tensor<1x1x1x4xf32>) -> tensor<1x5x6x3xf32> {
  %w = arith.constant dense<[[[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [1.0, 0.5, 0.25]]]]> : tensor<1x1x4x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#sc, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %x : tensor<1x1x1x4xf32>, tensor<1x5x6x4xf32>) outs(%e : tensor<1x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x5x6x4xf32>
  %e2 = tensor.empty() : tensor<1x5x6x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<1x5x6x4xf32>, tensor<1x1x4x3xf32>) outs(%f : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  return %r : tensor<1x5x6x3xf32>
}
func.func @depthwise(%x: tensor<1x5x6x4xf32>, %s: tensor<4xf32>) -> tensor<1x3x4x4xf32> {
  %w = arith.constant dense<0.5> : tensor<3x3x4xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #c, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x5x6x4xf32>, tensor<4xf32>) outs(%e : tensor<1x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x5x6x4xf32>
  %e2 = tensor.empty() : tensor<1x3x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<1x5x6x4xf32>, tensor<3x3x4xf32>) outs(%f : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  return %r : tensor<1x3x4x4xf32>
}
func.func @blocked(%x: tensor<1x5x6x4xf32>, %s: tensor<1x1x1x4xf32>) -> tensor<1x5x6x2x2xf32> {
  %w = arith.constant dense<0.25> : tensor<2x1x1x4x2xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x5x6x4xf32>, tensor<1x1x1x4xf32>) outs(%e : tensor<1x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x5x6x4xf32>
  %e2 = tensor.empty() : tensor<1x5x6x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x5x6x2x2xf32>) -> tensor<1x5x6x2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%g, %w : tensor<1x5x6x4xf32>, tensor<2x1x1x4x2xf32>) outs(%f : tensor<1x5x6x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s2 = arith.addf %o, %m : f32
    linalg.yield %s2 : f32
  } -> tensor<1x5x6x2x2xf32>
  return %r : tensor<1x5x6x2x2xf32>
}
func.func @big_filter(%x: tensor<1x2x2x4xf32>, %s: tensor<1x1x1x4xf32>) -> tensor<1x2x2x8xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x2x2x4xf32>, tensor<1x1x1x4xf32>) outs(%e : tensor<1x2x2x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x2x2x4xf32>
  %e2 = tensor.empty() : tensor<1x2x2x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<1x2x2x4xf32>, tensor<1x1x4x8xf32>) outs(%f : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  return %r : tensor<1x2x2x8xf32>
}
func.func @batch2(%x: tensor<2x5x6x4xf32>, %s: tensor<2x1x1x4xf32>) -> tensor<2x5x6x3xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x4x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<2x5x6x4xf32>, tensor<2x1x1x4xf32>) outs(%e : tensor<2x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<2x5x6x4xf32>
  %e2 = tensor.empty() : tensor<2x5x6x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<2x5x6x3xf32>) -> tensor<2x5x6x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<2x5x6x4xf32>, tensor<1x1x4x3xf32>) outs(%f : tensor<2x5x6x3xf32>) -> tensor<2x5x6x3xf32>
  return %r : tensor<2x5x6x3xf32>
}
func.func @spatial(%x: tensor<1x5x6x4xf32>, %s: tensor<1x5x1x4xf32>) -> tensor<1x5x6x3xf32> {
  %w = arith.constant dense<1.0> : tensor<1x1x4x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x5x6x4xf32>, tensor<1x5x1x4xf32>) outs(%e : tensor<1x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x5x6x4xf32>
  %e2 = tensor.empty() : tensor<1x5x6x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<1x5x6x4xf32>, tensor<1x1x4x3xf32>) outs(%f : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  return %r : tensor<1x5x6x3xf32>
}
func.func @shared(%x: tensor<1x5x6x4xf32>, %s: tensor<1x1x1x4xf32>) -> (tensor<1x5x6x3xf32>, tensor<1x5x6x4xf32>) {
  %w = arith.constant dense<1.0> : tensor<1x1x4x3xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x6x4xf32>
  %g = linalg.generic {indexing_maps = [#id, #sc, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s : tensor<1x5x6x4xf32>, tensor<1x1x1x4xf32>) outs(%e : tensor<1x5x6x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x5x6x4xf32>
  %e2 = tensor.empty() : tensor<1x5x6x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%g, %w : tensor<1x5x6x4xf32>, tensor<1x1x4x3xf32>) outs(%f : tensor<1x5x6x3xf32>) -> tensor<1x5x6x3xf32>
  return %r, %g : tensor<1x5x6x3xf32>, tensor<1x5x6x4xf32>
}
