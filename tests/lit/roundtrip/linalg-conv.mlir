// Round trip of linalg's convolution and pooling named ops, with default
// and explicit strides/dilations attributes (dense<...> : tensor<2xi64>
// and vector<2xi64> spellings).
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @conv_nhwc_hwcf(%arg0: tensor<1x32x32x3xf32>, %arg1: tensor<3x3x3x16xf32>, %arg2: tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32> {
// CHECK-NEXT: %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x32x32x3xf32>, tensor<3x3x3x16xf32>) outs(%arg2 : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
// CHECK-NEXT: return %0 : tensor<1x30x30x16xf32>
// CHECK-NEXT: }
func.func @conv_nhwc_hwcf(%in: tensor<1x32x32x3xf32>, %w: tensor<3x3x3x16xf32>, %out: tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x32x32x3xf32>, tensor<3x3x3x16xf32>) outs(%out : tensor<1x30x30x16xf32>) -> tensor<1x30x30x16xf32>
  return %0 : tensor<1x30x30x16xf32>
}

// CHECK-LABEL: func.func @conv_nhwc_hwcf_strided(%arg0: tensor<2x33x33x8xf32>, %arg1: tensor<3x3x8x4xf32>, %arg2: tensor<2x16x16x4xf32>) -> tensor<2x16x16x4xf32> {
// CHECK-NEXT: %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<2x33x33x8xf32>, tensor<3x3x8x4xf32>) outs(%arg2 : tensor<2x16x16x4xf32>) -> tensor<2x16x16x4xf32>
// CHECK-NEXT: return %0 : tensor<2x16x16x4xf32>
// CHECK-NEXT: }
func.func @conv_nhwc_hwcf_strided(%in: tensor<2x33x33x8xf32>, %w: tensor<3x3x8x4xf32>, %out: tensor<2x16x16x4xf32>) -> tensor<2x16x16x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 1]> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>}
         ins(%in, %w : tensor<2x33x33x8xf32>, tensor<3x3x8x4xf32>) outs(%out : tensor<2x16x16x4xf32>) -> tensor<2x16x16x4xf32>
  return %0 : tensor<2x16x16x4xf32>
}

// CHECK-LABEL: func.func @conv_nhwc_hwcf_default_attrs(%arg0: tensor<1x8x8x2xf32>, %arg1: tensor<2x2x2x2xf32>, %arg2: tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32> {
// CHECK-NEXT: %0 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %arg1 : tensor<1x8x8x2xf32>, tensor<2x2x2x2xf32>) outs(%arg2 : tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32>
// CHECK-NEXT: return %0 : tensor<1x7x7x2xf32>
// CHECK-NEXT: }
func.func @conv_nhwc_hwcf_default_attrs(%in: tensor<1x8x8x2xf32>, %w: tensor<2x2x2x2xf32>, %out: tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%in, %w : tensor<1x8x8x2xf32>, tensor<2x2x2x2xf32>) outs(%out : tensor<1x7x7x2xf32>) -> tensor<1x7x7x2xf32>
  return %0 : tensor<1x7x7x2xf32>
}

// CHECK-LABEL: func.func @conv_nchw_fchw(%arg0: tensor<1x3x229x229xf32>, %arg1: tensor<64x3x7x7xf32>, %arg2: tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32> {
// CHECK-NEXT: %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%arg0, %arg1 : tensor<1x3x229x229xf32>, tensor<64x3x7x7xf32>) outs(%arg2 : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
// CHECK-NEXT: return %0 : tensor<1x64x112x112xf32>
// CHECK-NEXT: }
func.func @conv_nchw_fchw(%in: tensor<1x3x229x229xf32>, %w: tensor<64x3x7x7xf32>, %out: tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
         ins(%in, %w : tensor<1x3x229x229xf32>, tensor<64x3x7x7xf32>) outs(%out : tensor<1x64x112x112xf32>) -> tensor<1x64x112x112xf32>
  return %0 : tensor<1x64x112x112xf32>
}

// CHECK-LABEL: func.func @conv_nchw_fchw_dilated(%arg0: tensor<?x4x?x?xf32>, %arg1: tensor<8x4x3x3xf32>, %arg2: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
// CHECK-NEXT: %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) outs(%arg2 : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
// CHECK-NEXT: return %0 : tensor<?x8x?x?xf32>
// CHECK-NEXT: }
func.func @conv_nchw_fchw_dilated(%in: tensor<?x4x?x?xf32>, %w: tensor<8x4x3x3xf32>, %out: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
         ins(%in, %w : tensor<?x4x?x?xf32>, tensor<8x4x3x3xf32>) outs(%out : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  return %0 : tensor<?x8x?x?xf32>
}

// CHECK-LABEL: func.func @depthwise(%arg0: tensor<1x16x16x8xf32>, %arg1: tensor<3x3x8xf32>, %arg2: tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32> {
// CHECK-NEXT: %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x16x16x8xf32>, tensor<3x3x8xf32>) outs(%arg2 : tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32>
// CHECK-NEXT: return %0 : tensor<1x14x14x8xf32>
// CHECK-NEXT: }
func.func @depthwise(%in: tensor<1x16x16x8xf32>, %w: tensor<3x3x8xf32>, %out: tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x16x16x8xf32>, tensor<3x3x8xf32>) outs(%out : tensor<1x14x14x8xf32>) -> tensor<1x14x14x8xf32>
  return %0 : tensor<1x14x14x8xf32>
}

// CHECK-LABEL: func.func @pooling_nhwc(%arg0: tensor<1x8x8x4xf32>, %arg1: tensor<2x2xf32>, %arg2: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
// CHECK-NEXT: %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%arg2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: %1 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%arg2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
// CHECK-NEXT: return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
// CHECK-NEXT: }
func.func @pooling_nhwc(%in: tensor<1x8x8x4xf32>, %win: tensor<2x2xf32>, %out: tensor<1x4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %win : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%out : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %win : tensor<1x8x8x4xf32>, tensor<2x2xf32>) outs(%out : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0, %1 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}

// CHECK-LABEL: func.func @pooling_nchw(%arg0: tensor<1x4x9x9xf32>, %arg1: tensor<3x3xf32>, %arg2: tensor<1x4x7x7xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xf32>) {
// CHECK-NEXT: %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%arg2 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
// CHECK-NEXT: %1 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%arg2 : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
// CHECK-NEXT: return %0, %1 : tensor<1x4x7x7xf32>, tensor<1x4x7x7xf32>
// CHECK-NEXT: }
func.func @pooling_nchw(%in: tensor<1x4x9x9xf32>, %win: tensor<3x3xf32>, %out: tensor<1x4x7x7xf32>) -> (tensor<1x4x7x7xf32>, tensor<1x4x7x7xf32>) {
  %0 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %win : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%out : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  %1 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %win : tensor<1x4x9x9xf32>, tensor<3x3xf32>) outs(%out : tensor<1x4x7x7xf32>) -> tensor<1x4x7x7xf32>
  return %0, %1 : tensor<1x4x7x7xf32>, tensor<1x4x7x7xf32>
}

// CHECK-LABEL: func.func @conv_relu_pool(%arg0: tensor<1x10x10x1xf32>, %arg1: tensor<3x3x1x2xf32>) -> tensor<1x4x4x2xf32> {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %cst_0 = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<1x8x8x2xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT: %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%arg0, %arg1 : tensor<1x10x10x1xf32>, tensor<3x3x1x2xf32>) outs(%1 : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
// CHECK-NEXT: %mapped = linalg.map ins(%2 : tensor<1x8x8x2xf32>) outs(%0 : tensor<1x8x8x2xf32>)
// CHECK-NEXT: (%in: f32) {
// CHECK-NEXT: %7 = arith.maximumf %in, %cst : f32
// CHECK-NEXT: linalg.yield %7 : f32
// CHECK-NEXT: }
// CHECK-NEXT: %3 = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT: %4 = tensor.empty() : tensor<1x4x4x2xf32>
// CHECK-NEXT: %5 = linalg.fill ins(%cst_0 : f32) outs(%4 : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT: %6 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%mapped, %3 : tensor<1x8x8x2xf32>, tensor<2x2xf32>) outs(%5 : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
// CHECK-NEXT: return %6 : tensor<1x4x4x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @conv_relu_pool(%in: tensor<1x10x10x1xf32>, %w: tensor<3x3x1x2xf32>) -> tensor<1x4x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<1x8x8x2xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x10x10x1xf32>, tensor<3x3x1x2xf32>) outs(%acc : tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
  %r = linalg.map ins(%c : tensor<1x8x8x2xf32>) outs(%e : tensor<1x8x8x2xf32>)
    (%x: f32) {
      %m = arith.maximumf %x, %zero : f32
      linalg.yield %m : f32
    }
  %win = tensor.empty() : tensor<2x2xf32>
  %pe = tensor.empty() : tensor<1x4x4x2xf32>
  %pinit = linalg.fill ins(%ninf : f32) outs(%pe : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%r, %win : tensor<1x8x8x2xf32>, tensor<2x2xf32>) outs(%pinit : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %p : tensor<1x4x4x2xf32>
}
