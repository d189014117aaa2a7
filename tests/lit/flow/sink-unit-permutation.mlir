// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// sink-reshapes: a global pool's [1, C] sums viewed as [1, C, 1, 1] (the
// ONNX NCHW result) and divided into [1, 1, 1, C] (NHWC for the
// squeeze-excitation's 1x1 convolution), reading the view through a
// permutation that moves only unit dims: the divide runs over the sums'
// own [1, C] and the view comes after it, so it joins the pool's
// dispatch (two before). A permutation that moves a non-unit dim (a
// real transpose) keeps its own dispatch.
// CHECK-LABEL: func.func @pool_divide_dispatch_0(
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-LABEL: func.func @pool_divide(
// CHECK: %[[P:.*]] = "flow.dispatch"(
// CHECK-NOT: "flow.dispatch"(
// CHECK: %[[V:.*]] = "flow.tensor.reshape"(%[[P]]) : (tensor<1x48xf32>) -> tensor<1x1x1x48xf32>
// CHECK-NEXT: return %[[V]]
// CHECK-LABEL: func.func @pool_transpose(
// CHECK: "flow.dispatch"(
// CHECK: "flow.dispatch"(
func.func @pool_divide(%x: tensor<1x14x14x48xf32>) -> tensor<1x1x1x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x48xf32>) -> tensor<1x48xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x14x14x48xf32>) outs(%z : tensor<1x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<1x48xf32>
  %v = tensor.expand_shape %s [[0], [1, 2, 3]] output_shape [1, 48, 1, 1] : tensor<1x48xf32> into tensor<1x48x1x1xf32>
  %o = tensor.empty() : tensor<1x1x1x48xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x48x1x1xf32>) outs(%o : tensor<1x1x1x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.constant 196.0 : f32
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x1x1x48xf32>
  return %r : tensor<1x1x1x48xf32>
}
func.func @pool_transpose(%x: tensor<1x14x14x48xf32>) -> tensor<1x6x8x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x48xf32>) -> tensor<1x48xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d3, d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%x : tensor<1x14x14x48xf32>) outs(%z : tensor<1x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<1x48xf32>
  %v = tensor.expand_shape %s [[0], [1, 2, 3]] output_shape [1, 8, 6, 1] : tensor<1x48xf32> into tensor<1x8x6x1xf32>
  %o = tensor.empty() : tensor<1x6x8x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%v : tensor<1x8x6x1xf32>) outs(%o : tensor<1x6x8x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.constant 196.0 : f32
    %d = arith.divf %in, %n : f32
    linalg.yield %d : f32
  } -> tensor<1x6x8x1xf32>
  return %r : tensor<1x6x8x1xf32>
}
