// Round trip of tensor.bitcast (ONNX's unsigned inputs cross the function
// boundary this way): integer signedness and int<->float of one width.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @bitcast(%arg0: tensor<2x3xui8>, %arg1: tensor<4xf32>) -> (tensor<2x3xi8>, tensor<4xi32>) {
// CHECK-NEXT: %0 = tensor.bitcast %arg0 : tensor<2x3xui8> to tensor<2x3xi8>
// CHECK-NEXT: %1 = tensor.bitcast %arg1 : tensor<4xf32> to tensor<4xi32>
// CHECK-NEXT: return %0, %1 : tensor<2x3xi8>, tensor<4xi32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @bitcast(%arg0: tensor<2x3xui8>, %arg1: tensor<4xf32>) -> (tensor<2x3xi8>, tensor<4xi32>) {
  %0 = tensor.bitcast %arg0 : tensor<2x3xui8> to tensor<2x3xi8>
  %1 = tensor.bitcast %arg1 : tensor<4xf32> to tensor<4xi32>
  return %0, %1 : tensor<2x3xi8>, tensor<4xi32>
}
