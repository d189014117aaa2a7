// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// MLP: matmul is the root; its fill init is cloned in, bias (broadcast,
// generalized) + relu are fused into one consumer generic in the same
// dispatch; softmax is a root of its own. Weights stay on the host.
// CHECK-LABEL: func.func @mlp_dispatch_0(%arg0: !flow.dispatch.tensor<readonly:tensor<4x8xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<8x16xf32>>, %arg2: !flow.dispatch.tensor<readonly:tensor<16xf32>>, %arg3: !flow.dispatch.tensor<writeonly:tensor<4x16xf32>>)
// CHECK: linalg.fill
// CHECK: linalg.matmul
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK: linalg.yield
// CHECK-NOT: linalg.
// CHECK: "flow.dispatch.tensor.store"
// CHECK-LABEL: func.func @mlp_dispatch_1(
// CHECK: linalg.softmax dimension(1)
// CHECK-LABEL: func.func @mlp(%arg0: tensor<4x8xf32>)
// CHECK-NOT: linalg.
// CHECK: %0 = "flow.dispatch"(%arg0, %cst, %cst_0) {entry_point = @mlp_dispatch_0::@mlp_dispatch_0, workload = array<i64: 4, 16>}
// CHECK: %1 = "flow.dispatch"(%0) {entry_point = @mlp_dispatch_1::@mlp_dispatch_1, workload = array<i64: 4>}
// CHECK: return %1
func.func @mlp(%x: tensor<4x8xf32>) -> tensor<4x16xf32> {
  %w = arith.constant dense<0.5> : tensor<8x16xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0]> : tensor<16xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bb = linalg.broadcast ins(%b : tensor<16xf32>) outs(%e : tensor<4x16xf32>) dimensions = [0]
  %a = arith.addf %m, %bb : tensor<4x16xf32>
  %zs = arith.constant dense<0.0> : tensor<4x16xf32>
  %r = arith.maximumf %a, %zs : tensor<4x16xf32>
  %s = linalg.softmax dimension(1) ins(%r : tensor<4x16xf32>) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %s : tensor<4x16xf32>
}
