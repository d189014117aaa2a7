// A host loop at the hal level, written by hand (convert-to-vm lowers a
// host scf.for to vm.for: branches in the bytecode). The trip count is
// read from input 1's data; each step allocates a new buffer, dispatches
// the handmade simple_mul kernel (samples/handmade/simple_mul_kernel.c:
// c[j] = a[j] * b[j] for j < push constant 0) with a push constant and a
// workgroup count that change from step to step, and carries the buffer
// and the count to the next step:
//   r = x; m = len(x); repeat n times: r' = (r * x)[:m] ++ zeros; m = max(m - 1, 0)
// @nested runs that loop n times inside a loop of k steps (input 2), the
// count m restarting at len(x) per outer step: r multiplied n*k times.
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

func.func @loop(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %bytes = arith.muli %len, %c4 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %bx, %m = %len) -> (!hal.buffer, index) {
    %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
    %wg = arith.ceildivsi %m, %c64 : index
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new, %bytes, %bytes, %bytes, %m, %wg) {executable = @simple_mul_dispatch_0,
        ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
        offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
        constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    %m1 = arith.subi %m, %c1 : index
    %m2 = arith.maxsi %m1, %c0 : index
    scf.yield %new, %m2 : !hal.buffer, index
  }
  %v = "hal.buffer_view.create"(%r#0, %len) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

func.func @nested(%x: !hal.buffer_view, %n: !hal.buffer_view, %k: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%k) {input = 2 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %outer = "hal.buffer_view.load"(%k) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %bytes = arith.muli %len, %c4 : index
  %r = scf.for %j = %c0 to %outer step %c1 iter_args(%acc0 = %bx) -> (!hal.buffer) {
    %in:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %acc0, %m = %len) -> (!hal.buffer, index) {
      %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
      %wg = arith.ceildivsi %m, %c64 : index
      %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
      "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new, %bytes, %bytes, %bytes, %m, %wg) {executable = @simple_mul_dispatch_0,
          ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
          offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
          constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
      "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
      "hal.device.wait"() : () -> ()
      %m1 = arith.subi %m, %c1 : index
      %m2 = arith.maxsi %m1, %c0 : index
      scf.yield %new, %m2 : !hal.buffer, index
    }
    scf.yield %in#0 : !hal.buffer
  }
  %v = "hal.buffer_view.create"(%r, %len) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// @until: the loop of @loop whose steps change the values only while the
// step number is below input 2 (a host scf.if on an arith.cmpi: vm.if),
// as a Loop whose condition turned false: min(n, stop) effective steps.
func.func @until(%x: !hal.buffer_view, %n: !hal.buffer_view, %stop: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%stop) {input = 2 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %limit = "hal.buffer_view.load"(%stop) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %bytes = arith.muli %len, %c4 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %bx, %m = %len) -> (!hal.buffer, index) {
    %go = arith.cmpi sgt, %limit, %i : index
    %next:2 = scf.if %go -> (!hal.buffer, index) {
      %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
      %wg = arith.ceildivsi %m, %c64 : index
      %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
      "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new, %bytes, %bytes, %bytes, %m, %wg) {executable = @simple_mul_dispatch_0,
          ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
          offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
          constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
      "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
      "hal.device.wait"() : () -> ()
      %m1 = arith.subi %m, %c1 : index
      %m2 = arith.maxsi %m1, %c0 : index
      scf.yield %new, %m2 : !hal.buffer, index
    } else {
      scf.yield %acc, %m : !hal.buffer, index
    }
    scf.yield %next#0, %next#1 : !hal.buffer, index
  }
  %v = "hal.buffer_view.create"(%r#0, %len) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// @pingpong: two buffers allocated once, before the loop, written in turn
// (each step writes the spare one from the current one, then the two are
// exchanged: the yield's moves form a cycle of refs), and the count of
// elements written alternating between len(x) and len(x) - 1 (two counts
// exchanged: a cycle of scalars). A buffer keeps what an earlier step
// wrote past the count. Before the loop: a = x * x.
func.func @pingpong(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %bytes = arith.muli %len, %c4 : index
  %a = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
  %b = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
  %wg0 = arith.ceildivsi %len, %c64 : index
  %cb0 = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb0, %bx, %bx, %a, %bytes, %bytes, %bytes, %len, %wg0) {executable = @simple_mul_dispatch_0,
      ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
      offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
      constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
  "hal.command_buffer.execute"(%cb0) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %l1 = arith.subi %len, %c1 : index
  %short = arith.maxsi %l1, %c0 : index
  %r:4 = scf.for %i = %c0 to %trip step %c1 iter_args(%cur = %a, %spare = %b, %m = %len, %k = %short)
      -> (!hal.buffer, !hal.buffer, index, index) {
    %wg = arith.ceildivsi %m, %c64 : index
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %cur, %bx, %spare, %bytes, %bytes, %bytes, %m, %wg) {executable = @simple_mul_dispatch_0,
        ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
        offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
        constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    scf.yield %spare, %cur, %k, %m : !hal.buffer, !hal.buffer, index, index
  }
  %v = "hal.buffer_view.create"(%r#0, %len) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// @shrink: a value whose shape changes from step to step: each step
// allocates the next value at its own size (one element fewer, down to
// none), computes it from the carried one and carries the buffer with its
// length; the result is created with the last step's length.
//   r = x; repeat n times: r = (r * x)[:max(len(r) - 1, 0)]
func.func @shrink(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %xbytes = arith.muli %len, %c4 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %bx, %m = %len) -> (!hal.buffer, index) {
    %m1 = arith.subi %m, %c1 : index
    %m2 = arith.maxsi %m1, %c0 : index
    %abytes = arith.muli %m, %c4 : index
    %bytes = arith.muli %m2, %c4 : index
    %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
    %wg = arith.ceildivsi %m2, %c64 : index
    %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
    "hal.command_buffer.dispatch"(%cb, %acc, %bx, %new, %abytes, %xbytes, %bytes, %m2, %wg) {executable = @simple_mul_dispatch_0,
        ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
        offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
        constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
    "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
    "hal.device.wait"() : () -> ()
    scf.yield %new, %m2 : !hal.buffer, index
  }
  %v = "hal.buffer_view.create"(%r#0, %r#1) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v : !hal.buffer_view
}

// @shrink_call: @shrink with each step a call of @shrink_step (vm.call),
// the form a host loop's body takes when it is planned as a function of
// its own: the step takes the carried view and its length (a scalar
// argument) and returns the next view and length (a ref and a scalar
// result). Its own asserts check what the caller passes each step. The
// result may be the input view itself (no step): kiln.signature says its
// tensor type.
func.func private @shrink_step(%acc: !hal.buffer_view, %x: !hal.buffer_view, %m: index) -> (!hal.buffer_view, index) {
  "hal.buffer_view.assert"(%acc) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%x) {input = 1 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  %ba = "hal.buffer_view.buffer"(%acc) : (!hal.buffer_view) -> !hal.buffer
  %bx = "hal.buffer_view.buffer"(%x) : (!hal.buffer_view) -> !hal.buffer
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %xbytes = arith.muli %len, %c4 : index
  %m1 = arith.subi %m, %c1 : index
  %m2 = arith.maxsi %m1, %c0 : index
  %abytes = arith.muli %m, %c4 : index
  %bytes = arith.muli %m2, %c4 : index
  %new = "hal.buffer.allocate"(%bytes) : (index) -> !hal.buffer
  %wg = arith.ceildivsi %m2, %c64 : index
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %ba, %bx, %new, %abytes, %xbytes, %bytes, %m2, %wg) {executable = @simple_mul_dispatch_0,
      ordinal = 0 : i32, workgroup_count = array<i64: -9223372036854775808, 1, 1>,
      offsets = array<i64: 0, 0, 0>, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>,
      constants = array<i64: -9223372036854775808>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer, index, index, index, index, index) -> ()
  "hal.command_buffer.execute"(%cb) : (!hal.command_buffer) -> ()
  "hal.device.wait"() : () -> ()
  %v = "hal.buffer_view.create"(%new, %m2) {offset = 0 : i64, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer, index) -> !hal.buffer_view
  return %v, %m2 : !hal.buffer_view, index
}

func.func @shrink_call(%x: !hal.buffer_view, %n: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<?xf32>, tensor<i64>) -> tensor<?xf32>} {
  "hal.buffer_view.assert"(%x) {input = 0 : i32, element_type = f32, shape = array<i64: -9223372036854775808>} : (!hal.buffer_view) -> ()
  "hal.buffer_view.assert"(%n) {input = 1 : i32, element_type = i64, shape = array<i64>} : (!hal.buffer_view) -> ()
  %len = "hal.buffer_view.dim"(%x) {index = 0 : i32} : (!hal.buffer_view) -> index
  %trip = "hal.buffer_view.load"(%n) {index = 0 : i32} : (!hal.buffer_view) -> index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x, %m = %len) -> (!hal.buffer_view, index) {
    %v, %m2 = func.call @shrink_step(%acc, %x, %m) : (!hal.buffer_view, !hal.buffer_view, index) -> (!hal.buffer_view, index)
    scf.yield %v, %m2 : !hal.buffer_view, index
  }
  return %r#0 : !hal.buffer_view
}
