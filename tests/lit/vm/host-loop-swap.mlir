// RUN: not kiln-compile %s -o %t.kiln 2>&1 | FileCheck %s
// A host loop whose step exchanges two carried values would need a
// scratch register for the moves: refused at the yield, by location.

func.func @main(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%a = %c0, %b = %c1) -> (index, index) {
    // CHECK: host-loop-swap.mlir:[[@LINE+1]]:5: 'vm.yield' op exchanges carried values between steps (value 1 becomes 0): not supported
    scf.yield %b, %a : index, index
  }
  %v = "hal.buffer_view.create"(%bx) {offset = 0 : i64, element_type = f32, shape = array<i64: 16>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
