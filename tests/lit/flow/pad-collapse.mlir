// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches | FileCheck %s
//
// A pad of a collapsed root result (a blocked convolution's
// [N, H, W, M/NB, NB] viewed as [N, H, W, M], padded for a 3x3) moves
// above the collapse (sink-reshapes) when every padded dim is one source
// dim: the root's dispatch then computes into the pad's window (the pad
// joins it, form-dispatch-regions) and the host views the padded source
// as the old pad's type. No pad dispatch, no copy.
// CHECK-LABEL: func.func @hoisted_dispatch_0(
// CHECK-SAME: !flow.dispatch.tensor<writeonly:tensor<3x6x2x16xf32>>
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<2x3x2x16xf32>)
// CHECK: tensor.pad %{{.*}} low[1, 2, 0, 0] high[0, 1, 0, 0]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: "flow.dispatch.tensor.store"
// CHECK-LABEL: func.func @hoisted(
// CHECK: %[[D:.*]] = "flow.dispatch"(%arg0) {{.*}} -> tensor<3x6x2x16xf32>
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[D]]) : (tensor<3x6x2x16xf32>) -> tensor<3x6x32xf32>
// CHECK-NEXT: return %[[V]]
//
// A padded dim whose group holds unit dims too: the pad goes to the
// group's one dim of the view's size.
// CHECK-LABEL: func.func @unit_group_dispatch_0(
// CHECK: tensor.pad %{{.*}} low[1, 0, 0, 0] high[0, 0, 2, 0]
// CHECK-LABEL: func.func @unit_group(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK-NEXT: return
//
// Pads the collapse cannot pass keep their own dispatch: one of the
// merged dim (the channels), one of a view merging two dims, and one of
// a value also read elsewhere.
// CHECK-LABEL: func.func @merged_padded(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @spatial_merged(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @shared(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
//
// A run-time batch that is not padded: the pad moves up the same way, the
// new view sized by the collapse's dim operand; one padding the batch
// keeps its dispatch.
// CHECK-LABEL: func.func @dynamic_batch_dispatch_0(
// CHECK-SAME: !flow.dispatch.tensor<writeonly:tensor<?x4x2x16xf32>>
// CHECK: tensor.pad %{{.*}} low[0, 1, 0, 0] high[0, 0, 0, 0]
// CHECK-LABEL: func.func @dynamic_batch(
// CHECK: %[[D:.*]] = "flow.dispatch"(%arg0, %[[N:.*]]) {{.*}} -> tensor<?x4x2x16xf32>
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[D]], %[[N]]) : (tensor<?x4x2x16xf32>, index) -> tensor<?x4x32xf32>
// CHECK-NEXT: return %[[V]]
// CHECK-LABEL: func.func @dynamic_padded(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK: "flow.dispatch"
// CHECK-NEXT: return
#in = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2, d3)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @hoisted(%a: tensor<2x3x4x2x16xf32>) -> tensor<3x6x32xf32> {
  %z = arith.constant 0.0 : f32
  %cst = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<2x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x2x16xf32>) -> tensor<2x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<2x3x4x2x16xf32>) outs(%f : tensor<2x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0], [1], [2, 3]] : tensor<2x3x2x16xf32> into tensor<2x3x32xf32>
  %p = tensor.pad %c low[1, 2, 0] high[0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %cst : f32
  } : tensor<2x3x32xf32> to tensor<3x6x32xf32>
  return %p : tensor<3x6x32xf32>
}
func.func @unit_group(%a: tensor<2x1x3x4x32xf32>) -> tensor<3x5x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x3x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x1x3x32xf32>) -> tensor<2x1x3x32xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<2x1x3x4x32xf32>) outs(%f : tensor<2x1x3x32xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x1x3x32xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2], [3]] : tensor<2x1x3x32xf32> into tensor<2x3x32xf32>
  %p = tensor.pad %c low[1, 0, 0] high[0, 2, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<2x3x32xf32> to tensor<3x5x32xf32>
  return %p : tensor<3x5x32xf32>
}
func.func @merged_padded(%a: tensor<2x3x4x2x16xf32>) -> tensor<2x3x34xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x2x16xf32>) -> tensor<2x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<2x3x4x2x16xf32>) outs(%f : tensor<2x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0], [1], [2, 3]] : tensor<2x3x2x16xf32> into tensor<2x3x32xf32>
  %p = tensor.pad %c low[0, 0, 1] high[0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<2x3x32xf32> to tensor<2x3x34xf32>
  return %p : tensor<2x3x34xf32>
}
func.func @spatial_merged(%a: tensor<2x3x4x2x16xf32>) -> tensor<8x2x16xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x2x16xf32>) -> tensor<2x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<2x3x4x2x16xf32>) outs(%f : tensor<2x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0, 1], [2], [3]] : tensor<2x3x2x16xf32> into tensor<6x2x16xf32>
  %p = tensor.pad %c low[1, 0, 0] high[1, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<6x2x16xf32> to tensor<8x2x16xf32>
  return %p : tensor<8x2x16xf32>
}
func.func @shared(%a: tensor<2x3x4x2x16xf32>) -> (tensor<3x6x32xf32>, tensor<2x3x32xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x2x16xf32>) -> tensor<2x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<2x3x4x2x16xf32>) outs(%f : tensor<2x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0], [1], [2, 3]] : tensor<2x3x2x16xf32> into tensor<2x3x32xf32>
  %p = tensor.pad %c low[1, 2, 0] high[0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<2x3x32xf32> to tensor<3x6x32xf32>
  return %p, %c : tensor<3x6x32xf32>, tensor<2x3x32xf32>
}
func.func @dynamic_batch(%a: tensor<?x3x4x2x16xf32>) -> tensor<?x4x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3x4x2x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x3x2x16xf32>) -> tensor<?x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<?x3x4x2x16xf32>) outs(%f : tensor<?x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0], [1], [2, 3]] : tensor<?x3x2x16xf32> into tensor<?x3x32xf32>
  %p = tensor.pad %c low[0, 1, 0] high[0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<?x3x32xf32> to tensor<?x4x32xf32>
  return %p : tensor<?x4x32xf32>
}
func.func @dynamic_padded(%a: tensor<?x3x4x2x16xf32>) -> tensor<?x3x32xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x3x4x2x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x3x2x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x3x2x16xf32>) -> tensor<?x3x2x16xf32>
  %s = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%a : tensor<?x3x4x2x16xf32>) outs(%f : tensor<?x3x2x16xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x3x2x16xf32>
  %c = tensor.collapse_shape %s [[0], [1], [2, 3]] : tensor<?x3x2x16xf32> into tensor<?x3x32xf32>
  %p = tensor.pad %c low[1, 0, 0] high[0, 0, 0] {
  ^bb0(%i: index, %j: index, %k: index):
    tensor.yield %z : f32
  } : tensor<?x3x32xf32> to tensor<?x3x32xf32>
  return %p : tensor<?x3x32xf32>
}
