// RUN: kiln-opt %s --plan-memory --schedule-commands | FileCheck %s
// plan-memory's in-place results (hl_inplace_input): a dispatch result
// takes the arena bytes of an input that dies at that dispatch when the
// kernel reads the input only where it writes the result (an elementwise
// op at equal positions, fills elsewhere). Kernels in memref form, as
// bufferize-kernels leaves them; 6x6x5 f32 = 720 bytes, slots 64-aligned.
//
// in_place: the add's result z shares x's offset; the arena holds x (or
// z) and y only: 768 + 320.
// CHECK-LABEL: func.func @in_place(
// CHECK: %[[A:.*]] = "hal.buffer.allocate"() {size = 1088 : i64, transient, uninitialized}
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[A]], %[[A]], %[[A]]) {{{.*}}executable = @add_pad, lengths = array<i64: 720, 320, 720>, offsets = array<i64: [[X:[0-9]+]], {{[0-9]+}}, [[X]]>
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[A]], %{{.*}}) {{{.*}}executable = @use, lengths = array<i64: 720, 32>, offsets = array<i64: [[X]], 0>
//
// kept: x is read after the add, so z has bytes of its own.
// CHECK-LABEL: func.func @kept(
// CHECK: "hal.buffer.allocate"() {size = 1856 : i64, transient, uninitialized}
// CHECK: executable = @add_pad, lengths = array<i64: 720, 320, 720>, offsets = array<i64: [[X:[0-9]+]], {{[0-9]+}}, [[Z:[0-9]+]]>
// CHECK-NOT: offsets = array<i64: [[X]], {{[0-9]+}}, [[X]]>
// CHECK: executable = @use2, lengths = array<i64: 720, 720, 32>, offsets = array<i64: [[X]], [[Z]], 0>
//
// shifted: the kernel reads x a row below where it writes (an element
// another iteration overwrites); filled: a fill reaches into the box the
// add writes; looped: the add runs twice. None is in place.
// CHECK-LABEL: func.func @shifted(
// CHECK: "hal.buffer.allocate"() {size = 1856 : i64, transient, uninitialized}
// CHECK: executable = @add_shift, lengths = array<i64: 720, 320, 720>, offsets = array<i64: 0, 1536, 768>
// CHECK-LABEL: func.func @filled(
// CHECK: "hal.buffer.allocate"() {size = 1856 : i64, transient, uninitialized}
// CHECK: executable = @add_fill, lengths = array<i64: 720, 320, 720>, offsets = array<i64: 0, 1536, 768>
// CHECK-LABEL: func.func @looped(
// CHECK: "hal.buffer.allocate"() {size = 1856 : i64, transient, uninitialized}
// CHECK: executable = @add_loop, lengths = array<i64: 720, 320, 720>, offsets = array<i64: 0, 1536, 768>
//
// returned: a function result has its own allocation; x stays in the
// arena.
// CHECK-LABEL: func.func @returned(
// CHECK: %[[R:.*]] = "hal.buffer.allocate"() {size = 720 : i64, uninitialized}
// CHECK: %[[A:.*]] = "hal.buffer.allocate"() {size = 1088 : i64, transient, uninitialized}
// CHECK: "hal.command_buffer.dispatch"(%{{.*}}, %[[A]], %[[A]], %[[R]]) {{{.*}}executable = @add_pad
// Producers without kernels (nothing to analyze: never in place).
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "px", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "px", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "py", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "py", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "use", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "use", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "use2", written_mask = 4 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "use2", sym_visibility = "private"} : () -> ()
// add_pad: out = pad(relu(x[interior] + y)), x read where out is written.
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "add_pad", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_pad() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<6x6x5xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<4x4x5xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<6x6x5xf32>
        %w = memref.subview %2[1, 1, 0] [4, 4, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + 1, d1 + 1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %1 : memref<6x6x5xf32>, memref<4x4x5xf32>) outs(%w : memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>) {
        ^bb0(%a: f32, %b: f32, %o: f32):
          %s = arith.addf %a, %b : f32
          %m = arith.maximumf %s, %cst : f32
          linalg.yield %m : f32
        }
        %t = memref.subview %2[0, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<1x6x5xf32, strided<[30, 5, 1]>>)
        %b = memref.subview %2[5, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%b : memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>)
        %l = memref.subview %2[1, 0, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>)
        %r = memref.subview %2[1, 5, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>
        linalg.fill ins(%cst : f32) outs(%r : memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_pad", sym_visibility = "private"} : () -> ()
// add_loop: the add runs twice (a loop): in place, its second trip would
// read its first one's results. Not in place.
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "add_loop", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_loop() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<6x6x5xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<4x4x5xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<6x6x5xf32>
        %w = memref.subview %2[1, 1, 0] [4, 4, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        %c0 = arith.constant 0 : index
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        scf.for %i = %c0 to %c2 step %c1 {
          linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + 1, d1 + 1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %1 : memref<6x6x5xf32>, memref<4x4x5xf32>) outs(%w : memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>) {
          ^bb0(%a: f32, %b: f32, %o: f32):
            %s = arith.addf %a, %b : f32
            %m = arith.maximumf %s, %cst : f32
            linalg.yield %m : f32
          }
        }
        %t = memref.subview %2[0, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<1x6x5xf32, strided<[30, 5, 1]>>)
        %b = memref.subview %2[5, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%b : memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>)
        %l = memref.subview %2[1, 0, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>)
        %r = memref.subview %2[1, 5, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>
        linalg.fill ins(%cst : f32) outs(%r : memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_loop", sym_visibility = "private"} : () -> ()
// add_shift: x read one row below where out is written (another
// iteration's element): not in place.
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "add_shift", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_shift() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<6x6x5xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<4x4x5xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<6x6x5xf32>
        %w = memref.subview %2[1, 1, 0] [4, 4, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + 2, d1 + 1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %1 : memref<6x6x5xf32>, memref<4x4x5xf32>) outs(%w : memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>) {
        ^bb0(%a: f32, %b: f32, %o: f32):
          %s = arith.addf %a, %b : f32
          %m = arith.maximumf %s, %cst : f32
          linalg.yield %m : f32
        }
        %t = memref.subview %2[0, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<1x6x5xf32, strided<[30, 5, 1]>>)
        %b = memref.subview %2[5, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%b : memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>)
        %l = memref.subview %2[1, 0, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>)
        %r = memref.subview %2[1, 5, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>
        linalg.fill ins(%cst : f32) outs(%r : memref<4x1x5xf32, strided<[30, 5, 1], offset: 55>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_shift", sym_visibility = "private"} : () -> ()
// add_fill: a fill reaches into the box the generic writes (its first
// interior row): not in place.
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "add_fill", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_fill() {
        %0 = hal.interface.binding {binding = 0 : i32} : memref<6x6x5xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<4x4x5xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<6x6x5xf32>
        %w = memref.subview %2[1, 1, 0] [4, 4, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0 + 1, d1 + 1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%0, %1 : memref<6x6x5xf32>, memref<4x4x5xf32>) outs(%w : memref<4x4x5xf32, strided<[30, 5, 1], offset: 35>>) {
        ^bb0(%a: f32, %b: f32, %o: f32):
          %s = arith.addf %a, %b : f32
          %m = arith.maximumf %s, %cst : f32
          linalg.yield %m : f32
        }
        %t = memref.subview %2[0, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<1x6x5xf32, strided<[30, 5, 1]>>)
        %b = memref.subview %2[5, 0, 0] [1, 6, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%b : memref<1x6x5xf32, strided<[30, 5, 1], offset: 150>>)
        %l = memref.subview %2[1, 0, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<4x1x5xf32, strided<[30, 5, 1], offset: 30>>)
        %r = memref.subview %2[1, 4, 0] [4, 1, 5] [1, 1, 1] : memref<6x6x5xf32> to memref<4x1x5xf32, strided<[30, 5, 1], offset: 50>>
        linalg.fill ins(%cst : f32) outs(%r : memref<4x1x5xf32, strided<[30, 5, 1], offset: 50>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_fill", sym_visibility = "private"} : () -> ()
// in_place: z takes x's bytes (x dies at the add).
func.func @in_place(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_pad::@add_pad} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  %r = "flow.dispatch"(%z) {entry_point = @use::@use} : (tensor<6x6x5xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// kept: x is read again after the add: z needs bytes of its own.
func.func @kept(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_pad::@add_pad} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  %r = "flow.dispatch"(%x, %z) {entry_point = @use2::@use2} : (tensor<6x6x5xf32>, tensor<6x6x5xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// shifted, filled: kernels that do not read x only where they write.
func.func @shifted(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_shift::@add_shift} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  %r = "flow.dispatch"(%z) {entry_point = @use::@use} : (tensor<6x6x5xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @filled(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_fill::@add_fill} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  %r = "flow.dispatch"(%z) {entry_point = @use::@use} : (tensor<6x6x5xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
func.func @looped(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_loop::@add_loop} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  %r = "flow.dispatch"(%z) {entry_point = @use::@use} : (tensor<6x6x5xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}
// returned: z is the function's result: its own allocation, x stays in
// the arena.
func.func @returned(%arg0: tensor<8xf32>) -> tensor<6x6x5xf32> {
  %x = "flow.dispatch"(%arg0) {entry_point = @px::@px} : (tensor<8xf32>) -> tensor<6x6x5xf32>
  %y = "flow.dispatch"(%arg0) {entry_point = @py::@py} : (tensor<8xf32>) -> tensor<4x4x5xf32>
  %z = "flow.dispatch"(%x, %y) {entry_point = @add_pad::@add_pad} : (tensor<6x6x5xf32>, tensor<4x4x5xf32>) -> tensor<6x6x5xf32>
  return %z : tensor<6x6x5xf32>
}
