// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow | kiln-opt - | FileCheck %s
// outline-dispatches alone, on what the passes before it leave:
// RUN: kiln-opt %s --pass-pipeline=flow --print-ir-after=form-dispatch-regions -o /dev/null 2>&1 \
// RUN:   | kiln-opt --outline-dispatches | FileCheck %s
// simple_mul: one elementwise dispatch, both operands passed, one result.
// CHECK: "flow.executable"() ({
// CHECK: func.func @simple_mul_dispatch_0(%arg0: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<4xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<4xf32>>)
// CHECK: "flow.dispatch.tensor.load"(%arg0)
// CHECK: "flow.dispatch.tensor.load"(%arg1)
// CHECK: linalg.generic
// CHECK: arith.mulf %in, %in_0 : f32
// CHECK: "flow.dispatch.tensor.store"(%{{.*}}, %arg2)
// CHECK: }) {sym_name = "simple_mul_dispatch_0", sym_visibility = "private"}
// CHECK: func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>)
// CHECK-NEXT: %0 = "flow.dispatch"(%arg0, %arg1) {entry_point = @simple_mul_dispatch_0::@simple_mul_dispatch_0, workload = array<i64: 4>}
// CHECK-NEXT: return %0

func.func @simple_mul(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %arg0, %arg1 : tensor<4xf32>
  return %0 : tensor<4xf32>
}
