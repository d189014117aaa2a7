// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// An int8 convolution over a run-time batch N, as the ONNX importer
// builds it: its pixels [N, 3, 5, 8] collapsed to [N*15, 8] rows, one
// matmul into zeroed i32 sums (a run-time number of rows), the sums
// viewed back as [N, 3, 5, 4] for the requantizing epilogue.
// sink-reshapes splits the dynamic rows into the run-time batch and the
// static pixels, so the epilogue runs over the sums' own [?, 4] shape and
// joins the matmul's dispatch (form-dispatch-regions: the i32 sums of
// run-time size are a kernel-local buffer, the epilogue writes f32).
// A residual add reading its other operand through the identity map
// (the view's shape, run-time batch included) reads it viewed as [?, 4]:
// one dispatch too. Read along the split dims any other way
// (transposed), it stays a dispatch of its own.
// CHECK-LABEL: func.func @split_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-LABEL: func.func @split(
// CHECK: %[[R:.*]] = "flow.dispatch"(
// CHECK-NOT: "flow.dispatch"(
// CHECK: %[[V:.*]] = "flow.tensor.reshape"(%[[R]], %{{.*}}) : (tensor<?x4xf32>, index) -> tensor<?x3x5x4xf32>
// CHECK-NEXT: return %[[V]]
// CHECK-LABEL: func.func @split_residual_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x4xi32>, tensor<?x4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-LABEL: func.func @split_residual(
// CHECK: %[[RV:.*]] = "flow.tensor.reshape"(%{{.*}}, %{{.*}}) : (tensor<?x3x5x4xf32>, index) -> tensor<?x4xf32>
// CHECK: %[[RR:.*]] = "flow.dispatch"({{.*}}%[[RV]]
// CHECK-NOT: "flow.dispatch"(
// CHECK: "flow.tensor.reshape"(%[[RR]], %{{.*}}) : (tensor<?x4xf32>, index) -> tensor<?x3x5x4xf32>
// CHECK-LABEL: func.func @split_residual_transposed(
// CHECK: "flow.dispatch"(
// CHECK: "flow.dispatch"(
func.func @split(%px: tensor<?x3x5x8xi8>, %w: tensor<8x4xi8>, %s: tensor<4xf32>, %bias: tensor<4xf32>) -> tensor<?x3x5x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %px, %c0 : tensor<?x3x5x8xi8>
  %a = tensor.collapse_shape %px [[0, 1, 2], [3]] : tensor<?x3x5x8xi8> into tensor<?x8xi8>
  %rows = tensor.dim %a, %c0 : tensor<?x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%rows) : tensor<?x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<?x4xi32>) -> tensor<?x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x8xi8>, tensor<8x4xi8>) outs(%z : tensor<?x4xi32>) -> tensor<?x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [%n, 3, 5, 4] : tensor<?x4xi32> into tensor<?x3x5x4xi32>
  %o = tensor.empty(%n) : tensor<?x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %s, %bias : tensor<?x3x5x4xi32>, tensor<4xf32>, tensor<4xf32>) outs(%o : tensor<?x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %b: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %m = arith.mulf %f, %q : f32
    %y = arith.addf %m, %b : f32
    linalg.yield %y : f32
  } -> tensor<?x3x5x4xf32>
  return %r : tensor<?x3x5x4xf32>
}
func.func @split_residual(%px: tensor<?x3x5x8xi8>, %w: tensor<8x4xi8>, %res: tensor<?x3x5x4xf32>) -> tensor<?x3x5x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %px, %c0 : tensor<?x3x5x8xi8>
  %a = tensor.collapse_shape %px [[0, 1, 2], [3]] : tensor<?x3x5x8xi8> into tensor<?x8xi8>
  %rows = tensor.dim %a, %c0 : tensor<?x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%rows) : tensor<?x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<?x4xi32>) -> tensor<?x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x8xi8>, tensor<8x4xi8>) outs(%z : tensor<?x4xi32>) -> tensor<?x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [%n, 3, 5, 4] : tensor<?x4xi32> into tensor<?x3x5x4xi32>
  %o = tensor.empty(%n) : tensor<?x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %res : tensor<?x3x5x4xi32>, tensor<?x3x5x4xf32>) outs(%o : tensor<?x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %y = arith.addf %f, %q : f32
    linalg.yield %y : f32
  } -> tensor<?x3x5x4xf32>
  return %r : tensor<?x3x5x4xf32>
}
func.func @split_residual_transposed(%px: tensor<?x3x5x8xi8>, %w: tensor<8x4xi8>, %res: tensor<?x5x3x4xf32>) -> tensor<?x3x5x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %px, %c0 : tensor<?x3x5x8xi8>
  %a = tensor.collapse_shape %px [[0, 1, 2], [3]] : tensor<?x3x5x8xi8> into tensor<?x8xi8>
  %rows = tensor.dim %a, %c0 : tensor<?x8xi8>
  %zero = arith.constant 0 : i32
  %e = tensor.empty(%rows) : tensor<?x4xi32>
  %z = linalg.fill ins(%zero : i32) outs(%e : tensor<?x4xi32>) -> tensor<?x4xi32>
  %mm = linalg.matmul ins(%a, %w : tensor<?x8xi8>, tensor<8x4xi8>) outs(%z : tensor<?x4xi32>) -> tensor<?x4xi32>
  %x = tensor.expand_shape %mm [[0, 1, 2], [3]] output_shape [%n, 3, 5, 4] : tensor<?x4xi32> into tensor<?x3x5x4xi32>
  %o = tensor.empty(%n) : tensor<?x3x5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %res : tensor<?x3x5x4xi32>, tensor<?x5x3x4xf32>) outs(%o : tensor<?x3x5x4xf32>) {
  ^bb0(%p: i32, %q: f32, %out: f32):
    %f = arith.sitofp %p : i32 to f32
    %y = arith.addf %f, %q : f32
    linalg.yield %y : f32
  } -> tensor<?x3x5x4xf32>
  return %r : tensor<?x3x5x4xf32>
}
