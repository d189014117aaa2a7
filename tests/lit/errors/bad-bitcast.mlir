// tensor.bitcast between element types of different bit widths is refused
// where it is written (mlir-opt-19 gives the same message).
// RUN: kiln-opt --verify-diagnostics %s
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: bad-bitcast.mlir:[[@LINE+3]]:8: error: 'tensor.bitcast' op operand type 'tensor<3xui8>' and result type 'tensor<3xi16>' are cast incompatible
func.func @bad(%arg0: tensor<3xui8>) -> tensor<3xi16> {
  // expected-error @+1 {{operand type 'tensor<3xui8>' and result type 'tensor<3xi16>' are cast incompatible}}
  %0 = tensor.bitcast %arg0 : tensor<3xui8> to tensor<3xi16>
  return %0 : tensor<3xi16>
}
