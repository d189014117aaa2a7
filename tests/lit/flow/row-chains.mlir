// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches | FileCheck %s
//
// Row chains: a generic reducing its innermost loop into one value per
// row takes the generics after it over the same rows (a reduction reading
// the row sum, an all-parallel op over rows x columns reading both), so
// a LayerNorm is one dispatch. ReduceMean's keepdims expand between them
// is folded into the readers' maps.
#full = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#keep = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>

// CHECK-LABEL: func.func @norm_dispatch_0(
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<4x6xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<6xf32>) outs(%{{.*}} : tensor<4x6xf32>)
// CHECK-NOT: flow.executable
// CHECK-LABEL: func.func @norm(
// CHECK: flow.dispatch
// CHECK-NOT: flow.dispatch
// CHECK: return
func.func @norm(%x: tensor<4x6xf32>, %g: tensor<6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %sk = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %var = linalg.generic {indexing_maps = [#full, #keep, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %sk : tensor<4x6xf32>, tensor<4x1xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %inv = arith.constant 0.166666672 : f32
    %mean = arith.mulf %m, %inv : f32
    %d = arith.subf %a, %mean : f32
    %q = arith.mulf %d, %d : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %y = linalg.generic {indexing_maps = [#full, #keep, #row, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sk, %var, %g : tensor<4x6xf32>, tensor<4x1xf32>, tensor<4xf32>, tensor<6xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %gg: f32, %o: f32):
    %inv = arith.constant 0.166666672 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %m, %inv : f32
    %vv = arith.mulf %v, %inv : f32
    %d = arith.subf %a, %mean : f32
    %ve = arith.addf %vv, %eps : f32
    %sd = math.sqrt %ve : f32
    %n = arith.divf %d, %sd : f32
    %w = arith.mulf %n, %gg : f32
    linalg.yield %w : f32
  } -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// A reader iterating rows x columns in another loop order (its output's,
// transposed: 6x4) reads the row sums at its own row through its second
// loop: it is interchanged (its loops are all parallel) and joins the
// chain, writing its output through the transposed map. One dispatch.
// CHECK-LABEL: func.func @transposed_dispatch_0(
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: linalg.generic {indexing_maps = [#map{{[0-9]*}}, #map{{[0-9]*}}, #[[TR:map[0-9]*]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<4x6xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<6x4xf32>)
// CHECK-NOT: flow.executable
// CHECK-LABEL: func.func @transposed(
// CHECK: flow.dispatch
// CHECK-NOT: flow.dispatch
// CHECK: return
#tfull = affine_map<(d0, d1) -> (d1, d0)>
func.func @transposed(%x: tensor<4x6xf32>) -> tensor<6x4xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<6x4xf32>
  %y = linalg.generic {indexing_maps = [#tfull, #col, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x6xf32>, tensor<4xf32>) outs(%e : tensor<6x4xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<6x4xf32>
  return %y : tensor<6x4xf32>
}

// A reader of the row sums at another row (every row reads row 0's sum,
// which another workgroup may own) is no row-chain member: it gets a
// dispatch of its own, and the sums leave the first one.
// CHECK-LABEL: func.func @other_row_dispatch_0(
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK-NOT: linalg.generic
// CHECK: return
// CHECK-LABEL: func.func @other_row_dispatch_1(
// CHECK-LABEL: func.func @other_row(
// CHECK: flow.dispatch
// CHECK: flow.dispatch
#first = affine_map<(d0, d1) -> (0)>
func.func @other_row(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %y = linalg.generic {indexing_maps = [#full, #first, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : tensor<4x6xf32>, tensor<4xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %s : f32
    linalg.yield %d : f32
  } -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}

// Rows of run-time size (a dynamic batch): the same chain, one dispatch
// with workload [?] (the rows' host value); ReduceMean's keepdims expand
// has the rows' dim as its size operand, the sums' own, and folds as in
// @norm. The per-row values stay tensors of run-time size in the kernel
// (bufferize-kernels and tile-and-distribute give them a row tile).
// CHECK-LABEL: func.func @norm_rows_dispatch_0(
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32>
// CHECK: iterator_types = ["parallel", "reduction"]} ins(%{{.*}} : tensor<?x6xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: iterator_types = ["parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<?x6xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?xf32>)
// CHECK: iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x6xf32>, tensor<?xf32>, tensor<?xf32>) outs(%{{.*}} : tensor<?x6xf32>)
// CHECK-NOT: flow.executable
// CHECK-LABEL: func.func @norm_rows(
// CHECK: flow.dispatch{{.*}}workload = array<i64: -9223372036854775808>
// CHECK-NOT: flow.dispatch
// CHECK: return
func.func @norm_rows(%x: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x6xf32>
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty(%n) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x6xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %sk = tensor.expand_shape %sum [[0, 1]] output_shape [%n, 1] : tensor<?xf32> into tensor<?x1xf32>
  %var = linalg.generic {indexing_maps = [#full, #keep, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %sk : tensor<?x6xf32>, tensor<?x1xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %inv = arith.constant 0.166666672 : f32
    %mean = arith.mulf %m, %inv : f32
    %d = arith.subf %a, %mean : f32
    %q = arith.mulf %d, %d : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?x6xf32>
  %y = linalg.generic {indexing_maps = [#full, #keep, #row, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sk, %var : tensor<?x6xf32>, tensor<?x1xf32>, tensor<?xf32>) outs(%e : tensor<?x6xf32>) {
  ^bb0(%a: f32, %m: f32, %v: f32, %o: f32):
    %inv = arith.constant 0.166666672 : f32
    %eps = arith.constant 1.0e-5 : f32
    %mean = arith.mulf %m, %inv : f32
    %vv = arith.mulf %v, %inv : f32
    %d = arith.subf %a, %mean : f32
    %ve = arith.addf %vv, %eps : f32
    %sd = math.sqrt %ve : f32
    %nn = arith.divf %d, %sd : f32
    linalg.yield %nn : f32
  } -> tensor<?x6xf32>
  return %y : tensor<?x6xf32>
}

// PyTorch's LayerNorm below opset 17: sqrt(var + eps) runs on the
// keepdims view [rows, 1]. sink-reshapes moves the view below it (it maps
// the per-row values), so it joins the chain: still one dispatch.
// CHECK-LABEL: func.func @keepdims_sqrt_dispatch_0(
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: math.sqrt
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK-NOT: flow.executable
// CHECK-LABEL: func.func @keepdims_sqrt(
// CHECK: flow.dispatch
// CHECK-NOT: flow.dispatch
// CHECK: return
#id1 = affine_map<(d0) -> (d0)>
func.func @keepdims_sqrt(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %zero = arith.constant 0.0 : f32
  %er = tensor.empty() : tensor<4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#full, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x6xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %sk = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %sq = linalg.generic {indexing_maps = [#full, #keep, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %sk : tensor<4x6xf32>, tensor<4x1xf32>) outs(%z : tensor<4xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %q = arith.mulf %d, %d : f32
    %t = arith.addf %acc, %q : f32
    linalg.yield %t : f32
  } -> tensor<4xf32>
  %var = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%sq : tensor<4xf32>) outs(%er : tensor<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %inv = arith.constant 0.166666672 : f32
    %v = arith.mulf %a, %inv : f32
    linalg.yield %v : f32
  } -> tensor<4xf32>
  %vk = tensor.expand_shape %var [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %ek = tensor.empty() : tensor<4x1xf32>
  %sd = linalg.generic {indexing_maps = [#full, #full], iterator_types = ["parallel", "parallel"]} ins(%vk : tensor<4x1xf32>) outs(%ek : tensor<4x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %eps = arith.constant 1.0e-5 : f32
    %ve = arith.addf %v, %eps : f32
    %s = math.sqrt %ve : f32
    linalg.yield %s : f32
  } -> tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x6xf32>
  %y = linalg.generic {indexing_maps = [#full, #keep, #keep, #full], iterator_types = ["parallel", "parallel"]} ins(%x, %sk, %sd : tensor<4x6xf32>, tensor<4x1xf32>, tensor<4x1xf32>) outs(%e : tensor<4x6xf32>) {
  ^bb0(%a: f32, %m: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %n = arith.divf %d, %s : f32
    linalg.yield %n : f32
  } -> tensor<4x6xf32>
  return %y : tensor<4x6xf32>
}
