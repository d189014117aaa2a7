// RUN: kiln-opt %s --fold-views | FileCheck %s
// fold-views: a generic reading an expand of a concat along dim d into
// [m, s], every piece s long (a channel shuffle of two halves, as
// ShuffleNet writes it: concat, NCHW view, transpose), reads the pieces
// instead and selects by the [m] loop; the concat and the expand go.
// CHECK-DAG: #[[P:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @shuffle(
// CHECK-NOT: tensor.concat
// CHECK: linalg.generic {indexing_maps = [#[[P]], #[[P]], #{{map[0-9]*}}], {{.*}} ins(%arg0, %arg1 : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>)
// CHECK: %[[I:.*]] = linalg.index 4 : index
// CHECK: %[[C:.*]] = arith.cmpi eq, %[[I]], %{{.*}} : index
// CHECK: %[[S:.*]] = arith.select %[[C]], %in, %in_0 : f32
// CHECK: linalg.yield %[[S]] : f32
// Three groups of two pieces of 6 (the pieces are not the groups): left
// alone.
// CHECK-LABEL: func.func @groups3(
// CHECK: tensor.concat
// CHECK: tensor.expand_shape
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4, d3)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
func.func @shuffle(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x4x5xf32>) -> tensor<2x3x4x5x2xf32> {
  %c = tensor.concat dim(3) %a, %b : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x4x10xf32>
  %v = tensor.expand_shape %c [[0], [1], [2], [3, 4]] output_shape [2, 3, 4, 2, 5] : tensor<2x3x4x10xf32> into tensor<2x3x4x2x5xf32>
  %e = tensor.empty() : tensor<2x3x4x5x2xf32>
  %t = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x3x4x2x5xf32>) outs(%e : tensor<2x3x4x5x2xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<2x3x4x5x2xf32>
  return %t : tensor<2x3x4x5x2xf32>
}
func.func @groups3(%a: tensor<2x3x4x6xf32>, %b: tensor<2x3x4x6xf32>) -> tensor<2x3x4x4x3xf32> {
  %c = tensor.concat dim(3) %a, %b : (tensor<2x3x4x6xf32>, tensor<2x3x4x6xf32>) -> tensor<2x3x4x12xf32>
  %v = tensor.expand_shape %c [[0], [1], [2], [3, 4]] output_shape [2, 3, 4, 3, 4] : tensor<2x3x4x12xf32> into tensor<2x3x4x3x4xf32>
  %e = tensor.empty() : tensor<2x3x4x4x3xf32>
  %t = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<2x3x4x3x4xf32>) outs(%e : tensor<2x3x4x4x3xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  } -> tensor<2x3x4x4x3xf32>
  return %t : tensor<2x3x4x4x3xf32>
}
