// Round trip of linalg.generic: elementwise bodies with linalg.yield,
// linalg.index, broadcasting and transposing maps, reductions, several
// inputs and results, dynamic shapes, rank 0, and extra attributes.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d1)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1) -> (d0)>
// CHECK-NEXT: #map3 = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-NEXT: #map4 = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-NEXT: #map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-NEXT: #map6 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map7 = affine_map<() -> ()>
// CHECK-NEXT: #map8 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-NEXT: #map9 = affine_map<(d0, d1, d2, d3) -> (0, d1 * 2 + 1, d2 * 2, d3)>
// CHECK-NEXT: #map10 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-NEXT: module {
// CHECK-LABEL: func.func @add_bias(%arg0: tensor<4x8xf32>, %arg1: tensor<8xf32>) -> tensor<4x8xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>) outs(%0 : tensor<4x8xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_0: f32, %out: f32):
// CHECK-NEXT: %2 = arith.addf %in, %in_0 : f32
// CHECK-NEXT: linalg.yield %2 : f32
// CHECK-NEXT: } -> tensor<4x8xf32>
// CHECK-NEXT: return %1 : tensor<4x8xf32>
// CHECK-NEXT: }
func.func @add_bias(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %init = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%init : tensor<4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// CHECK-LABEL: func.func @iota(%arg0: index) -> tensor<?x16xi32> {
// CHECK-NEXT: %0 = tensor.empty(%arg0) : tensor<?x16xi32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%0 : tensor<?x16xi32>) {
// CHECK-NEXT: ^bb0(%out: i32):
// CHECK-NEXT: %2 = linalg.index 0 : index
// CHECK-NEXT: %3 = linalg.index 1 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %4 = arith.muli %2, %c16 : index
// CHECK-NEXT: %5 = arith.addi %4, %3 : index
// CHECK-NEXT: %6 = arith.index_cast %5 : index to i32
// CHECK-NEXT: linalg.yield %6 : i32
// CHECK-NEXT: } -> tensor<?x16xi32>
// CHECK-NEXT: return %1 : tensor<?x16xi32>
// CHECK-NEXT: }
func.func @iota(%n: index) -> tensor<?x16xi32> {
  %init = tensor.empty(%n) : tensor<?x16xi32>
  %r = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%init : tensor<?x16xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c16 = arith.constant 16 : index
    %m = arith.muli %i, %c16 : index
    %k = arith.addi %m, %j : index
    %v = arith.index_cast %k : index to i32
    linalg.yield %v : i32
  } -> tensor<?x16xi32>
  return %r : tensor<?x16xi32>
}

// CHECK-LABEL: func.func @row_sum(%arg0: tensor<4x8xf32>) -> tensor<4xf32> {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: %2 = linalg.generic {indexing_maps = [#map, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%1 : tensor<4xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %3 = arith.addf %in, %out : f32
// CHECK-NEXT: linalg.yield %3 : f32
// CHECK-NEXT: } -> tensor<4xf32>
// CHECK-NEXT: return %2 : tensor<4xf32>
// CHECK-NEXT: }
func.func @row_sum(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @argmax(%arg0: tensor<4x8xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
// CHECK-NEXT: %0:2 = linalg.generic {indexing_maps = [#map, #map2, #map2], iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<4x8xf32>) outs(%arg1, %arg2 : tensor<4xf32>, tensor<4xi64>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32, %out_0: i64):
// CHECK-NEXT: %1 = linalg.index 1 : index
// CHECK-NEXT: %2 = arith.index_cast %1 : index to i64
// CHECK-NEXT: %3 = arith.cmpf ogt, %in, %out : f32
// CHECK-NEXT: %4 = arith.select %3, %in, %out : f32
// CHECK-NEXT: %5 = arith.select %3, %2, %out_0 : i64
// CHECK-NEXT: linalg.yield %4, %5 : f32, i64
// CHECK-NEXT: } -> (tensor<4xf32>, tensor<4xi64>)
// CHECK-NEXT: return %0#0, %0#1 : tensor<4xf32>, tensor<4xi64>
// CHECK-NEXT: }
func.func @argmax(%x: tensor<4x8xf32>, %vinit: tensor<4xf32>, %iinit: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xi64>) {
  %r:2 = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%vinit, %iinit : tensor<4xf32>, tensor<4xi64>) {
  ^bb0(%a: f32, %best: f32, %bi: i64):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %gt = arith.cmpf ogt, %a, %best : f32
    %v = arith.select %gt, %a, %best : f32
    %i = arith.select %gt, %ji, %bi : i64
    linalg.yield %v, %i : f32, i64
  } -> (tensor<4xf32>, tensor<4xi64>)
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xi64>
}

// CHECK-LABEL: func.func @matmul_as_generic(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<?x?xf32>) -> tensor<?x?xf32> {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<?x?xf32>, tensor<?x?xf32>) outs(%arg2 : tensor<?x?xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_0: f32, %out: f32):
// CHECK-NEXT: %1 = arith.mulf %in, %in_0 : f32
// CHECK-NEXT: %2 = arith.addf %out, %1 : f32
// CHECK-NEXT: linalg.yield %2 : f32
// CHECK-NEXT: } -> tensor<?x?xf32>
// CHECK-NEXT: return %0 : tensor<?x?xf32>
// CHECK-NEXT: }
func.func @matmul_as_generic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<?x?xf32>, tensor<?x?xf32>) outs(%c : tensor<?x?xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @transpose_generic(%arg0: tensor<3x5xf32>) -> tensor<5x3xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<5x3xf32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map6, #map], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<3x5xf32>) outs(%0 : tensor<5x3xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: linalg.yield %in : f32
// CHECK-NEXT: } -> tensor<5x3xf32>
// CHECK-NEXT: return %1 : tensor<5x3xf32>
// CHECK-NEXT: }
func.func @transpose_generic(%x: tensor<3x5xf32>) -> tensor<5x3xf32> {
  %init = tensor.empty() : tensor<5x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%init : tensor<5x3xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<5x3xf32>
  return %r : tensor<5x3xf32>
}

// CHECK-LABEL: func.func @scalar_operand_and_rank0(%arg0: tensor<f32>, %arg1: f32) -> tensor<f32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<f32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map7, #map7, #map7], iterator_types = []} ins(%arg0, %arg1 : tensor<f32>, f32) outs(%0 : tensor<f32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_0: f32, %out: f32):
// CHECK-NEXT: %2 = arith.mulf %in, %in_0 : f32
// CHECK-NEXT: linalg.yield %2 : f32
// CHECK-NEXT: } -> tensor<f32>
// CHECK-NEXT: return %1 : tensor<f32>
// CHECK-NEXT: }
func.func @scalar_operand_and_rank0(%x: tensor<f32>, %s: f32) -> tensor<f32> {
  %init = tensor.empty() : tensor<f32>
  %r = linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%x, %s : tensor<f32>, f32) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @type_change_and_attrs(%arg0: tensor<2x3x4xi8>) -> tensor<2x4xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<2x4xf32>
// CHECK-NEXT: %1 = linalg.generic {doc = "sum over d1", indexing_maps = [#map8, #map3], iterator_types = ["parallel", "reduction", "parallel"], library_call = "kiln_sum"} ins(%arg0 : tensor<2x3x4xi8>) outs(%0 : tensor<2x4xf32>) attrs =  {kiln.tag = 1 : i32} {
// CHECK-NEXT: ^bb0(%in: i8, %out: f32):
// CHECK-NEXT: %2 = arith.sitofp %in : i8 to f32
// CHECK-NEXT: %3 = arith.addf %2, %out : f32
// CHECK-NEXT: linalg.yield %3 : f32
// CHECK-NEXT: } -> tensor<2x4xf32>
// CHECK-NEXT: return %1 : tensor<2x4xf32>
// CHECK-NEXT: }
func.func @type_change_and_attrs(%x: tensor<2x3x4xi8>) -> tensor<2x4xf32> {
  %init = tensor.empty() : tensor<2x4xf32>
  %r = linalg.generic {doc = "sum over d1", indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], iterator_types = ["parallel", "reduction", "parallel"], library_call = "kiln_sum"}
      ins(%x : tensor<2x3x4xi8>) outs(%init : tensor<2x4xf32>) attrs = {kiln.tag = 1 : i32} {
  ^bb0(%a: i8, %acc: f32):
    %f = arith.sitofp %a : i8 to f32
    %s = arith.addf %f, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2x4xf32>
  return %r : tensor<2x4xf32>
}

// CHECK-LABEL: func.func @constant_and_strided_maps(%arg0: tensor<1x9x9x1xf32>) -> tensor<1x4x4x1xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<1x4x4x1xf32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map9, #map10], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg0 : tensor<1x9x9x1xf32>) outs(%0 : tensor<1x4x4x1xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: linalg.yield %in : f32
// CHECK-NEXT: } -> tensor<1x4x4x1xf32>
// CHECK-NEXT: return %1 : tensor<1x4x4x1xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @constant_and_strided_maps(%x: tensor<1x9x9x1xf32>) -> tensor<1x4x4x1xf32> {
  %init = tensor.empty() : tensor<1x4x4x1xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, c) -> (0, h * 2 + 1, w * 2, c)>, affine_map<(n, h, w, c) -> (n, h, w, c)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x9x9x1xf32>) outs(%init : tensor<1x4x4x1xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x4x4x1xf32>
  return %r : tensor<1x4x4x1xf32>
}
