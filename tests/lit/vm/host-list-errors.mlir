// A hal.list op whose operands do not fit its import's signature fails in
// convert-to-vm naming the operand.
// RUN: not kiln-opt %s --convert-to-vm 2>&1 | FileCheck %s

func.func @main(%a: !hal.buffer_view) -> !hal.buffer_view
    attributes {kiln.signature = (tensor<?xf32>) -> tensor<?xf32>} {
  %l = "hal.list.create"() : () -> !hal.list
  // CHECK: host-list-errors.mlir:[[@LINE+1]]:8: 'hal.list.get' op operand #1 must be an index
  %r = "hal.list.get"(%l, %a) : (!hal.list, !hal.buffer_view) -> !hal.buffer_view
  return %r : !hal.buffer_view
}
