// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s --check-prefix=AFTER
// RUN: kiln-opt %s --pass-pipeline=inline-calls,tensorize-scalars,convert-elementwise-to-linalg,generalize-named-ops,fuse-elementwise,reshapes-to-views,sink-reshapes,copy-aliased-results,resolve-dims,form-dispatch-regions,outline-dispatches -o %t.mlir
// RUN: FileCheck %s --check-prefix=BEFORE < %t.mlir
// RUN: kiln-opt %t.mlir --deduplicate-executables | FileCheck %s
// deduplicate-executables: executables equal up to their names become the
// first of them; every dispatch keeps its own operands and workload.
//
// Before: one executable per dispatch.
// BEFORE-COUNT-7: "flow.executable"
//
// Layers 1 and 2 (matmul + relu, other weights) share layers_dispatch_0;
// layer 3 differs only in a constant of its body and stays its own. x - y
// and y - x are the same kernel over swapped operands; (x - y) * x and
// (x - y) * y wire the same ops differently and stay apart.
// AFTER-COUNT-5: "flow.executable"
// AFTER-NOT: "flow.executable"
// CHECK: sym_name = "layers_dispatch_0"
// CHECK: arith.constant 5.000000e-01 : f32
// CHECK: sym_name = "layers_dispatch_2"
// CHECK: sym_name = "layers_dispatch_3"
// CHECK: sym_name = "layers_dispatch_5"
// CHECK: sym_name = "layers_dispatch_6"
// CHECK: "flow.dispatch"(%arg0, %arg1) {entry_point = @layers_dispatch_0::@layers_dispatch_0
// CHECK-NEXT: "flow.dispatch"(%0, %arg2) {entry_point = @layers_dispatch_0::@layers_dispatch_0
// CHECK-NEXT: "flow.dispatch"(%1, %arg1) {entry_point = @layers_dispatch_2::@layers_dispatch_2
// CHECK-NEXT: "flow.dispatch"(%arg0, %arg3) {entry_point = @layers_dispatch_3::@layers_dispatch_3
// CHECK-NEXT: "flow.dispatch"(%arg3, %arg0) {entry_point = @layers_dispatch_3::@layers_dispatch_3
// CHECK-NEXT: "flow.dispatch"(%arg0, %arg3) {entry_point = @layers_dispatch_5::@layers_dispatch_5
// CHECK-NEXT: "flow.dispatch"(%arg3, %arg0) {entry_point = @layers_dispatch_6::@layers_dispatch_6
// A second function reuses the first one's kernel.
// CHECK-LABEL: func.func @again
// CHECK: "flow.dispatch"(%arg0, %arg1) {entry_point = @layers_dispatch_3::@layers_dispatch_3
func.func @layers(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>, %y: tensor<4x8xf32>)
    -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %c0 = arith.constant dense<0.0> : tensor<4x8xf32>
  %c1 = arith.constant dense<0.5> : tensor<4x8xf32>
  %m1 = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r1 = arith.maximumf %m1, %c0 : tensor<4x8xf32>
  %m2 = linalg.matmul ins(%r1, %w2 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r2 = arith.maximumf %m2, %c0 : tensor<4x8xf32>
  %m3 = linalg.matmul ins(%r2, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r3 = arith.maximumf %m3, %c1 : tensor<4x8xf32>
  %s1 = arith.subf %x, %y : tensor<4x8xf32>
  %s2 = arith.subf %y, %x : tensor<4x8xf32>
  %d1 = arith.subf %x, %y : tensor<4x8xf32>
  %p1 = arith.mulf %d1, %x : tensor<4x8xf32>
  %d2 = arith.subf %x, %y : tensor<4x8xf32>
  %p2 = arith.mulf %d2, %y : tensor<4x8xf32>
  return %r3, %s1, %s2, %p1, %p2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

func.func @again(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %s = arith.subf %x, %y : tensor<4x8xf32>
  return %s : tensor<4x8xf32>
}
