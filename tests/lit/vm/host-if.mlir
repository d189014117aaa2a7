// RUN: kiln-opt %s --convert-to-vm | FileCheck %s --check-prefix=CONV
// RUN: kiln-opt %s --convert-to-vm | kiln-opt --allocate-registers | FileCheck %s --check-prefix=REGS
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s --check-prefix=CODE

// Host comparisons and a host scf.if: arith.cmpi becomes the VM's
// comparisons (sgt/sge swap the operands, ule/uge negate ugt/ult with an
// xor), scf.if a vm.if whose blocks yield into its results' registers;
// a buffer made in a branch is released after its move.

func.func @main(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 16>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %a = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %b = arith.constant 7 : index
  %eq = arith.cmpi eq, %a, %b : index
  %ne = arith.cmpi ne, %a, %b : index
  %slt = arith.cmpi slt, %a, %b : index
  %sle = arith.cmpi sle, %a, %b : index
  %sgt = arith.cmpi sgt, %a, %b : index
  %sge = arith.cmpi sge, %a, %b : index
  %ult = arith.cmpi ult, %a, %b : index
  %ule = arith.cmpi ule, %a, %b : index
  %ugt = arith.cmpi ugt, %a, %b : index
  %uge = arith.cmpi uge, %a, %b : index
  // The branch's own instruction has the scf.if's location.
  // CODE: pc [[BR:[0-9a-f]{4}]] -> {{.*}}host-if.mlir:[[@LINE+1]]:8
  %r = scf.if %uge -> (!hal.buffer) {
    %new = "hal.buffer.allocate"() {size = 64 : i64} : () -> !hal.buffer
    scf.yield %new : !hal.buffer
  } else {
    scf.yield %bx : !hal.buffer
  }
  %v = "hal.buffer_view.create"(%r) {offset = 0 : i64, element_type = f32, shape = array<i64: 16>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// CONV: %[[ONE:.*]] = vm.const.i32 1{{$}}
// CONV: %[[A:.*]] = vm.call.import @hal.buffer_view.load
// CONV: %[[B:.*]] = vm.const.i64 7
// CONV-NEXT: vm.eq.i64 %[[A]], %[[B]]
// CONV-NEXT: vm.ne.i64 %[[A]], %[[B]]
// CONV-NEXT: vm.lt.s.i64 %[[A]], %[[B]]
// CONV-NEXT: vm.le.s.i64 %[[A]], %[[B]]
// CONV-NEXT: vm.lt.s.i64 %[[B]], %[[A]]
// CONV-NEXT: vm.le.s.i64 %[[B]], %[[A]]
// CONV-NEXT: vm.lt.u.i64 %[[A]], %[[B]]
// CONV-NEXT: %[[UGT0:.*]] = vm.lt.u.i64 %[[B]], %[[A]]
// CONV-NEXT: vm.xor.i32 %[[UGT0]], %[[ONE]]
// CONV-NEXT: vm.lt.u.i64 %[[B]], %[[A]]
// CONV-NEXT: %[[ULT:.*]] = vm.lt.u.i64 %[[A]], %[[B]]
// CONV-NEXT: %[[UGE:.*]] = vm.xor.i32 %[[ULT]], %[[ONE]]
// CONV-NEXT: %[[R:.*]] = "vm.if"(%[[UGE]]) ({
// CONV: %[[NEW:.*]] = vm.call.import @hal.buffer.allocate
// CONV-NEXT: "vm.yield"(%[[NEW]]) : (!hal.buffer) -> ()
// CONV-NEXT: }, {
// CONV-NEXT: "vm.yield"(%{{.*}}) : (!hal.buffer) -> ()
// CONV-NEXT: }) : (i32) -> !hal.buffer
// CONV: vm.call.import @hal.buffer_view.create(%[[R]]

// REGS: %[[BX:.*]] = vm.call.import @hal.buffer_view.buffer
// REGS: "vm.if"
// REGS: }) {regs = array<i32: [[R:[0-9]+]]>} : (i32) -> !hal.buffer
// REGS-NEXT: vm.clear.ref %[[BX]] : !hal.buffer

// CODE: disassembly:
// CODE: main:
// CODE: [[BR]]  br_if {{.*}} @[[THEN:[0-9a-f]{4}]]
// CODE-NEXT: mov.ref
// CODE-NEXT: br {{ *}}@[[END:[0-9a-f]{4}]]
// CODE-NEXT: [[THEN]]  const.i64
// CODE-NEXT: call.import {{.*}}hal.buffer.allocate
// CODE-NEXT: mov.ref
// CODE-NEXT: clear.ref
// CODE-NEXT: [[END]]  clear.ref
