// Round trip of a whole small model as a front end would hand it over:
// weights as dense constants, matmul + bias + relu layers through named and
// generic ops, a softmax-like tail with reductions, comments and blank
// lines in odd places.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

#bias = affine_map<(b, n) -> (n)>
#elem = affine_map<(b, n) -> (b, n)>
#rowv = affine_map<(b, n) -> (b)>

// The first layer.
// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d1)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1) -> (d0)>
// CHECK-NEXT: module {
// CHECK-LABEL: func.func @mlp(%arg0: tensor<2x4xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %cst = arith.constant dense<{{\[\[}}5.000000e-01, -5.000000e-01, 1.000000e+00], [2.500000e-01, 0.000000e+00, -1.000000e+00], [1.000000e+00, 1.000000e+00, 1.000000e+00], [-2.000000e+00, 5.000000e-01, 1.250000e-01]]> : tensor<4x3xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<[1.000000e-01, 2.000000e-01, 3.000000e-01]> : tensor<3xf32>
// CHECK-NEXT: %cst_1 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst_1 : f32) outs(%0 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %2 = linalg.matmul ins(%arg0, %cst : tensor<2x4xf32>, tensor<4x3xf32>) outs(%1 : tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %3 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%2, %cst_0 : tensor<2x3xf32>, tensor<3xf32>) outs(%0 : tensor<2x3xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_2: f32, %out: f32):
// CHECK-NEXT: %5 = arith.addf %in, %in_2 : f32
// CHECK-NEXT: %6 = arith.maximumf %5, %cst_1 : f32
// CHECK-NEXT: linalg.yield %6 : f32
// CHECK-NEXT: } -> tensor<2x3xf32>
// CHECK-NEXT: %4 = call @softmax_rows(%3) : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: return %4 : tensor<2x3xf32>
// CHECK-NEXT: }
func.func @mlp(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w1 = arith.constant dense<[[0.5, -0.5, 1.0], [0.25, 0.0, -1.0], [1.0, 1.0, 1.0], [-2.0, 0.5, 0.125]]> : tensor<4x3xf32>
  %b1 = arith.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%x, %w1 : tensor<2x4xf32>, tensor<4x3xf32>) outs(%acc : tensor<2x3xf32>) -> tensor<2x3xf32>

  %act = linalg.generic {indexing_maps = [#elem, #bias, #elem], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b1 : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%v: f32, %b: f32, %o: f32):   // bias + relu
    %s = arith.addf %v, %b : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %probs = call @softmax_rows(%act) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %probs : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @softmax_rows(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: %cst = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %cst_0 = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<2xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %2 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<2x3xf32>) outs(%1 : tensor<2xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %8 = arith.maximumf %in, %out : f32
// CHECK-NEXT: linalg.yield %8 : f32
// CHECK-NEXT: } -> tensor<2xf32>
// CHECK-NEXT: %3 = tensor.empty() : tensor<2x3xf32>
// CHECK-NEXT: %4 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %2 : tensor<2x3xf32>, tensor<2xf32>) outs(%3 : tensor<2x3xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_1: f32, %out: f32):
// CHECK-NEXT: %8 = arith.subf %in, %in_1 : f32
// CHECK-NEXT: %9 = math.exp %8 : f32
// CHECK-NEXT: linalg.yield %9 : f32
// CHECK-NEXT: } -> tensor<2x3xf32>
// CHECK-NEXT: %5 = linalg.fill ins(%cst_0 : f32) outs(%0 : tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %6 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%4 : tensor<2x3xf32>) outs(%5 : tensor<2xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %8 = arith.addf %in, %out : f32
// CHECK-NEXT: linalg.yield %8 : f32
// CHECK-NEXT: } -> tensor<2xf32>
// CHECK-NEXT: %7 = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %6 : tensor<2x3xf32>, tensor<2xf32>) outs(%3 : tensor<2x3xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_1: f32, %out: f32):
// CHECK-NEXT: %8 = arith.divf %in, %in_1 : f32
// CHECK-NEXT: linalg.yield %8 : f32
// CHECK-NEXT: } -> tensor<2x3xf32>
// CHECK-NEXT: return %7 : tensor<2x3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @softmax_rows(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %re = tensor.empty() : tensor<2xf32>
  %minit = linalg.fill ins(%ninf : f32) outs(%re : tensor<2xf32>) -> tensor<2xf32>
  %max = linalg.generic {indexing_maps = [#elem, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<2x3xf32>) outs(%minit : tensor<2xf32>) {
  ^bb0(%a: f32, %m: f32):
    %n = arith.maximumf %a, %m : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %ex = linalg.generic {indexing_maps = [#elem, #rowv, #elem], iterator_types = ["parallel", "parallel"]}
      ins(%x, %max : tensor<2x3xf32>, tensor<2xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %p = math.exp %d : f32
    linalg.yield %p : f32
  } -> tensor<2x3xf32>
  %sinit = linalg.fill ins(%zero : f32) outs(%re : tensor<2xf32>) -> tensor<2xf32>
  %sum = linalg.generic {indexing_maps = [#elem, #rowv], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<2x3xf32>) outs(%sinit : tensor<2xf32>) {
  ^bb0(%a: f32, %s: f32):
    %n = arith.addf %a, %s : f32
    linalg.yield %n : f32
  } -> tensor<2xf32>
  %r = linalg.generic {indexing_maps = [#elem, #rowv, #elem], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<2x3xf32>, tensor<2xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
