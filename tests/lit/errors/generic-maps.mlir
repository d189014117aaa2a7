// linalg.generic with fewer indexing maps than operands.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
#map = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: generic-maps.mlir:[[@LINE+1]]:8: error: 'linalg.generic' op expected the number of indexing_map (1) to be equal to the number of input/output operands (2)
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
