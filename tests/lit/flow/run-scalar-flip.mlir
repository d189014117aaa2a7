// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s --compile-to=flow -o - | FileCheck %s --check-prefix=FLOW
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=mean_ratio --input=4xf32=1,2,3,4 --input=3xf32=1,1,2 | FileCheck %s --check-prefix=RATIO
// RUN: kiln-run --module=%t.kiln --function=flip_conv --input=6xf32=1,2,3,4,5,6 --input=3xf32=1,2,3 | FileCheck %s --check-prefix=FLIP
//
// mean_ratio: two reductions to tensor<f32> and a rank-0 generic dividing
// them (ONNX NegativeLogLikelihoodLoss / SoftmaxCrossEntropyLoss mean).
// The first reduction's dispatch absorbs the division, which sits after
// the second reduction: form-dispatch-regions must still give the second
// one a dispatch of its own (it used to be skipped and stay on the host).
// flip_conv: a generic reading the kernel through `-d0 + 2` (a flip)
// feeding a 1-D convolution; fuse-elementwise must not fold it in, since
// the fused conv would read the kernel only through `-d1 + 2` and its
// reduction loop would have no size. The flip stays a dispatch.
// FLOW-LABEL: func.func @mean_ratio(
// FLOW: "flow.dispatch"
// FLOW: "flow.dispatch"
// FLOW-NOT: tensor.empty
// FLOW: return
// FLOW-LABEL: func.func @flip_conv(
// FLOW: "flow.dispatch"
// FLOW: "flow.dispatch"
// FLOW: return
// RATIO: result[0]: f32=2.5
// FLIP: result[0]: 4xf32=10 16 22 28
func.func @mean_ratio(%x: tensor<4xf32>, %w: tensor<3xf32>) -> tensor<f32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%x : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e1 = tensor.empty() : tensor<f32>
  %z1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<f32>) -> tensor<f32>
  %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%w : tensor<3xf32>) outs(%z1 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  %e2 = tensor.empty() : tensor<f32>
  %m = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%s, %n : tensor<f32>, tensor<f32>) outs(%e2 : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %m : tensor<f32>
}
func.func @flip_conv(%x: tensor<6xf32>, %k: tensor<3xf32>) -> tensor<4xf32> {
  %ef = tensor.empty() : tensor<3xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0) -> (-d0 + 2)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%k : tensor<3xf32>) outs(%ef : tensor<3xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<3xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0 + d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x, %f : tensor<6xf32>, tensor<3xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %o : tensor<4xf32>
}
