// steady_state.py: a host loop (vm.for) whose every step allocates a new
// buffer of that step's size, records a dispatch whose push constant and
// workgroup count follow it and releases the previous step's buffer.
// Steady-state calls must allocate nothing: each step's buffer (100, 90,
// ..., 50 f32: a size per step, the same sizes every call) and command
// buffer come back from the device's pool. Six steps of the handmade
// simple_mul kernel (substituted), two workgroups down to one.
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
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c10 = arith.constant 10 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %c400 = arith.constant 400 : index
  %r:2 = scf.for %i = %c0 to %c6 step %c1 iter_args(%acc = %bx, %abytes = %c400) -> (!hal.buffer, index) {
    %i10 = arith.muli %i, %c10 : index
    %m = arith.subi %c100, %i10 : index
    %bytes = arith.muli %m, %c4 : index
    %wg = arith.ceildivsi %m, %c64 : index
    %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new, %abytes, %c400, %bytes, %m, %wg) {executable = @simple_mul_dispatch_0,
        ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
        offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
        constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    scf.yield %new, %bytes : !hal.buffer, index
  }
  %v = "hal.buffer_view.create"(%r#0) {offset = 0 : i64, element_type = f32, shape = array<i64: 50>} : (!hal.buffer) -> !hal.buffer_view
  return %v : !hal.buffer_view
}
