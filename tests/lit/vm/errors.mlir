// Host code the vm stage cannot lower fails with a located message.
// RUN: not kiln-compile %s --substitute-executable=e=%s --compile-to=vm -o - 2>&1 | FileCheck %s

"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "k", ordinal = 0 : i32, binding_count = 1 : i32,
        readonly_mask = 0 : i32, push_constant_count = 0 : i32} : () -> ()
  }) {sym_name = "v", target = "llvm-cpu"} : () -> ()
}) {sym_name = "e"} : () -> ()

func.func @main(%a: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  // CHECK: kiln-compile: error: pass {{.*}}convert-to-vm{{.*}} failed: {{.*}}errors.mlir:[[@LINE+1]]:3: 'hal.command_buffer.dispatch' op has no 'workgroup_count' (codegen fills it in; did the codegen stage run?)
  "hal.command_buffer.dispatch"(%cb, %ba) {executable = @e, ordinal = 0 : i32,
      offsets = array<i64: 0>, lengths = array<i64: 16>, constants = array<i32>}
      : (!hal.command_buffer, !hal.buffer) -> ()
  %v = "hal.buffer_view.create"(%ba) {offset = 0 : i64, element_type = f32, shape = array<i64: 4>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
