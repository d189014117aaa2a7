// RUN: kiln-opt %s --generalize-named-ops | kiln-opt --fold-views | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s --check-prefix=FLOW
// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=qk_t --input=2x3x2xf32=1,0,0,1,1,1,2,0,0,2,1,-1 --input=3x2x2xf32=1,2,3,4,5,6,7,8,9,10,11,12 | FileCheck %s --check-prefix=QK
// RUN: kiln-run --module=%t.kiln --function=first_cols --input=2x4xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=FIRST
// RUN: kiln-run --module=%t.kiln --function=heads --input=3x1x12xf32=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35 | FileCheck %s --check-prefix=HEADS
// fold-views: attention's head split of a fused projection. qkv is
// [S=3, 1, 12] (three [S, 4] projections side by side); k is the slice
// [.., 4:8], collapsed to [3, 4], split into 2 heads of 2 and transposed
// to [heads, S, 2], then scaled. The scaling generic reads qkv in place:
// (h, s, d) -> (s, 0, h * 2 + d + 4); the slice, reshapes and transpose
// are gone.
// CHECK-DAG: #[[IN:map[0-9]*]] = affine_map<(d0, d1, d2) -> (d1, 0, d0 * 2 + d2 + 4)>
// CHECK-LABEL: func.func @heads
// CHECK-NOT: tensor.extract_slice
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<3x1x12xf32>) outs(%{{.*}} : tensor<2x3x2xf32>)
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
//
// One dispatch for @heads.
// FLOW-LABEL: func.func @heads(
// FLOW-COUNT-1: "flow.dispatch"
// FLOW-NOT: "flow.dispatch"
// FLOW: return
// k[s][h][d] = qkv[s][4 + 2h + d] * 2: head 0 = [[8 10] [32 34] [56 58]], head 1 = [[12 14] [36 38] [60 62]]
// HEADS: result[0]: 2x3x2xf32={{\[\[}}8 10][32 34][56 58]]{{\[\[}}12 14][36 38][60 62]]
//
// qk_t: Q.K^T per head, K given as [S, heads, D] and transposed to
// [heads, D, S]: generalize-named-ops turns the batch_matmul into a
// generic and the transpose folds in: the product reads k in place
// through (b, m, n, k) -> (n, b, k), one dispatch, no transpose copy.
// FLOW-LABEL: func.func @qk_t_dispatch_0(
// FLOW: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #[[KT:map[0-9]*]], #{{map[0-9]*}}], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
// FLOW: arith.mulf
// FLOW-NEXT: arith.addf
// FLOW-LABEL: func.func @qk_t(
// FLOW-COUNT-1: "flow.dispatch"
// FLOW-NOT: "flow.dispatch"
// FLOW: return
// q = [[[1 0][0 1][1 1]] [[2 0][0 2][1 -1]]], k[s][h] = rows of 1..12:
// head 0 keys (1,2) (5,6) (9,10), head 1 keys (3,4) (7,8) (11,12)
// QK: result[0]: 2x3x3xf32={{\[\[}}1 5 9][2 6 10][3 11 19]]{{\[\[}}6 14 22][8 16 24][-1 -1 -1]]
//
// unit_transpose: PyTorch's batch-first [1, S, D] transposed to [S, 1, D]
// moves only a unit dim: reshapes-to-views makes it a view, so the
// matmul reads the argument directly (one dispatch).
// FLOW-LABEL: func.func @unit_transpose(
// FLOW-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%arg0) : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
// FLOW-NEXT: "flow.dispatch"(%[[V]],
// FLOW-NOT: "flow.dispatch"
// FLOW: return
//
// first_cols: a slice at offset 0 of a longer dim would read x through
// the plain dim d1, which would then claim x's size 4 for the loop over
// 2 columns: not folded (the slice stays a view copy).
// CHECK-LABEL: func.func @first_cols
// CHECK: tensor.extract_slice
// FIRST: result[0]: 2x2xf32={{\[}}2 4][10 12]
//
// A collapse of two non-unit dims would need a division: not folded.
// CHECK-LABEL: func.func @merged
// CHECK: tensor.collapse_shape
// CHECK: linalg.generic
func.func @heads(%qkv: tensor<3x1x12xf32>) -> tensor<2x3x2xf32> {
  %k = tensor.extract_slice %qkv[0, 0, 4] [3, 1, 4] [1, 1, 1] : tensor<3x1x12xf32> to tensor<3x1x4xf32>
  %k2 = tensor.collapse_shape %k [[0], [1, 2]] : tensor<3x1x4xf32> into tensor<3x4xf32>
  %k3 = tensor.expand_shape %k2 [[0], [1, 2]] output_shape [3, 2, 2] : tensor<3x4xf32> into tensor<3x2x2xf32>
  %e = tensor.empty() : tensor<2x3x2xf32>
  %t = linalg.transpose ins(%k3 : tensor<3x2x2xf32>) outs(%e : tensor<2x3x2xf32>) permutation = [1, 0, 2]
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t : tensor<2x3x2xf32>) outs(%e : tensor<2x3x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %m = arith.mulf %a, %two : f32
    linalg.yield %m : f32
  } -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}
func.func @qk_t(%q: tensor<2x3x2xf32>, %k: tensor<3x2x2xf32>) -> tensor<2x3x3xf32> {
  %et = tensor.empty() : tensor<2x2x3xf32>
  %kt = linalg.transpose ins(%k : tensor<3x2x2xf32>) outs(%et : tensor<2x2x3xf32>) permutation = [1, 2, 0]
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x3xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %r = linalg.batch_matmul ins(%q, %kt : tensor<2x3x2xf32>, tensor<2x2x3xf32>) outs(%f : tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  return %r : tensor<2x3x3xf32>
}
func.func @unit_transpose(%x: tensor<1x3x4xf32>, %w: tensor<4x5xf32>) -> tensor<3x5xf32> {
  %e = tensor.empty() : tensor<3x1x4xf32>
  %t = linalg.transpose ins(%x : tensor<1x3x4xf32>) outs(%e : tensor<3x1x4xf32>) permutation = [1, 0, 2]
  %c = tensor.collapse_shape %t [[0, 1], [2]] : tensor<3x1x4xf32> into tensor<3x4xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<3x5xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %r = linalg.matmul ins(%c, %w : tensor<3x4xf32>, tensor<4x5xf32>) outs(%f : tensor<3x5xf32>) -> tensor<3x5xf32>
  return %r : tensor<3x5xf32>
}
func.func @first_cols(%x: tensor<2x4xf32>) -> tensor<2x2xf32> {
  %s = tensor.extract_slice %x[0, 0] [2, 2] [1, 1] : tensor<2x4xf32> to tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%s : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  } -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @merged(%x: tensor<3x4xf32>) -> tensor<12xf32> {
  %c = tensor.collapse_shape %x [[0, 1]] : tensor<3x4xf32> into tensor<12xf32>
  %e = tensor.empty() : tensor<12xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%c : tensor<12xf32>) outs(%e : tensor<12xf32>) {
  ^bb0(%a: f32, %out: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  } -> tensor<12xf32>
  return %r : tensor<12xf32>
}
