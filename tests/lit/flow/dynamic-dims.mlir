// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow --print-ir-after=convert-elementwise-to-linalg -o /dev/null 2>&1 \
// RUN:   | kiln-opt --resolve-dims | FileCheck %s --check-prefix=RESOLVE
// Dynamic dims through flow: host dims are tensor.dim of arguments (one per
// argument and dimension); loops that two operand dims bound get a
// flow.check.dim_eq (the first operand is the reference); each kernel
// takes the dims it needs as trailing index arguments (push constants),
// its loads and stores name them; the dispatch carries the workload's and
// the results' dims; a dynamic collapse_shape is a view whose size the
// host computes.

// CHECK-LABEL: func.func @ew_dispatch_0(
// CHECK-SAME: %[[A:.*]]: !flow.dispatch.tensor<readonly:tensor<?x4xf32>>, %[[B:.*]]: !flow.dispatch.tensor<readonly:tensor<?x4xf32>>, %[[R:.*]]: !flow.dispatch.tensor<writeonly:tensor<?x4xf32>>, %[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK: "flow.dispatch.tensor.load"(%[[A]], %[[D0]])
// CHECK: "flow.dispatch.tensor.load"(%[[B]], %[[D1]])
// CHECK: tensor.empty(%[[D0]]) : tensor<?x4xf32>
// CHECK: "flow.dispatch.tensor.store"(%{{.*}}, %[[R]], %[[D0]])
// CHECK-LABEL: func.func @ew(
// CHECK: %[[N1:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x4xf32>
// CHECK: %[[N0:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: "flow.check.dim_eq"(%[[N1]], %[[N0]]) : (index, index) -> ()
// CHECK: "flow.dispatch"(%arg0, %arg1, %[[N0]], %[[N1]]) {entry_point = @ew_dispatch_0::@ew_dispatch_0, result_dims = array<i64: 0>, workload = array<i64: -9223372036854775808, 4>, workload_dims = array<i64: 0>}
// resolve-dims alone, on the IR it first gets in the flow stage (after
// convert-elementwise-to-linalg, before fusion): the dims of both operands,
// checked equal before the elementwise op that two of them bound.
// RESOLVE-LABEL: func.func @ew(
// RESOLVE: %[[RB:.*]] = tensor.dim %arg1
// RESOLVE: %[[RA:.*]] = tensor.dim %arg0
// RESOLVE: "flow.check.dim_eq"(%[[RB]], %[[RA]]) : (index, index) -> ()
// RESOLVE-NEXT: linalg.generic
func.func @ew(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %m = arith.mulf %a, %b : tensor<?x4xf32>
  %s = math.exp %m : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}

// CHECK-LABEL: func.func @mm(
// CHECK: %[[K1:.*]] = tensor.dim %arg1, %{{.*}} : tensor<?x8xf32>
// CHECK: %[[K0:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK: %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK: "flow.check.dim_eq"(%[[K1]], %[[K0]])
// CHECK: %[[C:.*]] = "flow.dispatch"(%arg0, %arg1, %[[M]], %[[K0]], %[[K1]]) {{{.*}}result_dims = array<i64: 0>{{.*}}} : (tensor<?x?xf32>, tensor<?x8xf32>, index, index, index) -> tensor<?x8xf32>
// CHECK: %[[MN:.*]] = arith.muli %[[M]], %{{.*}} : index
// CHECK: "flow.tensor.reshape"(%[[C]], %[[MN]]) : (tensor<?x8xf32>, index) -> tensor<?xf32>
func.func @mm(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x8xf32>) -> tensor<?x8xf32>
  %c = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x8xf32>) outs(%z : tensor<?x8xf32>) -> tensor<?x8xf32>
  %col = tensor.collapse_shape %c [[0, 1]] : tensor<?x8xf32> into tensor<?xf32>
  %r = math.tanh %col : tensor<?xf32>
  return %r : tensor<?xf32>
}

// A tensor.dim of a computed tensor (here of the matmul's collapsed result,
// sizing its reader's tensor.empty) is resolved to the argument dim before
// fusion, so it is no second use: the collapse sinks below the tanh and the
// tanh joins the matmul's dispatch (one dispatch, two without the early
// resolve-dims).
// CHECK-LABEL: func.func @sink(
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x8xf32>
// CHECK: "flow.dispatch"(%{{.*}}, %arg1, %[[N]])
// CHECK-NOT: "flow.dispatch"(
// CHECK: return
func.func @sink(%a: tensor<?x8xf32>, %w: tensor<8x4xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %n = tensor.dim %a, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x1x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x1x4xf32>) -> tensor<?x1x4xf32>
  %a3 = tensor.expand_shape %a [[0, 1], [2]] output_shape [%n, 1, 8] : tensor<?x8xf32> into tensor<?x1x8xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%a3, %w : tensor<?x1x8xf32>, tensor<8x4xf32>) outs(%z : tensor<?x1x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x1x4xf32>
  %c = tensor.collapse_shape %mm [[0, 1], [2]] : tensor<?x1x4xf32> into tensor<?x4xf32>
  %d = tensor.dim %c, %c0 : tensor<?x4xf32>
  %o = tensor.empty(%d) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<?x4xf32>) outs(%o : tensor<?x4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %t = math.tanh %x : f32
    linalg.yield %t : f32
  } -> tensor<?x4xf32>
  %f = tensor.collapse_shape %r [[0, 1]] : tensor<?x4xf32> into tensor<?xf32>
  return %f : tensor<?xf32>
}

// A run-time split of a matmul's rows ([L*B, 4] viewed as [L, B, 4], the
// ONNX importer's Linear over a sequence batch) sinks below a bias add
// that reads nothing along L and B: one dispatch, the view after it. A
// residual add reads along L and B (their index is r / B, r % B, not
// affine): it stays a dispatch of its own.
// CHECK-LABEL: func.func @split_dispatch_0(
// CHECK: linalg.matmul
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-LABEL: func.func @split(
// CHECK: %[[L:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?x8xf32>
// CHECK: %[[B:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?x8xf32>
// CHECK: %[[R:.*]] = "flow.dispatch"(
// CHECK-NEXT: %[[V:.*]] = "flow.tensor.reshape"(%[[R]], %[[L]], %[[B]]) : (tensor<?x4xf32>, index, index) -> tensor<?x?x4xf32>
// CHECK-NEXT: return %[[V]]
// CHECK-LABEL: func.func @split_residual(
// CHECK: "flow.dispatch"(
// CHECK: "flow.dispatch"(
func.func @split(%a: tensor<?x?x8xf32>, %w: tensor<8x4xf32>, %bias: tensor<4xf32>) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %l = tensor.dim %a, %c0 : tensor<?x?x8xf32>
  %b = tensor.dim %a, %c1 : tensor<?x?x8xf32>
  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %rows = tensor.dim %a2, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mm = linalg.matmul ins(%a2, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%z : tensor<?x4xf32>) -> tensor<?x4xf32>
  %x = tensor.expand_shape %mm [[0, 1], [2]] output_shape [%l, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  %o = tensor.empty(%l, %b) : tensor<?x?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %bias : tensor<?x?x4xf32>, tensor<4xf32>) outs(%o : tensor<?x?x4xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}
func.func @split_residual(%a: tensor<?x?x8xf32>, %w: tensor<8x4xf32>, %res: tensor<?x?x4xf32>) -> tensor<?x?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %l = tensor.dim %a, %c0 : tensor<?x?x8xf32>
  %b = tensor.dim %a, %c1 : tensor<?x?x8xf32>
  %a2 = tensor.collapse_shape %a [[0, 1], [2]] : tensor<?x?x8xf32> into tensor<?x8xf32>
  %rows = tensor.dim %a2, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%rows) : tensor<?x4xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x4xf32>) -> tensor<?x4xf32>
  %mm = linalg.matmul ins(%a2, %w : tensor<?x8xf32>, tensor<8x4xf32>) outs(%z : tensor<?x4xf32>) -> tensor<?x4xf32>
  %x = tensor.expand_shape %mm [[0, 1], [2]] output_shape [%l, %b, 4] : tensor<?x4xf32> into tensor<?x?x4xf32>
  %o = tensor.empty(%l, %b) : tensor<?x?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %res : tensor<?x?x4xf32>, tensor<?x?x4xf32>) outs(%o : tensor<?x?x4xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x?x4xf32>
  return %r : tensor<?x?x4xf32>
}
