// RUN: kiln-opt %s --convert-to-vm | FileCheck %s --check-prefix=CONV
// RUN: kiln-opt %s --convert-to-vm | kiln-opt --allocate-registers | FileCheck %s --check-prefix=REGS
// RUN: kiln-compile %s --substitute-executable=exe0=%s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s --check-prefix=CODE

// A host scf.for (trip count read from input data) carrying a buffer and
// an index: convert-to-vm makes it a vm.for with the body lowered in
// place; allocate-registers gives the step number, the carried values
// (the results' registers) and the compare their own registers, keeps
// the values from outside the loop (%bx, the constant 64) live through it
// and releases %bx after the loop, a buffer made in the body inside it.

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "k", ordinal = 0 : i32, binding_count = 2 : i32,
        readonly_mask = 1 : i32, push_constant_count = 1 : i32} : () -> ()
  }) {sym_name = "x86", target = "llvm-cpu:x86_64"} : () -> ()
}) {sym_name = "exe0"} : () -> ()

func.func @main(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %bx, %m = %c16) -> (!hal.buffer, index) {
    %new = "hal.buffer.allocate"() {size = 64 : i64} : () -> !hal.buffer
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %acc, %new, %m) {executable = @exe0, ordinal = 0 : i32,
        workgroup_count = array<i64: 1, 1, 1>, offsets = array<i64: 0, 0>,
        lengths = array<i64: 64, 64>, constants = array<i64: -9223372036854775808>}
        : (!hal.command_buffer, !hal.buffer, !hal.buffer, index) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    %m1 = arith.subi %m, %c1 : index
    %m2 = arith.minsi %m1, %c64 : index
    scf.yield %new, %m2 : !hal.buffer, index
  }
  %v = "hal.buffer_view.create"(%r#0) {offset = 0 : i64, element_type = f32, shape = array<i64: 16>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// CONV: vm.func @main
// CONV: %[[TRIP:.*]] = vm.call.import @hal.buffer_view.load
// CONV: %[[R:.*]]:2 = "vm.for"(%{{.*}}, %[[TRIP]], %{{.*}}, %{{.*}}, %{{.*}}) ({
// CONV-NEXT: ^bb0(%{{.*}}: i64, %[[ACC:.*]]: !hal.buffer, %[[M:.*]]: i64):
// CONV: %[[NEW:.*]] = vm.call.import @hal.buffer.allocate
// CONV: vm.call.import @hal.command_buffer.dispatch({{.*}}%[[ACC]]
// CONV: %[[M1:.*]] = vm.sub.i64 %[[M]]
// CONV: %[[M2:.*]] = vm.min.s.i64 %[[M1]]
// CONV: "vm.yield"(%[[NEW]], %[[M2]]) : (!hal.buffer, i64) -> ()
// CONV-NEXT: }) : (i64, i64, i64, !hal.buffer, i64) -> (!hal.buffer, i64)
// CONV: vm.call.import @hal.buffer_view.create(%[[R]]#0

// REGS: %[[BX:.*]] = vm.call.import @hal.buffer_view.buffer
// REGS: "vm.for"
// REGS: vm.clear.ref %{{.*}} : !hal.command_buffer
// REGS-NOT: vm.clear.ref %[[BX]]
// REGS: "vm.yield"
// REGS-NEXT: }) {body_regs = array<i32: [[IV:[0-9]+]], [[A:[0-9]+]], [[MR:[0-9]+]]>, cmp_reg = {{[0-9]+}} : i32, regs = array<i32: [[A]], [[MR]]>}
// REGS-NEXT: vm.clear.ref %[[BX]] : !hal.buffer

// The loop in bytecode: moves into the carried registers, a compare and
// br_if to the exit, the body, the moves of the yielded values (the new
// buffer released after its move), the step and a backward br.
// CODE: disassembly:
// CODE: main:
// CODE: mov.ref
// CODE: mov.i64
// CODE: [[HEAD:[0-9a-f]{4}]]  le.s.i64
// CODE-NEXT: br_if {{.*}} @[[EXIT:[0-9a-f]{4}]]
// CODE: call.import {{.*}}hal.command_buffer.dispatch
// CODE: mov.ref
// CODE-NEXT: mov.i64
// CODE-NEXT: clear.ref
// CODE-NEXT: add.i64
// CODE-NEXT: br {{ *}}@[[HEAD]]
// CODE-NEXT: [[EXIT]]  clear.ref
