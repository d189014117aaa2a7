// A call of a function without a body (an external declaration) has no
// VM lowering: refused at the call, naming the callee.
// RUN: not kiln-opt %s --convert-to-vm 2>&1 | FileCheck %s

func.func private @ext(%a: !hal.buffer_view) -> !hal.buffer_view

func.func @main(%x: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<4xf32>) -> tensor<4xf32>} {
  // CHECK: call-error.mlir:[[@LINE+1]]:8: error: 'func.call' op calls 'ext', which is not a host function of the module
  %v = func.call @ext(%x) : (!hal.buffer_view) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
