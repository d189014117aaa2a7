// simple_mul at the hal level, written by hand as PIPELINE.md shows it
// after the hal stage; the kernel payload is the handmade sample's ELF
// (samples/handmade/simple_mul_kernel.c), substituted at compile time.
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

func.func @simple_mul(%a: !hal.buffer_view, %b: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%b) {input = 1 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%a) : (!hal.buffer_view) -> !hal.buffer
  %bb = "hal.buffer_view.buffer"(%b) : (!hal.buffer_view) -> !hal.buffer
  %out = "hal.buffer.allocate"() {size = 16 : i64} : () -> !hal.buffer
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %ba, %bb, %out) {executable = @simple_mul_dispatch_0,
      ordinal = 0 : i32, workgroup_count = array<i64: 1, 1, 1>,
      offsets = array<i64: 0, 0, 0>, lengths = array<i64: 16, 16, 16>,
      constants = array<i32: 4>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %v = "hal.buffer_view.create"(%out) {offset = 0 : i64, element_type = f32, shape = array<i64: 4>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
