// A convolution whose input is smaller than the window needs.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%i: tensor<1x4x4x3xf32>, %w: tensor<3x3x3x8xf32>, %o: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  // CHECK: conv-window.mlir:[[@LINE+1]]:8: error: 'linalg.conv_2d_nhwc_hwcf' op inferred input/output operand #0 has shape's dimension #1 to be greater than or equal to 6, but found 4
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x4x4x3xf32>, tensor<3x3x3x8xf32>) outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  return %0 : tensor<1x4x4x8xf32>
}
