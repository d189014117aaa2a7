// RUN: kiln-opt %s --tensorize-scalars | FileCheck %s --check-prefix=SIG
// RUN: kiln-opt %s --pass-pipeline=tensorize-scalars,convert-elementwise-to-linalg,form-dispatch-regions | FileCheck %s --check-prefix=FORM
// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s --check-prefix=FLOW
//
// tensorize-scalars: scalar arguments become rank-0 tensors read once at
// the entry (in argument order; index as tensor<i64> plus index_cast),
// scalar results are returned through tensor.from_elements.
// SIG-LABEL: func.func @scale(%arg0: tensor<5xf32>, %arg1: tensor<f32>, %arg2: tensor<i64>) -> (tensor<5xf32>, tensor<f32>, tensor<i64>)
// SIG-NEXT: %[[S:.*]] = tensor.extract %arg1[] : tensor<f32>
// SIG-NEXT: %[[I64:.*]] = tensor.extract %arg2[] : tensor<i64>
// SIG-NEXT: %[[I:.*]] = arith.index_cast %[[I64]] : i64 to index
// SIG: arith.mulf %in, %[[S]] : f32
// SIG: %[[X:.*]] = tensor.extract %arg0[%[[I]]] : tensor<5xf32>
// SIG: %[[Y:.*]] = arith.addf %[[X]], %[[S]] : f32
// SIG: %[[RY:.*]] = tensor.from_elements %[[Y]] : tensor<f32>
// SIG: %[[RI64:.*]] = arith.index_cast %[[I]] : index to i64
// SIG: %[[RI:.*]] = tensor.from_elements %[[RI64]] : tensor<i64>
// SIG: return %{{.*}}, %[[RY]], %[[RI]] : tensor<5xf32>, tensor<f32>, tensor<i64>
// A function without scalars is left alone.
// SIG-LABEL: func.func @tensors_only(%arg0: tensor<5xf32>) -> tensor<5xf32>
// SIG-NOT: tensor.extract
// SIG: return %arg0
//
// form-dispatch-regions: the host scf.for summing scalars is a root of
// its own (it cannot be recomputed in every kernel); its scalar leaves the
// region as a rank-0 tensor and the host reads it back with an extract,
// which the generic's dispatch then clones.
// FORM-LABEL: func.func @loop_sum(
// FORM: %[[R:.*]] = "flow.dispatch.region"() ({
// FORM: %[[SUM:.*]] = scf.for
// FORM: %[[T:.*]] = tensor.from_elements %[[SUM]] : tensor<f32>
// FORM: "flow.return"(%[[T]]) : (tensor<f32>) -> ()
// FORM: }) {workload = array<i64: 1>} : () -> tensor<f32>
// FORM: %[[V:.*]] = tensor.extract %[[R]][] : tensor<f32>
// FORM: "flow.dispatch.region"() ({
// FORM: linalg.generic
// FORM: arith.addf %in, %[[V]] : f32
//
// After the whole flow stage: kernels read scalars from rank-0 bindings,
// write scalar results into rank-0 bindings, and the host only dispatches
// and checks the index argument a kernel reads %a at (resolve-dims: the
// host reads it from its rank-0 tensor, before any dispatch runs).
// FLOW-LABEL: func.func @scale_dispatch_0(
// FLOW-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<5xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<f32>>
// FLOW: tensor.extract %{{.*}}[] : tensor<f32>
// FLOW-LABEL: func.func @scale_dispatch_1(
// FLOW-SAME: !flow.dispatch.tensor<readonly:tensor<i64>>
// FLOW-SAME: !flow.dispatch.tensor<writeonly:tensor<f32>>
// FLOW: tensor.from_elements
// FLOW-LABEL: func.func @scale(%arg0: tensor<5xf32>, %arg1: tensor<f32>, %arg2: tensor<i64>)
// FLOW-NEXT: %[[I64:.*]] = tensor.extract %arg2[] : tensor<i64>
// FLOW-NEXT: %[[I:.*]] = arith.index_cast %[[I64]] : i64 to index
// FLOW-NEXT: "flow.dispatch"
// FLOW-NEXT: %[[C4:.*]] = arith.constant 4 : index
// FLOW-NEXT: %[[C0:.*]] = arith.constant 0 : index
// FLOW-NEXT: "flow.check.range"(%[[I]], %[[C0]], %[[C4]]) {dim = 0 : i64, what = "index"}
// FLOW-NOT: tensor.extract
// FLOW: return
// FLOW-LABEL: func.func @loop_sum_dispatch_0(
// FLOW-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<6xf32>>, %arg1: !flow.dispatch.tensor<writeonly:tensor<f32>>
// FLOW-LABEL: func.func @loop_sum_dispatch_1(
// FLOW-SAME: %arg0: !flow.dispatch.tensor<readonly:tensor<6xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<f32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<6xf32>>
// FLOW-LABEL: func.func @loop_sum(%arg0: tensor<6xf32>) -> tensor<6xf32>
// FLOW-NEXT: %[[S:.*]] = "flow.dispatch"(%arg0) {{.*}} -> tensor<f32>
// FLOW-NEXT: %[[O:.*]] = "flow.dispatch"(%arg0, %[[S]]) {{.*}} -> tensor<6xf32>
// FLOW-NEXT: return %[[O]]
#map = affine_map<(d0) -> (d0)>
func.func @scale(%a: tensor<5xf32>, %s: f32, %i: index) -> (tensor<5xf32>, f32, index) {
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<5xf32>) outs(%e : tensor<5xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<5xf32>
  %x = tensor.extract %a[%i] : tensor<5xf32>
  %y = arith.addf %x, %s : f32
  return %r, %y, %i : tensor<5xf32>, f32, index
}
func.func @tensors_only(%a: tensor<5xf32>) -> tensor<5xf32> {
  return %a : tensor<5xf32>
}
func.func @loop_sum(%a: tensor<6xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %zero = arith.constant 0.0 : f32
  %sum = scf.for %k = %c0 to %c6 step %c1 iter_args(%acc = %zero) -> (f32) {
    %x = tensor.extract %a[%k] : tensor<6xf32>
    %y = arith.addf %acc, %x : f32
    scf.yield %y : f32
  }
  %e = tensor.empty() : tensor<6xf32>
  %o = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%a : tensor<6xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: f32, %u: f32):
    %y = arith.addf %x, %sum : f32
    linalg.yield %y : f32
  } -> tensor<6xf32>
  return %o : tensor<6xf32>
}
