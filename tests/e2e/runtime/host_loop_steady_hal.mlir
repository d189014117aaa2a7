// steady_state.py: a host loop (vm.for) whose every step allocates a new
// buffer, records a dispatch and releases the previous step's buffer.
// Steady-state calls must allocate nothing: each step's buffer and
// command buffer come back from the device's pool. Six steps, 100 f32
// (two workgroups of the handmade simple_mul kernel, substituted).
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

func.func @host_loop(%x: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: 100>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %bx) -> (!hal.buffer) {
    %new = "hal.buffer.allocate"() {size = 400 : i64} : () -> !hal.buffer
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new) {executable = @simple_mul_dispatch_0,
        ordinal = 0 : i32, workgroup_count = array<i64: 2, 1, 1>,
        offsets = array<i64: 0, 0, 0>, lengths = array<i64: 400, 400, 400>,
        constants = array<i32: 100>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    scf.yield %new : !hal.buffer
  }
  %v = "hal.buffer_view.create"(%r) {offset = 0 : i64, element_type = f32, shape = array<i64: 100>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
