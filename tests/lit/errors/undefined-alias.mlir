// An attribute alias that was never defined.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: undefined-alias.mlir:[[@LINE+1]]:41: error: undefined symbol alias id 'map7'
  %0 = linalg.generic {indexing_maps = [#map7, #map7], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
