// Dynamic shapes end to end: tensor.dim/empty with sizes, generic on ?-shaped tensors, mixed static/dynamic slice offsets/sizes/strides, reshapes with dynamic output_shape, pad with dynamic low/high, splat with sizes, softmax, casts, float spellings (denormal, negative, -inf).
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: #map1 = affine_map<(d0, d1) -> (d1)>
// CHECK: module {
// CHECK:   func.func @dyn(%arg0: tensor<?x?xf32>, %arg1: tensor<?xf32>, %arg2: index, %arg3: index) -> tensor<?x?xf32> {
// CHECK:     %c0 = arith.constant 0 : index
// CHECK:     %c1 = arith.constant 1 : index
// CHECK:     %dim = tensor.dim %arg0, %c0 : tensor<?x?xf32>
// CHECK:     %dim_0 = tensor.dim %arg0, %c1 : tensor<?x?xf32>
// CHECK:     %0 = tensor.empty(%dim, %dim_0) : tensor<?x?xf32>
// CHECK:     %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?xf32>) outs(%0 : tensor<?x?xf32>) {
// CHECK:     ^bb0(%in: f32, %in_7: f32, %out: f32):
// CHECK:       %4 = arith.addf %in, %in_7 : f32
// CHECK:       linalg.yield %4 : f32
// CHECK:     } -> tensor<?x?xf32>
// CHECK:     %extracted_slice = tensor.extract_slice %1[%arg2, 0] [%arg3, 4] [1, %c1] : tensor<?x?xf32> to tensor<?x4xf32>
// CHECK:     %inserted_slice = tensor.insert_slice %extracted_slice into %1[0, %arg2] [%arg3, 4] [1, 1] : tensor<?x4xf32> into tensor<?x?xf32>
// CHECK:     %collapsed = tensor.collapse_shape %inserted_slice {{\[\[}}0, 1]] : tensor<?x?xf32> into tensor<?xf32>
// CHECK:     %expanded = tensor.expand_shape %collapsed {{\[\[}}0, 1]] output_shape [%arg2, 8] : tensor<?xf32> into tensor<?x8xf32>
// CHECK:     %cst = arith.constant 0.000000e+00 : f32
// CHECK:     %padded = tensor.pad %expanded low[%arg2, 0] high[1, %arg3] {
// CHECK:     ^bb0(%arg4: index, %arg5: index):
// CHECK:       tensor.yield %cst : f32
// CHECK:     } : tensor<?x8xf32> to tensor<?x?xf32>
// CHECK:     %splat = tensor.splat %cst[%arg2, %arg3] : tensor<?x?xf32>
// CHECK:     %2 = tensor.empty(%arg2) : tensor<?x4xf32>
// CHECK:     %3 = linalg.softmax dimension(1) ins(%extracted_slice : tensor<?x4xf32>) outs(%2 : tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK:     %cst_1 = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : tensor<2x2xf32>
// CHECK:     %extracted = tensor.extract %cst_1[%c0, %c1] : tensor<2x2xf32>
// CHECK:     %cst_2 = arith.constant dense<0> : tensor<2x3xi32>
// CHECK:     %cst_3 = arith.constant dense<[5.000000e-01, -2.500000e-01]> : tensor<2xbf16>
// CHECK:     %cast = tensor.cast %padded : tensor<?x?xf32> to tensor<4x?xf32>
// CHECK:     %cst_4 = arith.constant 1.401300e-45 : f32
// CHECK:     %cst_5 = arith.constant -123456.789 : f64
// CHECK:     %cst_6 = arith.constant 0xFF800000 : f32
// CHECK:     return %padded : tensor<?x?xf32>
// CHECK:   }
// CHECK: }

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @dyn(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %i: index, %j: index) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %a, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %a, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %g = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  %sl = tensor.extract_slice %g[%i, 0] [%j, 4] [1, %c1] : tensor<?x?xf32> to tensor<?x4xf32>
  %ins = tensor.insert_slice %sl into %g[0, %i] [%j, 4] [1, 1] : tensor<?x4xf32> into tensor<?x?xf32>
  %col = tensor.collapse_shape %ins [[0, 1]] : tensor<?x?xf32> into tensor<?xf32>
  %ex = tensor.expand_shape %col [[0, 1]] output_shape [%i, 8] : tensor<?xf32> into tensor<?x8xf32>
  %cst = arith.constant 0.0 : f32
  %p = tensor.pad %ex low[%i, 0] high[1, %j] {
  ^bb0(%q: index, %r: index):
    tensor.yield %cst : f32
  } : tensor<?x8xf32> to tensor<?x?xf32>
  %sp = tensor.splat %cst[%i, %j] : tensor<?x?xf32>
  %em = tensor.empty(%i) : tensor<?x4xf32>
  %sm = linalg.softmax dimension(1) ins(%sl : tensor<?x4xf32>) outs(%em : tensor<?x4xf32>) -> tensor<?x4xf32>
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %x1 = tensor.extract %w[%c0, %c1] : tensor<2x2xf32>
  %z = arith.constant dense<0> : tensor<2x3xi32>
  %u = arith.constant dense<[0.5, -0.25]> : tensor<2xbf16>
  %cc = tensor.cast %p : tensor<?x?xf32> to tensor<4x?xf32>
  %big = arith.constant 1.0e-45 : f32
  %neg = arith.constant -123456.789 : f64
  %inf = arith.constant 0xFF800000 : f32
  return %p : tensor<?x?xf32>
}
