// RUN: kiln-opt %s --convert-to-vm | FileCheck %s --check-prefix=CONV
// RUN: kiln-opt %s --convert-to-vm | kiln-opt --allocate-registers | FileCheck %s --check-prefix=REGS
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s --check-prefix=CODE

// A host function calling another (func.call -> vm.call, the VM's CALL
// opcode): refs and scalars in both directions, the callee defined after
// the caller (its ordinal is its place among the module's functions) and
// called from inside a host loop, as a host loop's body planned as a
// function of its own is.

func.func @main(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<16xf32>, tensor<i64>) -> tensor<16xf32>} {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x, %k = %c0) -> (!hal.buffer_view, index) {
    %v, %k2 = func.call @step(%acc, %k) : (!hal.buffer_view, index) -> (!hal.buffer_view, index)
    scf.yield %v, %k2 : !hal.buffer_view, index
  }
  return %r#0 : !hal.buffer_view
}

func.func private @step(%a: !hal.buffer_view, %k: index) -> (!hal.buffer_view, index) {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  %b = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %v = "hal.buffer_view.create"(%b) {offset = 0 : i64, element_type = f32, shape = array<i64: 16>} : (!hal.buffer) -> !hal.buffer_view
  %c1 = arith.constant 1 : index
  %k1 = arith.addi %k, %c1 : index
  return %v, %k1 : !hal.buffer_view, index
}

// CONV: vm.func @main
// CONV: "vm.for"
// CONV: %[[V:.*]]:2 = vm.call @step(%{{.*}}, %{{.*}}) {signature = "rI_rI"} : (!hal.buffer_view, i64) -> (!hal.buffer_view, i64)
// CONV-NEXT: "vm.yield"(%[[V]]#0, %[[V]]#1)
// CONV: vm.func private @step(%{{.*}}: !hal.buffer_view, %{{.*}}: i64) -> (!hal.buffer_view, i64)

// REGS: vm.call @step({{.*}}) {regs = array<i32: {{[0-9]+}}, {{[0-9]+}}>, signature = "rI_rI"}

// CODE: [0] main (exported)
// CODE: [1] step
// CODE: call {{ *}}fn#1<step>, (%r{{[0-9]+}}, %I{{[0-9]+}}), (%r{{[0-9]+}}, %I{{[0-9]+}})
