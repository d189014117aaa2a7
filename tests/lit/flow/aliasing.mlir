// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// Results that are arguments, views of arguments, constants or repeated
// values get copy dispatches; reshapes stay on the host as views.
// CHECK-LABEL: func.func @ret_arg(%arg0: tensor<2x3xf32>)
// CHECK: %0 = "flow.tensor.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK: %1 = "flow.dispatch"(%arg0) {entry_point = @ret_arg_dispatch_0::@ret_arg_dispatch_0
// CHECK: %2 = "flow.dispatch"(%0) {entry_point = @ret_arg_dispatch_1::@ret_arg_dispatch_1
// CHECK: return %1, %2
func.func @ret_arg(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>) {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  return %a, %r : tensor<2x3xf32>, tensor<6xf32>
}
// CHECK-LABEL: func.func @ret_const()
// CHECK: %0 = "flow.dispatch"(%cst)
// CHECK: return %0
func.func @ret_const() -> tensor<3xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %c : tensor<3xf32>
}
// CHECK-LABEL: func.func @ret_twice(%arg0: tensor<3xf32>)
// CHECK: %0 = "flow.dispatch"(%arg0)
// CHECK: %1 = "flow.dispatch"(%0)
// CHECK: return %0, %1
func.func @ret_twice(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %x = math.exp %a : tensor<3xf32>
  return %x, %x : tensor<3xf32>, tensor<3xf32>
}
// Reshape chains fold to one view; an expand back to the source shape
// disappears.
// CHECK-LABEL: func.func @views(%arg0: tensor<2x3xf32>)
// CHECK-NOT: flow.tensor.reshape
// CHECK: %0 = "flow.dispatch"(%arg0)
// CHECK: %1 = "flow.tensor.reshape"(%0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: return %1
func.func @views(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %s = tensor.expand_shape %r [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %n = arith.negf %s : tensor<2x3xf32>
  %f = tensor.collapse_shape %n [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %g = tensor.expand_shape %f [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  return %g : tensor<3x2xf32>
}
