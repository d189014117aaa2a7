// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// sink-reshapes: a static split of a matmul's rows ([2*3*5, 4] viewed as
// [2, 3, 5, 4]: an int8 1x1 convolution's pixels, computed as a matmul)
// sinks below an elementwise reader that reads nothing else along the
// split dims (a per-channel scale and bias): one dispatch, the view after
// it. A residual add reading its other operand through the identity map
// (the view's shape) reads it viewed as [30, 4]: one dispatch too. Read
// along the split dims any other way (transposed), it stays a dispatch
// of its own.
// CHECK-LABEL: func.func @split_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<30x4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<30x4xf32>)
// CHECK-LABEL: func.func @split(
// CHECK: %[[R:.*]] = "flow.dispatch"(
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[R]]) : (tensor<30x4xf32>) -> tensor<2x3x5x4xf32>
// CHECK-NEXT: return %[[V]]
// CHECK-LABEL: func.func @split_residual_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<30x4xi32>, tensor<30x4xf32>) outs(%{{.*}} : tensor<30x4xf32>)
// CHECK-LABEL: func.func @split_residual(
// CHECK: %[[RV:.*]] = "flow.tensor.reshape"(%{{.*}}) : (tensor<2x3x5x4xf32>) -> tensor<30x4xf32>
// CHECK: %[[RR:.*]] = "flow.dispatch"({{.*}}%[[RV]]
// CHECK-NOT: "flow.dispatch"(
// CHECK: "flow.tensor.reshape"(%[[RR]]) : (tensor<30x4xf32>) -> tensor<2x3x5x4xf32>
// CHECK-LABEL: func.func @split_residual_transposed(
// CHECK: "flow.dispatch"(
// CHECK: "flow.dispatch"(
func.func @split(%a: tensor<30x8xi8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>, %bias: tensor<4xf32>) -> tensor<2x3x5x4xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<30x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<30x4xi32>) -> tensor<30x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<30x8xi8>, tensor<8x4xi8>) outs(%z : tensor<30x4xi32>) -> tensor<30x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [2, 3, 5, 4] : tensor<30x4xi32> into tensor<2x3x5x4xi32>
  %o = tensor.empty() : tensor<2x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s, %bias : tensor<2x3x5x4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%o : tensor<2x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %b: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %m = arith.mulf %f, %q : f32
    %y = arith.addf %m, %b : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5x4xf32>
  return %r : tensor<2x3x5x4xf32>
}
func.func @split_residual(%a: tensor<30x8xi8>, %w: tensor<8x4xi8>, %res: tensor<2x3x5x4xf32>) -> tensor<2x3x5x4xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<30x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<30x4xi32>) -> tensor<30x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<30x8xi8>, tensor<8x4xi8>) outs(%z : tensor<30x4xi32>) -> tensor<30x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [2, 3, 5, 4] : tensor<30x4xi32> into tensor<2x3x5x4xi32>
  %o = tensor.empty() : tensor<2x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %res : tensor<2x3x5x4xi32>, tensor<2x3x5x4xf32>) outs(%o : tensor<2x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %y = arith.addf %f, %q : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5x4xf32>
  return %r : tensor<2x3x5x4xf32>
}
func.func @split_residual_transposed(%a: tensor<30x8xi8>, %w: tensor<8x4xi8>, %res: tensor<2x5x3x4xf32>) -> tensor<2x3x5x4xf32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<30x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<30x4xi32>) -> tensor<30x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<30x8xi8>, tensor<8x4xi8>) outs(%z : tensor<30x4xi32>) -> tensor<30x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [2, 3, 5, 4] : tensor<30x4xi32> into tensor<2x3x5x4xi32>
  %o = tensor.empty() : tensor<2x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %res : tensor<2x3x5x4xi32>, tensor<2x5x3x4xf32>) outs(%o : tensor<2x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %y = arith.addf %f, %q : f32
    linalg.yield %y : f32
  } -> tensor<2x3x5x4xf32>
  return %r : tensor<2x3x5x4xf32>
}
