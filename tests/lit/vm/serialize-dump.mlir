// RUN: kiln-compile %s --substitute-executable=mul_dispatch:x86=%s \
// RUN:   --target=llvm-cpu:x86_64+avx2 -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s
// Deterministic: the same input and flags give the same bytes.
// RUN: kiln-compile %s --substitute-executable=mul_dispatch:x86=%s \
// RUN:   --target=llvm-cpu:x86_64+avx2 -o %t.again.kiln
// RUN: cmp %t.kiln %t.again.kiln

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "mul", ordinal = 0 : i32, binding_count = 3 : i32,
        readonly_mask = 3 : i32, push_constant_count = 1 : i32,
        workgroup_size = array<i64: 64, 1, 1>} : () -> ()
  }) {sym_name = "x86", target = "llvm-cpu:x86_64+avx2"} : () -> ()
}) {sym_name = "mul_dispatch"} : () -> ()

func.func @mul(%a: !hal.buffer_view, %b: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 3, 5>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%b) {input = 1 : i32, element_type = f32, shape = array<i64: 3, 5>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %bb = "hal.buffer_view.buffer"(%b) : (!hal.buffer_view) -> !hal.buffer
  %out = "hal.buffer.allocate"() {size = 60 : i64} : () -> !hal.buffer
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %ba, %bb, %out) {executable = @mul_dispatch, ordinal = 0 : i32,
      workgroup_count = array<i64: 1, 1, 1>, offsets = array<i64: 0, 0, 0>,
      lengths = array<i64: 60, 60, 60>, constants = array<i32: 15>}
      : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %v = "hal.buffer_view.create"(%out) {offset = 0 : i64, element_type = f32, shape = array<i64: 3, 5>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// CHECK: producer: kiln-compile 0.1
// CHECK-NEXT: source-revision:
// CHECK-NEXT: input: serialize-dump.mlir
// CHECK-NEXT: input-sha256: {{[0-9a-f]{64}$}}
// CHECK-NEXT: flag: --target=llvm-cpu:x86_64+avx2
// CHECK: functions (1):
// CHECK-NEXT: [0] mul (exported): (tensor<3x5xf32>, tensor<3x5xf32>) -> (tensor<3x5xf32>)
// CHECK-NEXT: vm signature "rr_r", bytecode 0+{{[0-9]+}}, registers: {{[0-9]+}} i32, 4 ref
// CHECK-NEXT: serialize-dump.mlir:18:3
// CHECK: imports (8):
// CHECK-NEXT: [0] hal.buffer_view.assert "riiCID_"
// CHECK-NEXT: [1] hal.buffer_view.buffer "r_r"
// CHECK-NEXT: [2] hal.buffer.allocate "I_r"
// CHECK-NEXT: [3] hal.command_buffer.create "_r"
// CHECK-NEXT: [4] hal.command_buffer.dispatch "riiiiiCiDCrIID_"
// CHECK-NEXT: [5] hal.command_buffer.execute "r_"
// CHECK-NEXT: [6] hal.device.wait "_"
// CHECK-NEXT: [7] hal.buffer_view.create "rIiCID_r"
// CHECK: executables (1):
// CHECK-NEXT: [0] mul_dispatch
// CHECK-NEXT: exports (1):
// CHECK-NEXT: [0] mul: workgroup 64x1x1, push constants 1, bindings 3 (ro ro rw)
// CHECK-NEXT: variants (1):
// CHECK-NEXT: [0] x86: llvm-cpu:x86_64, ELF, features +avx2,
// CHECK: disassembly:
// CHECK-NEXT: mul:
// CHECK: const.i32 %i0, 0
// CHECK: const.i32 %i1, 12
// CHECK: const.i64 %I2, 3
// CHECK: const.i64 %I4, 5
// CHECK: call.import import#0<hal.buffer_view.assert>, (%r0, %i0, %i1, [2: %I2 %I4]), ()
// CHECK: call.import import#1<hal.buffer_view.buffer>, (%r0), (%r{{[0-9]+}})
// CHECK-NEXT: clear.ref %r0
// CHECK: call.import import#4<hal.command_buffer.dispatch>, (%r{{[0-9]+}}, %i0, %i0, %i{{[0-9]+}}, %i{{[0-9]+}}, %i{{[0-9]+}}, [1: %i{{[0-9]+}}], [3: %r{{[0-9]+}} %I{{[0-9]+}} %I{{[0-9]+}} %r{{[0-9]+}} %I{{[0-9]+}} %I{{[0-9]+}} %r{{[0-9]+}} %I{{[0-9]+}} %I{{[0-9]+}}]), ()
// CHECK: call.import import#7<hal.buffer_view.create>
// CHECK-NEXT: clear.ref
// CHECK-NEXT: ret (%r{{[0-9]+}})
