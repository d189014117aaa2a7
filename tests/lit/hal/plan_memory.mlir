// RUN: kiln-opt %s --plan-memory | kiln-opt --schedule-commands | FileCheck %s
// RUN: kiln-opt %s --plan-memory --schedule-commands | kiln-opt - --schedule-commands | FileCheck %s
// plan-memory + schedule-commands on hand-written flow host code.
//
// chain: intermediates %0 (d0..d1) and %2 (d2..d3) have disjoint lifetimes
// and share arena bytes 0..63; %1 (d1..d2) overlaps both and sits at 64.
// Every dispatch reads what the previous one wrote: a barrier before each.
// CHECK-LABEL: func.func @chain(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.signature = (tensor<16xf32>) -> tensor<16xf32>}
// CHECK-NEXT: "hal.buffer_view.assert"(%arg0) {element_type = f32, input = 0 : i32, shape = array<i64: 16>}
// CHECK-NEXT: %[[IN:.*]] = "hal.buffer_view.buffer"(%arg0)
// CHECK-NEXT: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 64 : i64, uninitialized}
// CHECK-NEXT: %[[ARENA:.*]] = "hal.buffer.allocate"() {size = 128 : i64, transient, uninitialized}
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[IN]], %[[ARENA]]) {{{.*}}executable = @e0, lengths = array<i64: 64, 64>, offsets = array<i64: 0, 0>, ordinal = 0 : i32, readonly_mask = 1 : i32, workload = array<i64: 16>}
// CHECK-NEXT: "hal.command_buffer.barrier"(%[[CB]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[ARENA]], %[[ARENA]]) {{{.*}}executable = @e1, lengths = array<i64: 64, 64>, offsets = array<i64: 0, 64>
// CHECK-NEXT: "hal.command_buffer.barrier"(%[[CB]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[ARENA]], %[[ARENA]]) {{{.*}}executable = @e2, lengths = array<i64: 64, 64>, offsets = array<i64: 64, 0>
// CHECK-NEXT: "hal.command_buffer.barrier"(%[[CB]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[ARENA]], %[[OUT]]) {{{.*}}executable = @e3, lengths = array<i64: 64, 64>, offsets = array<i64: 0, 0>
// CHECK-NEXT: "hal.command_buffer.execute"(%[[CB]])
// CHECK-NEXT: "hal.device.wait"()
// CHECK-NEXT: %[[V:.*]] = "hal.buffer_view.create"(%[[OUT]]) {element_type = f32, offset = 0 : i64, shape = array<i64: 16>}
// CHECK-NEXT: return %[[V]] : !hal.buffer_view
//
// diamond: the constant becomes rodata; e0 and e1 only read the input and
// write different buffers, so no barrier separates them; e2 reads both.
// Results get their own allocations; the reshaped result is a view.
// CHECK: "hal.rodata"() {index = 0 : i32, sym_name = "__rodata_0", sym_visibility = "private", value = dense<[1.000000e+00, 2.000000e+00
// CHECK-LABEL: func.func @diamond(%arg0: !hal.buffer_view) -> (!hal.buffer_view, !hal.buffer_view)
// CHECK: %[[R1:.*]] = "hal.buffer.allocate"() {size = 32 : i64, uninitialized}
// CHECK-NEXT: %[[R2:.*]] = "hal.buffer.allocate"() {size = 32 : i64, uninitialized}
// CHECK-NEXT: %[[A:.*]] = "hal.buffer.allocate"() {size = 64 : i64, transient, uninitialized}
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK-NEXT: %[[RO:.*]] = "hal.buffer.rodata"() {index = 0 : i32}
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %{{.*}}, %[[A]]) {{{.*}}executable = @e0
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %{{.*}}, %[[RO]], %[[R1]]) {{{.*}}executable = @e1, {{.*}}readonly_mask = 3 : i32
// CHECK-NEXT: "hal.command_buffer.barrier"(%[[CB]])
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %[[A]], %[[R1]], %[[R2]]) {{{.*}}executable = @e2
// CHECK: "hal.buffer_view.create"(%[[R1]]) {element_type = f32, offset = 0 : i64, shape = array<i64: 8>}
// CHECK-NEXT: "hal.buffer_view.create"(%[[R2]]) {element_type = f32, offset = 0 : i64, shape = array<i64: 2, 4>}
//
// partial: @p's export leaves its result partly unwritten (written_mask
// 0): %0 gets a zeroed arena of its own (no bytes shared), %1 and %2 the
// uninitialized packed one; the result from @p is a zeroed allocation,
// the others are not.
// CHECK-LABEL: func.func @partial(
// CHECK: %[[OUT:.*]] = "hal.buffer.allocate"() {size = 64 : i64}
// CHECK-NEXT: %[[Z:.*]] = "hal.buffer.allocate"() {size = 64 : i64, transient}
// CHECK-NEXT: %[[U:.*]] = "hal.buffer.allocate"() {size = 128 : i64, transient, uninitialized}
// CHECK-NEXT: %[[CB:.*]] = "hal.command_buffer.create"()
// CHECK-NEXT: "hal.command_buffer.dispatch"(%[[CB]], %{{.*}}, %[[Z]]) {{{.*}}executable = @p
// CHECK: "hal.command_buffer.dispatch"(%[[CB]], %[[Z]], %[[U]]) {{{.*}}executable = @e1
// CHECK: "hal.command_buffer.dispatch"(%[[CB]], %[[U]], %[[U]]) {{{.*}}executable = @e2, lengths = array<i64: 64, 64>, offsets = array<i64: 0, 64>
// CHECK: "hal.command_buffer.dispatch"(%[[CB]], %[[U]], %[[OUT]]) {{{.*}}executable = @p, lengths = array<i64: 64, 64>, offsets = array<i64: 64, 0>
// A written_mask per executable (materialize-interfaces computes it from
// the kernels): bits 1 and 2, the results of the dispatches below.
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "e0", written_mask = 6 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "e0", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "e1", written_mask = 6 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "e1", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "e2", written_mask = 6 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "e2", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "e3", written_mask = 6 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "e3", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 1 : i32, sym_name = "p", written_mask = 0 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "p", sym_visibility = "private"} : () -> ()
// Four dispatches in a chain: %0 lives over d0..d1, %1 over d1..d2, %2
// over d2..d3; %3 is the result.
func.func @chain(%arg0: tensor<16xf32>) -> tensor<16xf32> {
  %0 = "flow.dispatch"(%arg0) {entry_point = @e0::@e0, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "flow.dispatch"(%0) {entry_point = @e1::@e1, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %2 = "flow.dispatch"(%1) {entry_point = @e2::@e2, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %3 = "flow.dispatch"(%2) {entry_point = @e3::@e3, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}
// Two independent dispatches from the input, then one joining them.
func.func @diamond(%arg0: tensor<8xf32>) -> (tensor<8xf32>, tensor<2x4xf32>) {
  %cst = arith.constant dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]> : tensor<8xf32>
  %0 = "flow.dispatch"(%arg0) {entry_point = @e0::@e0} : (tensor<8xf32>) -> tensor<8xf32>
  %1 = "flow.dispatch"(%arg0, %cst) {entry_point = @e1::@e1} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = "flow.dispatch"(%0, %1) {entry_point = @e2::@e2} : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %3 = "flow.tensor.reshape"(%2) : (tensor<8xf32>) -> tensor<2x4xf32>
  return %1, %3 : tensor<8xf32>, tensor<2x4xf32>
}
// Like @chain, but @p leaves its results partly unwritten.
func.func @partial(%arg0: tensor<16xf32>) -> tensor<16xf32> {
  %0 = "flow.dispatch"(%arg0) {entry_point = @p::@p, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %1 = "flow.dispatch"(%0) {entry_point = @e1::@e1, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %2 = "flow.dispatch"(%1) {entry_point = @e2::@e2, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  %3 = "flow.dispatch"(%2) {entry_point = @p::@p, workload = array<i64: 16>} : (tensor<16xf32>) -> tensor<16xf32>
  return %3 : tensor<16xf32>
}
