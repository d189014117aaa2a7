// REQUIRES: kiln-compile kiln-run
// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches --print-ir-after=reshapes-to-views -o /dev/null 2>&1 \
// RUN:   | kiln-opt --sink-reshapes | FileCheck %s --check-prefix=SINK
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=grouped --input=2x3xf32=1,2,3,4,5,6 --input=4xf32=-2,1,-10,0 | FileCheck %s --check-prefix=GROUPED
// RUN: kiln-run --module=%t.kiln --function=linear_bias --input=3x1x2xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=LINEAR
// RUN: kiln-run --module=%t.kiln --function=conv_bias_relu_add --input=1x2x4x4xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,-1,-2,-3,-4,-5,-6,-7,-8,-9,-10,-11,-12,-13,-14,-15,-16 --input=1x3x2x2xf32=1,1,1,1,2,2,2,2,3,3,3,3 | FileCheck %s --check-prefix=CONV
//
// A root (a structured op with a reduction loop) whose result is
// collapsed by a reshape keeps its elementwise reader in its dispatch:
// form-dispatch-regions sinks the reshape below the reader, which then
// iterates the root's shape. This is the ONNX importer's grouped
// convolution ([N,G,M,H,W] collapsed to [N,G*M,H,W]) followed by bias,
// ReLU and a residual add. The flow pipeline without
// convert-convs-to-nhwc: the importer's form stays what codegen sees for
// convolutions that pass leaves alone (filters that are not constants);
// kiln-compile below runs the whole pipeline.
//
// grouped: two groups of two output channels; the bias is read at the
// collapsed channel g * 2 + m. out = [1, 2, 6, 15], + bias, ReLU.
// The reader's maps: the collapsed dim as a linear sum, unit dims dropped.
// CHECK-DAG: affine_map<(d0, d1) -> (d0 * 2 + d1)>
// CHECK-DAG: affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, 0, 0)>
// CHECK-DAG: affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3, d4)>
// CHECK-LABEL: func.func @grouped_dispatch_0(
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} {{.*}} outs(%{{.*}} : tensor<2x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[ID:map[0-9]*]], #[[LIN:map[0-9]*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: "flow.dispatch.tensor.store"
// CHECK-LABEL: func.func @grouped(
// CHECK: %[[D:.*]] = "flow.dispatch"(%arg0, %{{.*}}, %arg1)
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[D]]) : (tensor<2x2xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[V]]
// GROUPED: result[0]: 4xf32=0 3 0 15
// sink-reshapes alone: the reader (given the collapsed tensor<4xf32> by
// reshapes-to-views) iterates the root's 2x2 shape and the reshape follows it.
// SINK-LABEL: func.func @grouped(
// SINK: %[[ROOT:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]}
// SINK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[ROOT]], %arg1 : tensor<2x2xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<2x2xf32>)
// SINK: %[[V:.*]] = "flow.tensor.reshape"(%[[R]]) : (tensor<2x2xf32>) -> tensor<4xf32>
// SINK-NEXT: return %[[V]]
//
// linear_bias: a Linear over a [S, 1, D] sequence is a [S, D] x [D, N]
// matmul viewed back as [S, 1, N] (a reshape inserting a unit dim) for
// its bias add: the add sinks below the view, iterates [S, N] and joins
// the matmul's dispatch. x = [[1,2],[3,4],[5,6]], W = [[1,0,1],[0,1,1]],
// bias [10,20,30]: [[11,22,33],[13,24,37],[15,26,41]].
// CHECK-LABEL: func.func @linear_bias_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3x3xf32>) outs(%{{.*}} : tensor<3x3xf32>)
// CHECK-LABEL: func.func @linear_bias(
// CHECK: %[[D:.*]] = "flow.dispatch"(
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[D]]) : (tensor<3x3xf32>) -> tensor<3x1x3xf32>
// CHECK-NEXT: return %[[V]]
// LINEAR: result[0]: 3x1x3xf32={{\[\[}}11 22 33]]{{\[\[}}13 24 37]]{{\[\[}}15 26 41]]
//
// conv_bias_relu_add: a unit group dim ([1,1,3,2,2] -> [1,3,2,2]) is
// dropped from the reader's maps: the bias is read at (d0, d2, 0, 0) and
// the residual at (d0, d2, d3, d4). One dispatch; the 3x3 convolution of
// channel c of x, all ones in channel 0 and -1 in channel 1 weighted
// by c+1, and x1 = -x0: the convolution is 0 and the result is
// relu(bias) + residual = [0, 0, 1] + [1, 2, 3] per channel.
// CHECK-LABEL: func.func @conv_bias_relu_add_dispatch_0(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x3x2x2xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[BIAS:map[0-9]*]], #[[RES:map[0-9]*]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<1x1x3x2x2xf32>, tensor<1x3x1x1xf32>, tensor<1x3x2x2xf32>) outs(%{{.*}} : tensor<1x1x3x2x2xf32>)
// CHECK-LABEL: func.func @conv_bias_relu_add(
// CHECK: "flow.tensor.reshape"(%arg0)
// CHECK: %[[D:.*]] = "flow.dispatch"(
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[D]]) : (tensor<1x1x3x2x2xf32>) -> tensor<1x3x2x2xf32>
// CHECK-NEXT: return %[[V]]
// CONV: result[0]: 1x3x2x2xf32={{\[\[\[}}1 1][1 1]]{{\[\[}}2 2][2 2]]{{\[\[}}4 4][4 4]]]
//
// shared: the collapsed value is also returned, so the reshape stays
// and the reader is a dispatch of its own.
// CHECK-LABEL: func.func @shared(
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: "flow.tensor.reshape"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
#red_x = affine_map<(g, m, k) -> (g, k)>
#red_w = affine_map<(g, m, k) -> (g, m, k)>
#red_o = affine_map<(g, m, k) -> (g, m)>
#id1 = affine_map<(d0) -> (d0)>
#cx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>
#cw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>
#co = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#b4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>
func.func @grouped(%x: tensor<2x3xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %w = arith.constant dense<[[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]]> : tensor<2x2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %o = linalg.generic {indexing_maps = [#red_x, #red_w, #red_o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<2x3xf32>, tensor<2x2x3xf32>) outs(%z : tensor<2x2xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %p = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %f = tensor.collapse_shape %o [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  %e4 = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]} ins(%f, %b : tensor<4xf32>, tensor<4xf32>) outs(%e4 : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32, %out: f32):
    %s = arith.addf %a, %c : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @linear_bias(%x: tensor<3x1x2xf32>) -> tensor<3x1x3xf32> {
  %w = arith.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 1.0]]> : tensor<2x3xf32>
  %bias = arith.constant dense<[10.0, 20.0, 30.0]> : tensor<3xf32>
  %x2 = tensor.collapse_shape %x [[0, 1], [2]] : tensor<3x1x2xf32> into tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
  %m = linalg.matmul ins(%x2, %w : tensor<3x2xf32>, tensor<2x3xf32>) outs(%z : tensor<3x3xf32>) -> tensor<3x3xf32>
  %m3 = tensor.expand_shape %m [[0, 1], [2]] output_shape [3, 1, 3] : tensor<3x3xf32> into tensor<3x1x3xf32>
  %e3 = tensor.empty() : tensor<3x1x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%bias, %m3 : tensor<3xf32>, tensor<3x1x3xf32>) outs(%e3 : tensor<3x1x3xf32>) {
  ^bb0(%b: f32, %a: f32, %out: f32):
    %s = arith.addf %b, %a : f32
    linalg.yield %s : f32
  } -> tensor<3x1x3xf32>
  return %r : tensor<3x1x3xf32>
}
func.func @conv_bias_relu_add(%x: tensor<1x2x4x4xf32>, %res: tensor<1x3x2x2xf32>) -> tensor<1x3x2x2xf32> {
  %w = arith.constant dense<[[[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]], [[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]], [[2.0, 2.0, 2.0], [2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]], [[[3.0, 3.0, 3.0], [3.0, 3.0, 3.0], [3.0, 3.0, 3.0]], [[3.0, 3.0, 3.0], [3.0, 3.0, 3.0], [3.0, 3.0, 3.0]]]]> : tensor<3x2x3x3xf32>
  %w5 = tensor.expand_shape %w [[0, 1], [2], [3], [4]] output_shape [1, 3, 2, 3, 3] : tensor<3x2x3x3xf32> into tensor<1x3x2x3x3xf32>
  %bias = arith.constant dense<[[[[-1.0]], [[0.0]], [[1.0]]]]> : tensor<1x3x1x1xf32>
  %x5 = tensor.expand_shape %x [[0], [1, 2], [3], [4]] output_shape [1, 1, 2, 4, 4] : tensor<1x2x4x4xf32> into tensor<1x1x2x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x3x2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x3x2x2xf32>) -> tensor<1x1x3x2x2xf32>
  %c = linalg.generic {indexing_maps = [#cx, #cw, #co], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x5, %w5 : tensor<1x1x2x4x4xf32>, tensor<1x3x2x3x3xf32>) outs(%z : tensor<1x1x3x2x2xf32>) {
  ^bb0(%a: f32, %k: f32, %acc: f32):
    %p = arith.mulf %a, %k : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x1x3x2x2xf32>
  %f = tensor.collapse_shape %c [[0], [1, 2], [3], [4]] : tensor<1x1x3x2x2xf32> into tensor<1x3x2x2xf32>
  %e4 = tensor.empty() : tensor<1x3x2x2xf32>
  %r = linalg.generic {indexing_maps = [#id4, #b4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%f, %bias, %res : tensor<1x3x2x2xf32>, tensor<1x3x1x1xf32>, tensor<1x3x2x2xf32>) outs(%e4 : tensor<1x3x2x2xf32>) {
  ^bb0(%a: f32, %bb: f32, %rr: f32, %out: f32):
    %s = arith.addf %a, %bb : f32
    %m = arith.maximumf %s, %zero : f32
    %t = arith.addf %m, %rr : f32
    linalg.yield %t : f32
  } -> tensor<1x3x2x2xf32>
  return %r : tensor<1x3x2x2xf32>
}
func.func @shared(%x: tensor<2x3xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x3xf32>) outs(%z : tensor<2x3xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %f = tensor.collapse_shape %o [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %e6 = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%f : tensor<6xf32>) outs(%e6 : tensor<6xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<6xf32>
  return %f, %r : tensor<6xf32>, tensor<6xf32>
}
