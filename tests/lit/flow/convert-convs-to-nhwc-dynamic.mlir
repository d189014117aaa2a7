// RUN: kiln-opt %s --convert-convs-to-nhwc --propagate-transposes | FileCheck %s
// Convolutions with constant filters over a run-time batch (every other
// dim static) go channels-last like static ones: the NHWC tensors take
// the batch from the input (tensor.empty(%dim)), and the transposes move
// through the bias + ReLU generic and the pad until they cancel, leaving
// one at the entry and one at the exit.
// CHECK-LABEL: func.func @batch(
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x2x6x6xf32>
// CHECK: %[[E0:.*]] = tensor.empty(%[[N]]) : tensor<?x6x6x2xf32>
// CHECK: %[[X:.*]] = linalg.transpose ins(%arg0 : tensor<?x2x6x6xf32>) outs(%[[E0]] : tensor<?x6x6x2xf32>) permutation = [0, 2, 3, 1]
// CHECK: tensor.empty(%[[N]]) : tensor<?x4x4x3xf32>
// CHECK: %[[C1:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[X]], %{{.*}} : tensor<?x6x6x2xf32>, tensor<3x3x2x3xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[G:.*]] = linalg.generic {{.*}} ins(%[[C1]], %{{.*}} : tensor<?x4x4x3xf32>, tensor<3xf32>)
// CHECK: %[[P:.*]] = tensor.pad %[[G]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<?x4x4x3xf32> to tensor<?x6x6x3xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[C2:.*]] = linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[P]], %{{.*}} : tensor<?x6x6x3xf32>, tensor<1x1x3x3xf32>)
// CHECK: %[[E9:.*]] = tensor.empty(%[[N]]) : tensor<?x3x6x6xf32>
// CHECK: %[[Y:.*]] = linalg.transpose ins(%[[C2]] : tensor<?x6x6x3xf32>) outs(%[[E9]] : tensor<?x3x6x6xf32>) permutation = [0, 3, 1, 2]
// CHECK-NEXT: return %[[Y]]
//
// A run-time spatial dim stays NCHW (the window arithmetic wants it static).
// CHECK-LABEL: func.func @spatial(
// CHECK-NOT: linalg.transpose
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-NOT: linalg.transpose
// CHECK: return

func.func @batch(%x: tensor<?x2x6x6xf32>) -> tensor<?x3x6x6xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x2x6x6xf32>
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %b1 = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %w2 = arith.constant dense<0.25> : tensor<3x3x1x1xf32>
  %e1 = tensor.empty(%n) : tensor<?x3x4x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<?x2x6x6xf32>, tensor<3x2x3x3xf32>) outs(%z1 : tensor<?x3x4x4xf32>) -> tensor<?x3x4x4xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c1, %b1 : tensor<?x3x4x4xf32>, tensor<3xf32>) outs(%e1 : tensor<?x3x4x4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<?x3x4x4xf32>
  %pd = tensor.pad %a low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<?x3x4x4xf32> to tensor<?x3x6x6xf32>
  %e2 = tensor.empty(%n) : tensor<?x3x6x6xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x3x6x6xf32>) -> tensor<?x3x6x6xf32>
  %c2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%pd, %w2 : tensor<?x3x6x6xf32>, tensor<3x3x1x1xf32>) outs(%z2 : tensor<?x3x6x6xf32>) -> tensor<?x3x6x6xf32>
  return %c2 : tensor<?x3x6x6xf32>
}
func.func @spatial(%x: tensor<1x2x?x6xf32>) -> tensor<1x3x?x4xf32> {
  %c2 = arith.constant 2 : index
  %h = tensor.dim %x, %c2 : tensor<1x2x?x6xf32>
  %oh = arith.subi %h, %c2 : index
  %zero = arith.constant 0.0 : f32
  %w1 = arith.constant dense<0.5> : tensor<3x2x3x3xf32>
  %e1 = tensor.empty(%oh) : tensor<1x3x?x4xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x3x?x4xf32>) -> tensor<1x3x?x4xf32>
  %c1 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<1x2x?x6xf32>, tensor<3x2x3x3xf32>) outs(%z1 : tensor<1x3x?x4xf32>) -> tensor<1x3x?x4xf32>
  return %c1 : tensor<1x3x?x4xf32>
}
