// simple_mul with b as a weight: rodata from a module-level hal.rodata op
// (as plan-memory leaves it), read through hal.buffer.rodata, multiplied
// by the handmade ELF kernel (substituted at compile time).
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "simple_mul", ordinal = 0 : i32,
        binding_count = 3 : i32, readonly_mask = 3 : i32,
        push_constant_count = 1 : i32, workgroup_size = array<i64: 64, 1, 1>} : () -> ()
    "hal.executable.export"() {sym_name = "fail_if_negative", ordinal = 1 : i32,
        binding_count = 3 : i32, readonly_mask = 3 : i32,
        push_constant_count = 1 : i32, workgroup_size = array<i64: 64, 1, 1>} : () -> ()
  }) {sym_name = "host", target = "llvm-cpu"} : () -> ()
}) {sym_name = "simple_mul_dispatch_0", sym_visibility = "private"} : () -> ()

"hal.rodata"() {sym_name = "__rodata_0", sym_visibility = "private", index = 0 : i32,
    value = dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>} : () -> ()

func.func @simple_mul(%a: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %w = "hal.buffer.rodata"() {index = 0 : i32} : () -> !hal.buffer
  %out = "hal.buffer.allocate"() {size = 16 : i64} : () -> !hal.buffer
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %ba, %w, %out) {executable = @simple_mul_dispatch_0,
      ordinal = 0 : i32, workgroup_count = array<i64: 1, 1, 1>,
      offsets = array<i64: 0, 0, 0>, lengths = array<i64: 16, 16, 16>,
      constants = array<i32: 4>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %v = "hal.buffer_view.create"(%out) {offset = 0 : i64, element_type = f32, shape = array<i64: 4>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
