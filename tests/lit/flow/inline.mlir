// RUN: kiln-opt %s --inline-calls | FileCheck %s
// RUN: not kiln-opt %s --pass-pipeline=flow --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR
// inline-calls: calls to functions of the module are replaced by their
// bodies (also inside linalg bodies), transitively; private callees left
// without callers disappear, public ones stay.
// CHECK-LABEL: func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NOT: call
// CHECK: math.exp %arg0 : tensor<4xf32>
// CHECK: arith.addf
// CHECK: linalg.map
// CHECK-NEXT: (%[[IN:.*]]: f32) {
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[IN]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[D]] : f32
// CHECK: return
// CHECK-NOT: @twice
// CHECK-NOT: @square
// CHECK: func.func @act(
// ERR: pass 'outline-dispatches' failed: {{.*}}inline.mlir:{{[0-9]+}}:8: 'func.call' op cannot stay in host function @uses_ext after the flow stage
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = call @act(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %m = linalg.map ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>)
    (%v: f32) {
      %w = func.call @square(%v) : (f32) -> f32
      linalg.yield %w : f32
    }
  return %m : tensor<4xf32>
}
func.func @act(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = math.exp %x : tensor<4xf32>
  %t = call @twice(%e) : (tensor<4xf32>) -> tensor<4xf32>
  return %t : tensor<4xf32>
}
func.func private @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %x, %x : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @square(%v: f32) -> f32 {
  %r = arith.mulf %v, %v : f32
  return %r : f32
}
// -----
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
func.func @uses_ext(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = call @ext(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
