// infer-shapes reports shapes that contradict each other once a tensor.cast
// no longer hides them (the verifier cannot see these), names the op, its
// location and both sizes, rewrites nothing and fails.
// RUN: not kiln-opt --pass-pipeline=infer-shapes %s 2>&1 | FileCheck %s

func.func @contraction(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %ad = tensor.cast %a : tensor<4x8xf32> to tensor<?x?xf32>
  // CHECK: infer-shapes-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'linalg.matmul' op contraction dimension (lhs dim 1, rhs dim 0): 8 vs 7
  %r = linalg.matmul ins(%ad, %b : tensor<?x?xf32>, tensor<7x16xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @declared_result(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<5x16xf32>) -> tensor<5x16xf32> {
  %ad = tensor.cast %a : tensor<4x8xf32> to tensor<?x8xf32>
  // CHECK: infer-shapes-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'linalg.matmul' op result 0 dimension 0: declared size vs size implied by the inputs: 5 vs 4
  %r = linalg.matmul ins(%ad, %b : tensor<?x8xf32>, tensor<8x16xf32>) outs(%c : tensor<5x16xf32>) -> tensor<5x16xf32>
  return %r : tensor<5x16xf32>
}

func.func @window_too_large(%in: tensor<1x4x4x1xf32>, %w: tensor<5x3x1x1xf32>, %out: tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32> {
  %ind = tensor.cast %in : tensor<1x4x4x1xf32> to tensor<?x?x?x?xf32>
  // CHECK: infer-shapes-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'linalg.conv_2d_nhwc_hwcf' op window along height spans 5 (size 5, dilation 1) but the input has only 4
  %r = linalg.conv_2d_nhwc_hwcf ins(%ind, %w : tensor<?x?x?x?xf32>, tensor<5x3x1x1xf32>) outs(%out : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// The first matmul's result becomes 4x16; the second one then learns that
// its contraction sizes differ.
func.func @downstream(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %w: tensor<8x2xf32>, %m: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%m, %m) : tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: infer-shapes-errors.mlir:[[@LINE+1]]:{{[0-9]+}}: error: 'linalg.matmul' op contraction dimension (lhs dim 1, rhs dim 0): 16 vs 8
  %s = linalg.matmul ins(%r, %w : tensor<?x?xf32>, tensor<8x2xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %s : tensor<?x?xf32>
}

// CHECK: infer-shapes: 4 shape contradictions
