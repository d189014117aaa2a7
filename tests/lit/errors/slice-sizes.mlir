// extract_slice result type disagreeing with the static sizes.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: tensor<8x8xf32>) -> tensor<4x3xf32> {
  // CHECK: slice-sizes.mlir:[[@LINE+1]]:8: error: 'tensor.extract_slice' op expected type to be compatible with the sizes: dim 1 is 3, size is 4
  %0 = tensor.extract_slice %a[0, 0] [4, 4] [1, 1] : tensor<8x8xf32> to tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}
