// RUN: not kiln-opt %s --pass-pipeline=flow 2>&1 | FileCheck %s
// What still cannot reach a kernel: a value that is neither a tensor, a
// scalar nor a host index value (here a vector argument read inside a
// generic body) is refused at the dispatch's location, naming the dispatch
// and the type.
// CHECK: pass 'outline-dispatches' failed: {{.*}}capture-errors.mlir:[[@LINE+4]]:8: 'flow.dispatch.region' op dispatch 'v_dispatch_0' captures a value of type vector<4xf32>; only tensors, scalars (as rank-0 tensors) and host index values can be passed to a kernel
#map = affine_map<(d0) -> (d0)>
func.func @v(%a: tensor<4xf32>, %v: vector<4xf32>, %s: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %w = vector.extract %v[0] : f32 from vector<4xf32>
    %m = arith.mulf %x, %w : f32
    %n = arith.mulf %m, %s : f32
    linalg.yield %n : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
