// RUN: kiln-opt %s --pass-pipeline=form-dispatch-regions,outline-dispatches | FileCheck %s
//
// Window pairs (form-dispatch-regions): a 1x1 stride-1 convolution
// whose value (1,204,224 bytes: 56x56x96 f32), through its ReLU6 and a
// fused pad, only a depthwise 3x3 reads is one dispatch with that
// depthwise and its bias: the expanded value never leaves the kernel.
// CHECK-LABEL: func.func @pair_dispatch_0(
// CHECK: linalg.conv_2d_nhwc_hwcf
// CHECK: linalg.generic
// CHECK: tensor.pad
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: linalg.generic
// CHECK: "flow.dispatch.tensor.store"
// CHECK-NOT: "flow.dispatch.tensor.store"
// CHECK-LABEL: func.func @pair(
// CHECK: "flow.dispatch"
// CHECK-NEXT: return
//
// Gates that refuse: an expanded value under 1 MB (28x28x96 f32), a 3x3
// producer (not pointwise), and a strided 1x1 each keep the depthwise in
// a dispatch of its own, after the producer's (which computes into the
// pad's window as before).
// CHECK-LABEL: func.func @small_dispatch_0(
// CHECK: tensor.pad
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: "flow.dispatch.tensor.store"
// CHECK-LABEL: func.func @small_dispatch_1(
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
// CHECK-LABEL: func.func @small(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @not_pointwise(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
// CHECK-LABEL: func.func @strided(
// CHECK: "flow.dispatch"
// CHECK-NEXT: "flow.dispatch"
// CHECK-NEXT: return
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
module {
  func.func @pair(%x: tensor<1x56x56x16xf32>, %w: tensor<1x1x16x96xf32>, %dw: tensor<3x3x96xf32>, %b: tensor<96xf32>) -> tensor<1x56x56x96xf32> {
    %z = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    %e = tensor.empty() : tensor<1x56x56x96xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x56x56x16xf32>, tensor<1x1x16x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %e2 = tensor.empty() : tensor<1x56x56x96xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x56x56x96xf32>) outs(%e2 : tensor<1x56x56x96xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.maximumf %in, %z : f32
      %n = arith.minimumf %m, %six : f32
      linalg.yield %n : f32
    } -> tensor<1x56x56x96xf32>
    %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %z : f32
    } : tensor<1x56x56x96xf32> to tensor<1x58x58x96xf32>
    %e3 = tensor.empty() : tensor<1x56x56x96xf32>
    %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %dw : tensor<1x58x58x96xf32>, tensor<3x3x96xf32>) outs(%f3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %e4 = tensor.empty() : tensor<1x56x56x96xf32>
    %o = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x56x56x96xf32>, tensor<96xf32>) outs(%e4 : tensor<1x56x56x96xf32>) {
    ^bb0(%in: f32, %bi: f32, %out: f32):
      %s = arith.addf %in, %bi : f32
      linalg.yield %s : f32
    } -> tensor<1x56x56x96xf32>
    return %o : tensor<1x56x56x96xf32>
  }
  func.func @small(%x: tensor<1x28x28x16xf32>, %w: tensor<1x1x16x96xf32>, %dw: tensor<3x3x96xf32>) -> tensor<1x28x28x96xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x28x28x96xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x28x28x96xf32>) -> tensor<1x28x28x96xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x28x28x16xf32>, tensor<1x1x16x96xf32>) outs(%f : tensor<1x28x28x96xf32>) -> tensor<1x28x28x96xf32>
    %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %z : f32
    } : tensor<1x28x28x96xf32> to tensor<1x30x30x96xf32>
    %e3 = tensor.empty() : tensor<1x28x28x96xf32>
    %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x28x28x96xf32>) -> tensor<1x28x28x96xf32>
    %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %dw : tensor<1x30x30x96xf32>, tensor<3x3x96xf32>) outs(%f3 : tensor<1x28x28x96xf32>) -> tensor<1x28x28x96xf32>
    return %d : tensor<1x28x28x96xf32>
  }
  func.func @not_pointwise(%x: tensor<1x58x58x16xf32>, %w: tensor<3x3x16x96xf32>, %dw: tensor<3x3x96xf32>) -> tensor<1x56x56x96xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x56x56x96xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x58x58x16xf32>, tensor<3x3x16x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %z : f32
    } : tensor<1x56x56x96xf32> to tensor<1x58x58x96xf32>
    %e3 = tensor.empty() : tensor<1x56x56x96xf32>
    %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %dw : tensor<1x58x58x96xf32>, tensor<3x3x96xf32>) outs(%f3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    return %d : tensor<1x56x56x96xf32>
  }
  func.func @strided(%x: tensor<1x111x111x16xf32>, %w: tensor<1x1x16x96xf32>, %dw: tensor<3x3x96xf32>) -> tensor<1x56x56x96xf32> {
    %z = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<1x56x56x96xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x111x111x16xf32>, tensor<1x1x16x96xf32>) outs(%f : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %p = tensor.pad %c low[0, 1, 1, 0] high[0, 1, 1, 0] {
    ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
      tensor.yield %z : f32
    } : tensor<1x56x56x96xf32> to tensor<1x58x58x96xf32>
    %e3 = tensor.empty() : tensor<1x56x56x96xf32>
    %f3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %dw : tensor<1x58x58x96xf32>, tensor<3x3x96xf32>) outs(%f3 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
    return %d : tensor<1x56x56x96xf32>
  }
}
