// RUN: kiln-opt %s --propagate-transposes | FileCheck %s
// propagate-transposes: a transpose moves below the generics, pads,
// concats and reshapes reading it until it meets its inverse.
// CHECK-DAG: #[[ID:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[LAST:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-DAG: #[[PIN:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d3)>
// CHECK-DAG: #[[POUT:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[NHWC:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>
//
// A channels-last value through bias + ReLU and a pad back to channels
// last: no transpose is left; the generic iterates NHWC (identity maps),
// the [1, 3, 1, 1] bias becomes [3] read at the last loop, the pad moves
// to the spatial dims of NHWC.
// CHECK-LABEL: func.func @chain(
// CHECK-NOT: linalg.transpose
// CHECK: %[[B:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[LAST]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %[[B]] : tensor<1x4x5x3xf32>, tensor<3xf32>)
// CHECK: tensor.pad %[[G]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK-NOT: linalg.transpose
// CHECK: return
//
// A max pool (its window input only gives loop bounds) and a residual
// add of two transposed values: both run channels-last, one transpose
// back at the end.
// CHECK-LABEL: func.func @pool_residual(
// CHECK: %[[M:.*]] = linalg.generic {indexing_maps = [#[[PIN]], #{{map[0-9]*}}, #[[POUT]]], {{.*}} ins(%arg0, %{{.*}} : tensor<1x5x5x2xf32>, tensor<3x3xf32>)
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]], {{.*}} ins(%[[M]], %arg1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<1x2x2x2xf32>) {{.*}} permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[T]]
//
// A reduction to [N, C] reads the channels-last source directly.
// CHECK-LABEL: func.func @global_pool(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[NHWC]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%arg0 : tensor<2x3x4x5xf32>)
//
// Inverse transposes cancel.
// CHECK-LABEL: func.func @compose(
// CHECK-NEXT: return %arg0
//
// A concat on channels becomes a concat on the last dim; a reshape of a
// transpose that moves only unit dims reads the source.
// CHECK-LABEL: func.func @concat_flatten(
// CHECK-NEXT: %[[C:.*]] = tensor.concat dim(3) %arg0, %arg1 : (tensor<1x1x1x2xf32>, tensor<1x1x1x3xf32>) -> tensor<1x1x1x5xf32>
// CHECK-NEXT: %[[F:.*]] = "flow.tensor.reshape"(%[[C]]) : (tensor<1x1x1x5xf32>) -> tensor<1x5xf32>
// CHECK-NEXT: return %[[F]]
//
// Another full-size input that is not transposed the same way: the
// generic only reads the source through a permuted map.
// CHECK-LABEL: func.func @mixed(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[NHWC]], #[[ID]], #[[ID]]], {{.*}} ins(%arg0, %arg1 : tensor<1x4x5x3xf32>, tensor<1x3x4x5xf32>) outs(%{{.*}} : tensor<1x3x4x5xf32>)
//
// ShuffleNet's channel shuffle between channels-last convolutions (the
// NCHW [1, 6, 4, 5] viewed as [1, 2, 3, 4, 5], groups swapped, viewed
// back, split in halves for the next block): the split view moves above
// the layout transpose, the merge keeps only the shuffle (a transpose of
// the two channel dims, channels-last), the slices take the channels of
// NHWC, and the layout transposes cancel.
// CHECK-LABEL: func.func @shuffle(
// CHECK-NEXT: %[[X:.*]] = tensor.expand_shape %arg0 {{\[\[}}0], [1], [2], [3, 4]] output_shape [1, 4, 5, 2, 3] : tensor<1x4x5x6xf32> into tensor<1x4x5x2x3xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<1x4x5x3x2xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<1x4x5x2x3xf32>) outs(%[[E]] : tensor<1x4x5x3x2xf32>) permutation = [0, 1, 2, 4, 3]
// CHECK-NEXT: %[[C:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1], [2], [3, 4]] : tensor<1x4x5x3x2xf32> into tensor<1x4x5x6xf32>
// CHECK-NEXT: %[[A:.*]] = tensor.extract_slice %[[C]][0, 0, 0, 0] [1, 4, 5, 3] [1, 1, 1, 1] : tensor<1x4x5x6xf32> to tensor<1x4x5x3xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.extract_slice %[[C]][0, 0, 0, 3] [1, 4, 5, 3] [1, 1, 1, 1] : tensor<1x4x5x6xf32> to tensor<1x4x5x3xf32>
// CHECK-NEXT: return %[[A]], %[[B]]
//
// A view merging dims that are not neighbours in the source (attention's
// [B, H, S, D] transposed to [B, S, H, D] and merged to [B, S, H*D]):
// the transpose stays above it.
// CHECK-LABEL: func.func @heads_merged(
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: linalg.transpose
// CHECK-NEXT: tensor.collapse_shape
// CHECK-NEXT: return
//
// The graph input's NCHW pad read only by the stem convolution's
// transpose to NHWC: the pad moves below the transpose (its amounts and
// index arguments permuted), so it can join the transpose's dispatch.
// CHECK-LABEL: func.func @input_pad(
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x7x9x5xf32>
// CHECK-NEXT: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<2x5x7x9xf32>) outs(%[[E]] : tensor<2x7x9x5xf32>) permutation = [0, 2, 3, 1]
// CHECK-NEXT: %[[P:.*]] = tensor.pad %[[T]] low[0, 3, 1, 0] high[0, 2, 0, 0]
// CHECK-NEXT: ^bb0(%[[N:.*]]: index, %[[H:.*]]: index, %[[W:.*]]: index, %[[C:.*]]: index):
// CHECK: } : tensor<2x7x9x5xf32> to tensor<2x12x10x5xf32>
// CHECK-NEXT: return %[[P]]
// A run-time batch (issue 17), unpadded: the same, the transpose's empty
// sized by the input's batch. A pad of the batch itself stays above.
// CHECK-LABEL: func.func @input_pad_batch(
// CHECK: %[[NB:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[EB:.*]] = tensor.empty(%[[NB]]) : tensor<?x7x9x5xf32>
// CHECK-NEXT: %[[TB:.*]] = linalg.transpose ins(%arg0 : tensor<?x5x7x9xf32>) outs(%[[EB]] : tensor<?x7x9x5xf32>) permutation = [0, 2, 3, 1]
// CHECK-NEXT: %[[PB:.*]] = tensor.pad %[[TB]] low[0, 3, 1, 0] high[0, 2, 0, 0]
// CHECK: } : tensor<?x7x9x5xf32> to tensor<?x12x10x5xf32>
// CHECK-NEXT: return %[[PB]]
// CHECK-LABEL: func.func @input_pad_batch_padded(
// CHECK: tensor.pad %arg0 low[1, 0, 3, 1]
// CHECK: linalg.transpose
// A pad read elsewhere too stays above the transpose (no second pad).
// CHECK-LABEL: func.func @input_pad_shared(
// CHECK-NEXT: arith.constant
// CHECK-NEXT: tensor.pad %arg0
// CHECK: linalg.transpose
// Two zero pads (an explicit Pad, then the convolution's) merge into
// one, which moves below the transpose; a -inf pad of them does not merge.
// CHECK-LABEL: func.func @input_pads_merged(
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<1x3x4x4xf32>)
// CHECK-NEXT: %[[P:.*]] = tensor.pad %[[T]] low[0, 2, 1, 0] high[0, 1, 3, 0]
// CHECK: } : tensor<1x4x4x3xf32> to tensor<1x7x8x3xf32>
// CHECK-NEXT: %[[Q:.*]] = tensor.pad %[[P]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<1x7x8x3xf32> to tensor<1x9x10x3xf32>
// CHECK-NEXT: return %[[Q]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
#pool_in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#pool_w = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#pool_out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#gap_in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#gap_out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
func.func @chain(%y: tensor<1x4x5x3xf32>) -> tensor<1x6x7x3xf32> {
  %e = tensor.empty() : tensor<1x3x4x5xf32>
  %t = linalg.transpose ins(%y : tensor<1x4x5x3xf32>) outs(%e : tensor<1x3x4x5xf32>) permutation = [0, 3, 1, 2]
  %bias = arith.constant dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf32>
  %zero = arith.constant 0.0 : f32
  %a = linalg.generic {indexing_maps = [#id, #b, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %bias : tensor<1x3x4x5xf32>, tensor<1x3x1x1xf32>) outs(%e : tensor<1x3x4x5xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %s = arith.addf %x, %c : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x3x4x5xf32>
  %p = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x3x4x5xf32> to tensor<1x3x6x7xf32>
  %e2 = tensor.empty() : tensor<1x6x7x3xf32>
  %r = linalg.transpose ins(%p : tensor<1x3x6x7xf32>) outs(%e2 : tensor<1x6x7x3xf32>) permutation = [0, 2, 3, 1]
  return %r : tensor<1x6x7x3xf32>
}
func.func @pool_residual(%y: tensor<1x5x5x2xf32>, %z: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %e = tensor.empty() : tensor<1x2x5x5xf32>
  %t = linalg.transpose ins(%y : tensor<1x5x5x2xf32>) outs(%e : tensor<1x2x5x5xf32>) permutation = [0, 3, 1, 2]
  %ninf = arith.constant 0xFF800000 : f32
  %eo = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%eo : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %m = linalg.generic {indexing_maps = [#pool_in, #pool_w, #pool_out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%t, %win : tensor<1x2x5x5xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x2x2xf32>) {
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %mx = arith.maximumf %acc, %x : f32
    linalg.yield %mx : f32
  } -> tensor<1x2x2x2xf32>
  %ez = tensor.empty() : tensor<1x2x2x2xf32>
  %tz = linalg.transpose ins(%z : tensor<1x2x2x2xf32>) outs(%ez : tensor<1x2x2x2xf32>) permutation = [0, 3, 1, 2]
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%m, %tz : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) outs(%eo : tensor<1x2x2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %v = arith.addf %a, %c : f32
    linalg.yield %v : f32
  } -> tensor<1x2x2x2xf32>
  return %s : tensor<1x2x2x2xf32>
}
func.func @global_pool(%y: tensor<2x3x4x5xf32>) -> tensor<2x5xf32> {
  %e = tensor.empty() : tensor<2x5x3x4xf32>
  %t = linalg.transpose ins(%y : tensor<2x3x4x5xf32>) outs(%e : tensor<2x5x3x4xf32>) permutation = [0, 3, 1, 2]
  %zero = arith.constant 0.0 : f32
  %eo = tensor.empty() : tensor<2x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%eo : tensor<2x5xf32>) -> tensor<2x5xf32>
  %g = linalg.generic {indexing_maps = [#gap_in, #gap_out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%t : tensor<2x5x3x4xf32>) outs(%init : tensor<2x5xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %v = arith.addf %acc, %x : f32
    linalg.yield %v : f32
  } -> tensor<2x5xf32>
  return %g : tensor<2x5xf32>
}
func.func @compose(%x: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32> {
  %e = tensor.empty() : tensor<2x5x3x4xf32>
  %t = linalg.transpose ins(%x : tensor<2x3x4x5xf32>) outs(%e : tensor<2x5x3x4xf32>) permutation = [0, 3, 1, 2]
  %e2 = tensor.empty() : tensor<2x3x4x5xf32>
  %r = linalg.transpose ins(%t : tensor<2x5x3x4xf32>) outs(%e2 : tensor<2x3x4x5xf32>) permutation = [0, 2, 3, 1]
  return %r : tensor<2x3x4x5xf32>
}
func.func @concat_flatten(%a: tensor<1x1x1x2xf32>, %b: tensor<1x1x1x3xf32>) -> tensor<1x5xf32> {
  %ea = tensor.empty() : tensor<1x2x1x1xf32>
  %ta = linalg.transpose ins(%a : tensor<1x1x1x2xf32>) outs(%ea : tensor<1x2x1x1xf32>) permutation = [0, 3, 1, 2]
  %eb = tensor.empty() : tensor<1x3x1x1xf32>
  %tb = linalg.transpose ins(%b : tensor<1x1x1x3xf32>) outs(%eb : tensor<1x3x1x1xf32>) permutation = [0, 3, 1, 2]
  %c = tensor.concat dim(1) %ta, %tb : (tensor<1x2x1x1xf32>, tensor<1x3x1x1xf32>) -> tensor<1x5x1x1xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2, 3]] : tensor<1x5x1x1xf32> into tensor<1x5xf32>
  return %f : tensor<1x5xf32>
}
func.func @mixed(%a: tensor<1x4x5x3xf32>, %b: tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32> {
  %e = tensor.empty() : tensor<1x3x4x5xf32>
  %t = linalg.transpose ins(%a : tensor<1x4x5x3xf32>) outs(%e : tensor<1x3x4x5xf32>) permutation = [0, 3, 1, 2]
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%t, %b : tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>) outs(%e : tensor<1x3x4x5xf32>) {
  ^bb0(%x: f32, %c: f32, %o: f32):
    %v = arith.subf %x, %c : f32
    linalg.yield %v : f32
  } -> tensor<1x3x4x5xf32>
  return %s : tensor<1x3x4x5xf32>
}
func.func @shuffle(%y: tensor<1x4x5x6xf32>) -> (tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>) {
  %e = tensor.empty() : tensor<1x6x4x5xf32>
  %t = linalg.transpose ins(%y : tensor<1x4x5x6xf32>) outs(%e : tensor<1x6x4x5xf32>) permutation = [0, 3, 1, 2]
  %x = tensor.expand_shape %t [[0], [1, 2], [3], [4]] output_shape [1, 2, 3, 4, 5] : tensor<1x6x4x5xf32> into tensor<1x2x3x4x5xf32>
  %e2 = tensor.empty() : tensor<1x3x2x4x5xf32>
  %s = linalg.transpose ins(%x : tensor<1x2x3x4x5xf32>) outs(%e2 : tensor<1x3x2x4x5xf32>) permutation = [0, 2, 1, 3, 4]
  %c = tensor.collapse_shape %s [[0], [1, 2], [3], [4]] : tensor<1x3x2x4x5xf32> into tensor<1x6x4x5xf32>
  %a = tensor.extract_slice %c[0, 0, 0, 0] [1, 3, 4, 5] [1, 1, 1, 1] : tensor<1x6x4x5xf32> to tensor<1x3x4x5xf32>
  %b = tensor.extract_slice %c[0, 3, 0, 0] [1, 3, 4, 5] [1, 1, 1, 1] : tensor<1x6x4x5xf32> to tensor<1x3x4x5xf32>
  %e3 = tensor.empty() : tensor<1x4x5x3xf32>
  %ta = linalg.transpose ins(%a : tensor<1x3x4x5xf32>) outs(%e3 : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
  %tb = linalg.transpose ins(%b : tensor<1x3x4x5xf32>) outs(%e3 : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
  return %ta, %tb : tensor<1x4x5x3xf32>, tensor<1x4x5x3xf32>
}
func.func @heads_merged(%a: tensor<2x3x4x5xf32>) -> tensor<2x4x15xf32> {
  %e = tensor.empty() : tensor<2x4x3x5xf32>
  %t = linalg.transpose ins(%a : tensor<2x3x4x5xf32>) outs(%e : tensor<2x4x3x5xf32>) permutation = [0, 2, 1, 3]
  %c = tensor.collapse_shape %t [[0], [1], [2, 3]] : tensor<2x4x3x5xf32> into tensor<2x4x15xf32>
  return %c : tensor<2x4x15xf32>
}
func.func @input_pad(%x: tensor<2x5x7x9xf32>) -> tensor<2x12x10x5xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 1] high[0, 0, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x9xf32> to tensor<2x5x12x10xf32>
  %e = tensor.empty() : tensor<2x12x10x5xf32>
  %t = linalg.transpose ins(%p : tensor<2x5x12x10xf32>) outs(%e : tensor<2x12x10x5xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<2x12x10x5xf32>
}
func.func @input_pad_batch(%x: tensor<?x5x7x9xf32>) -> tensor<?x12x10x5xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x5x7x9xf32>
  %p = tensor.pad %x low[0, 0, 3, 1] high[0, 0, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x5x7x9xf32> to tensor<?x5x12x10xf32>
  %e = tensor.empty(%n) : tensor<?x12x10x5xf32>
  %t = linalg.transpose ins(%p : tensor<?x5x12x10xf32>) outs(%e : tensor<?x12x10x5xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<?x12x10x5xf32>
}
func.func @input_pad_batch_padded(%x: tensor<?x5x7x9xf32>) -> tensor<?x12x10x5xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %p = tensor.pad %x low[1, 0, 3, 1] high[0, 0, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x5x7x9xf32> to tensor<?x5x12x10xf32>
  %n = tensor.dim %p, %c0 : tensor<?x5x12x10xf32>
  %e = tensor.empty(%n) : tensor<?x12x10x5xf32>
  %t = linalg.transpose ins(%p : tensor<?x5x12x10xf32>) outs(%e : tensor<?x12x10x5xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<?x12x10x5xf32>
}
func.func @input_pad_shared(%x: tensor<2x5x7x9xf32>) -> (tensor<2x12x10x5xf32>, tensor<2x5x12x10xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 3, 1] high[0, 0, 2, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x9xf32> to tensor<2x5x12x10xf32>
  %e = tensor.empty() : tensor<2x12x10x5xf32>
  %t = linalg.transpose ins(%p : tensor<2x5x12x10xf32>) outs(%e : tensor<2x12x10x5xf32>) permutation = [0, 2, 3, 1]
  return %t, %p : tensor<2x12x10x5xf32>, tensor<2x5x12x10xf32>
}
func.func @input_pads_merged(%x: tensor<1x3x4x4xf32>) -> tensor<1x9x10x3xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 0, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x3x4x4xf32> to tensor<1x3x5x7xf32>
  %q = tensor.pad %p low[0, 0, 1, 0] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x3x5x7xf32> to tensor<1x3x7x8xf32>
  %m = tensor.pad %q low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x3x7x8xf32> to tensor<1x3x9x10xf32>
  %e = tensor.empty() : tensor<1x9x10x3xf32>
  %t = linalg.transpose ins(%m : tensor<1x3x9x10xf32>) outs(%e : tensor<1x9x10x3xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x9x10x3xf32>
}
