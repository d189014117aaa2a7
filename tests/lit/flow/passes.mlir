// RUN: kiln-opt %s --convert-elementwise-to-linalg | FileCheck %s --check-prefix=CONV
// RUN: kiln-opt %s --convert-elementwise-to-linalg | kiln-opt --generalize-named-ops | FileCheck %s --check-prefix=GEN
// RUN: kiln-opt %s --convert-elementwise-to-linalg --generalize-named-ops | kiln-opt --fuse-elementwise | FileCheck %s --check-prefix=FUSE
// RUN: kiln-opt %s --convert-elementwise-to-linalg --generalize-named-ops --fuse-elementwise | kiln-opt --reshapes-to-views | FileCheck %s --check-prefix=VIEW
// RUN: kiln-opt %s --convert-elementwise-to-linalg --generalize-named-ops --fuse-elementwise --reshapes-to-views | kiln-opt --copy-aliased-results | FileCheck %s --check-prefix=COPY
// RUN: kiln-opt %s --pass-pipeline=convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,copy-aliased-results | kiln-opt --form-dispatch-regions | FileCheck %s --check-prefix=FORM
// The flow passes one at a time on one function.
//
// convert-elementwise-to-linalg: mulf by a splat constant becomes a
// generic with the constant as a scalar in its body; addf a generic over
// both operands; the transpose stays.
// CONV: linalg.transpose
// CONV: linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%transposed : tensor<3x2xf32>)
// CONV: %[[C:.*]] = arith.constant 2.000000e+00 : f32
// CONV-NEXT: arith.mulf %in, %[[C]] : f32
// CONV: linalg.generic {indexing_maps = [#map, #map, #map], {{.*}} ins(%{{.*}}, %arg1 : tensor<3x2xf32>, tensor<3x2xf32>)
// CONV: arith.addf %in, %in_0 : f32
// CONV: tensor.collapse_shape
//
// generalize-named-ops: the transpose is a generic reading through (d1, d0).
// GEN: #map = affine_map<(d0, d1) -> (d1, d0)>
// GEN-NOT: linalg.transpose
// GEN: linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<2x3xf32>)
// GEN-NEXT: ^bb0(%in: f32, %out: f32):
// GEN-NEXT: linalg.yield %in : f32
//
// fuse-elementwise: one generic reads %arg1 and %arg0 (transposed).
// FUSE-COUNT-1: linalg.generic
// FUSE: ins(%arg1, %arg0 : tensor<3x2xf32>, tensor<2x3xf32>)
// FUSE: arith.mulf %in_0, %{{.*}} : f32
// FUSE-NEXT: arith.addf %{{.*}}, %in : f32
//
// reshapes-to-views: the collapse is a view.
// VIEW: "flow.tensor.reshape"(%{{.*}}) : (tensor<3x2xf32>) -> tensor<6xf32>
// VIEW-NOT: tensor.collapse_shape
//
// copy-aliased-results: the view of an already returned value and the
// returned argument get identity copies.
// COPY: %[[R:.*]] = "flow.tensor.reshape"
// COPY: %[[CV:.*]] = linalg.generic {{.*}} ins(%[[R]] : tensor<6xf32>)
// COPY: %[[CA:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<2x3xf32>)
// COPY: return %{{.*}}, %[[CV]], %[[CA]]
//
// form-dispatch-regions: three regions with their workloads; the view
// stays between them on the host.
// FORM: %[[A:.*]] = "flow.dispatch.region"() ({
// FORM: "flow.return"
// FORM-NEXT: }) {workload = array<i64: 3, 2>} : () -> tensor<3x2xf32>
// FORM-NEXT: "flow.tensor.reshape"(%[[A]])
// FORM: "flow.dispatch.region"() ({
// FORM: }) {workload = array<i64: 6>} : () -> tensor<6xf32>
// FORM: "flow.dispatch.region"() ({
// FORM: }) {workload = array<i64: 2, 3>} : () -> tensor<2x3xf32>
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %two = arith.constant dense<2.0> : tensor<3x2xf32>
  %x = arith.mulf %t, %two : tensor<3x2xf32>
  %y = arith.addf %x, %b : tensor<3x2xf32>
  %c = tensor.collapse_shape %y [[0, 1]] : tensor<3x2xf32> into tensor<6xf32>
  return %y, %c, %a : tensor<3x2xf32>, tensor<6xf32>, tensor<2x3xf32>
}
