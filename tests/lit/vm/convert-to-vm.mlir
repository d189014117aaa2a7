// RUN: kiln-compile %s --substitute-executable=exe0=%s --compile-to=vm -o - \
// RUN:   --print-ir-after=convert-to-vm 2>%t.before | FileCheck %s --check-prefix=REGS
// RUN: FileCheck %s --check-prefix=CONV < %t.before
// Each pass alone:
// RUN: kiln-opt %s --convert-to-vm --print-ir-after=convert-to-vm 2>&1 >/dev/null | FileCheck %s --check-prefix=CONV
// RUN: kiln-opt %s --convert-to-vm | kiln-opt --allocate-registers | FileCheck %s --check-prefix=REGS

// The host function of an elementwise op with a weight from rodata, and a
// private helper doing shape arithmetic on index (i64 slot pairs).

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "k", ordinal = 0 : i32, binding_count = 3 : i32,
        readonly_mask = 3 : i32, push_constant_count = 1 : i32} : () -> ()
  }) {sym_name = "x86", target = "llvm-cpu:x86_64"} : () -> ()
}) {sym_name = "exe0"} : () -> ()

func.func @main(%a: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 2, 8>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %w = "hal.buffer.rodata"() {index = 0 : i32} : () -> !hal.buffer
  %out = "hal.buffer.allocate"() {size = 64 : i64} : () -> !hal.buffer
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %ba, %w, %out) {executable = @exe0, ordinal = 0 : i32,
      workgroup_count = array<i64: 2, 1, 1>, offsets = array<i64: 0, 0, 0>,
      lengths = array<i64: 64, 64, 64>, constants = array<i32: 16>}
      : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  "hal.command_buffer.barrier"(%cb) : (!hal.command_buffer) -> ()
  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %v = "hal.buffer_view.create"(%out) {offset = 0 : i64, element_type = f32, shape = array<i64: 2, 8>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

func.func private @groups(%n: index, %k: i32) -> (index, i32) {
  %c64 = arith.constant 64 : index
  %g = arith.ceildivsi %n, %c64 : index
  %k64 = arith.index_cast %k : i32 to index
  %s = arith.addi %g, %k64 : index
  %t = arith.index_cast %s : index to i32
  return %s, %t : index, i32
}

// After convert-to-vm: imports by full name and runtime signature, one
// constant per distinct value, no registers yet.
// CONV-LABEL: IR Dump After convert-to-vm
// CONV: vm.func @main(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<2x8xf32>) -> tensor<2x8xf32>}
// CONV: %[[IN:.*]] = vm.const.i32 0{{$}}
// CONV: %[[F32:.*]] = vm.const.i32 12{{$}}
// CONV: %[[D0:.*]] = vm.const.i64 2{{$}}
// CONV: %[[D1:.*]] = vm.const.i64 8{{$}}
// CONV: vm.call.import @hal.buffer_view.assert(%arg0, %[[IN]], %[[F32]], %[[D0]], %[[D1]]) {signature = "riiCID_", spans = array<i32: 2>} : (!hal.buffer_view, i32, i32, i64, i64) -> ()
// CONV: vm.call.import @hal.buffer_view.buffer(%arg0) {signature = "r_r"}
// CONV: vm.call.import @hal.buffer.rodata(%[[IN]]) {signature = "i_r"}
// CONV: %[[BYTES:.*]] = vm.const.i64 64{{$}}
// CONV: vm.call.import @hal.buffer.allocate(%[[BYTES]]) {signature = "I_r"}
// CONV: vm.call.import @hal.command_buffer.create() {signature = "_r"}
// CONV: vm.call.import @hal.command_buffer.dispatch({{.*}}) {signature = "riiiiiCiDCrIID_", spans = array<i32: 1, 3>}
// CONV-SAME: : (!hal.command_buffer, i32, i32, i32, i32, i32, i32, !hal.buffer, i64, i64, !hal.buffer, i64, i64, !hal.buffer, i64, i64) -> ()
// CONV: vm.call.import @hal.command_buffer.barrier(
// CONV: vm.call.import @hal.command_buffer.execute(
// CONV: vm.call.import @hal.device.wait() {signature = "_"}
// CONV: vm.call.import @hal.buffer_view.create({{.*}}) {signature = "rIiCID_r", spans = array<i32: 2>}
// CONV: vm.ret
// CONV-NOT: vm.clear.ref

// After allocate-registers: args in bank order, 64-bit values on slot
// pairs, refs released right after their last use, none before.
// REGS: vm.func @main(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {arg_regs = array<i32: 0>,
// REGS-SAME: ref_count = 4 : i32, scalar_count = {{[0-9]+}} : i32
// REGS: vm.const.i32 0 {regs = array<i32: 0>}
// REGS: vm.const.i32 12 {regs = array<i32: 1>}
// REGS: vm.const.i64 2 {regs = array<i32: 2>}
// REGS: vm.const.i64 8 {regs = array<i32: 4>}
// REGS: vm.call.import @hal.buffer_view.assert
// REGS: vm.call.import @hal.buffer_view.buffer(%arg0) {regs = array<i32: 1>
// REGS-NEXT: vm.clear.ref %arg0 : !hal.buffer_view
// REGS: vm.call.import @hal.command_buffer.dispatch
// REGS-NEXT: vm.clear.ref
// REGS-NEXT: vm.clear.ref
// REGS-NEXT: vm.call.import @hal.command_buffer.barrier
// REGS-NEXT: vm.call.import @hal.command_buffer.execute
// REGS-NEXT: vm.clear.ref
// REGS-NEXT: vm.call.import @hal.device.wait
// REGS-NEXT: vm.call.import @hal.buffer_view.create
// REGS-NEXT: vm.clear.ref
// REGS-NEXT: vm.ret

// Scalars: i32 in one slot, index as i64 in two; arguments fill the bank
// in order (n: slots 0-1, k: slot 2).
// CONV-LABEL: vm.func private @groups(%arg0: i64, %arg1: i32) -> (i64, i32) attributes {kiln.signature = (index, i32) -> (index, i32)}
// CONV: %[[C64:.*]] = vm.const.i64 64{{$}}
// CONV: %[[G:.*]] = vm.ceildiv.i64 %arg0, %[[C64]]{{$}}
// CONV: %[[K:.*]] = vm.ext.s.i32.i64 %arg1{{$}}
// CONV: %[[S:.*]] = vm.add.i64 %[[G]], %[[K]]{{$}}
// CONV: %[[T:.*]] = vm.trunc.i64.i32 %[[S]]{{$}}
// CONV: vm.ret %[[S]], %[[T]] : i64, i32
// REGS-LABEL: vm.func private @groups(%arg0: i64, %arg1: i32) -> (i64, i32) attributes {arg_regs = array<i32: 0, 2>
// REGS-SAME: ref_count = 0 : i32, scalar_count = 7 : i32
// REGS: vm.const.i64 64 {regs = array<i32: 3>}
// REGS: vm.ceildiv.i64 %arg0, %{{.*}} {regs = array<i32: 5>}
// REGS: vm.ext.s.i32.i64 %arg1 {regs = array<i32: 0>}
// REGS: vm.add.i64 %{{.*}}, %{{.*}} {regs = array<i32: 2>}
// REGS: vm.trunc.i64.i32 %{{.*}} {regs = array<i32: 0>}
