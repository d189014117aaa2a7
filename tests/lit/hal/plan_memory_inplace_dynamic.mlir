// RUN: kiln-opt %s --plan-memory --schedule-commands | FileCheck %s
// In-place results over a run-time batch (see plan_memory_inplace.mlir):
// the kernel's bindings are memref<?x...> sized by push constants, its
// subviews have run-time sizes at static offsets, and the border fills
// are disjoint from the add's box along the static dims. Per batch row:
// x 720 bytes (768 aligned), y 320.
//
// in_place: x and the add's result z share offset 0; the arena holds
// 768 + 320 bytes per row.
// CHECK-LABEL: func.func @in_place(
// CHECK: arith.muli %{{.*}}, %c1088 : index
// CHECK: executable = @add_pad, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>, offsets = array<i64: 0, -9223372036854775808, 0>
//
// two_dims: the kernel sizes x and z by two push constants, which may
// differ: z gets bytes of its own (1856 per row).
// CHECK-LABEL: func.func @two_dims(
// CHECK: arith.muli %{{.*}}, %c1856 : index
// CHECK: executable = @add_two_dims, lengths = array<i64: -9223372036854775808, -9223372036854775808, -9223372036854775808>, offsets = array<i64: 0, -9223372036854775808, -9223372036854775808>
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 1 : i32, readonly_mask = 1 : i32, sym_name = "px", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "px", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 1 : i32, readonly_mask = 1 : i32, sym_name = "py", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "py", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 2 : i32, ordinal = 0 : i32, push_constant_count = 1 : i32, readonly_mask = 1 : i32, sym_name = "use", written_mask = 2 : i32} : () -> ()
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "use", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 1 : i32, readonly_mask = 3 : i32, sym_name = "add_pad", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_pad() {
        %0 = hal.interface.constant {index = 0 : i32} : i32
        %1 = arith.index_castui %0 : i32 to index
        %a = hal.interface.binding(%1) {binding = 0 : i32} : memref<?x6x6x5xf32>
        %b = hal.interface.binding(%1) {binding = 1 : i32} : memref<?x4x4x5xf32>
        %o = hal.interface.binding(%1) {binding = 2 : i32} : memref<?x6x6x5xf32>
        %c0 = arith.constant 0 : index
        %n = memref.dim %o, %c0 : memref<?x6x6x5xf32>
        %w = memref.subview %o[0, 1, 1, 0] [%n, 4, 4, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x4x5xf32, strided<[180, 30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 + 1, d2 + 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<?x6x6x5xf32>, memref<?x4x4x5xf32>) outs(%w : memref<?x4x4x5xf32, strided<[180, 30, 5, 1], offset: 35>>) {
        ^bb0(%x: f32, %y: f32, %z: f32):
          %s = arith.addf %x, %y : f32
          linalg.yield %s : f32
        }
        %t = memref.subview %o[0, 0, 0, 0] [%n, 1, 6, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x1x6x5xf32, strided<[180, 30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<?x1x6x5xf32, strided<[180, 30, 5, 1]>>)
        %u = memref.subview %o[0, 5, 0, 0] [%n, 1, 6, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x1x6x5xf32, strided<[180, 30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%u : memref<?x1x6x5xf32, strided<[180, 30, 5, 1], offset: 150>>)
        %l = memref.subview %o[0, 1, 0, 0] [%n, 4, 1, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 30>>)
        %r = memref.subview %o[0, 1, 5, 0] [%n, 4, 1, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 55>>
        linalg.fill ins(%cst : f32) outs(%r : memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 55>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_pad", sym_visibility = "private"} : () -> ()
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 2 : i32, readonly_mask = 3 : i32, sym_name = "add_two_dims", written_mask = 4 : i32} : () -> ()
    builtin.module {
      func.func @add_two_dims() {
        %0 = hal.interface.constant {index = 0 : i32} : i32
        %1 = arith.index_castui %0 : i32 to index
        %3 = hal.interface.constant {index = 1 : i32} : i32
        %4 = arith.index_castui %3 : i32 to index
        %a = hal.interface.binding(%1) {binding = 0 : i32} : memref<?x6x6x5xf32>
        %b = hal.interface.binding(%1) {binding = 1 : i32} : memref<?x4x4x5xf32>
        %o = hal.interface.binding(%4) {binding = 2 : i32} : memref<?x6x6x5xf32>
        %c0 = arith.constant 0 : index
        %n = memref.dim %o, %c0 : memref<?x6x6x5xf32>
        %w = memref.subview %o[0, 1, 1, 0] [%n, 4, 4, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x4x5xf32, strided<[180, 30, 5, 1], offset: 35>>
        %cst = arith.constant 0.000000e+00 : f32
        linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1 + 1, d2 + 1, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a, %b : memref<?x6x6x5xf32>, memref<?x4x4x5xf32>) outs(%w : memref<?x4x4x5xf32, strided<[180, 30, 5, 1], offset: 35>>) {
        ^bb0(%x: f32, %y: f32, %z: f32):
          %s = arith.addf %x, %y : f32
          linalg.yield %s : f32
        }
        %t = memref.subview %o[0, 0, 0, 0] [%n, 1, 6, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x1x6x5xf32, strided<[180, 30, 5, 1]>>
        linalg.fill ins(%cst : f32) outs(%t : memref<?x1x6x5xf32, strided<[180, 30, 5, 1]>>)
        %u = memref.subview %o[0, 5, 0, 0] [%n, 1, 6, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x1x6x5xf32, strided<[180, 30, 5, 1], offset: 150>>
        linalg.fill ins(%cst : f32) outs(%u : memref<?x1x6x5xf32, strided<[180, 30, 5, 1], offset: 150>>)
        %l = memref.subview %o[0, 1, 0, 0] [%n, 4, 1, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 30>>
        linalg.fill ins(%cst : f32) outs(%l : memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 30>>)
        %r = memref.subview %o[0, 1, 5, 0] [%n, 4, 1, 5] [1, 1, 1, 1] : memref<?x6x6x5xf32> to memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 55>>
        linalg.fill ins(%cst : f32) outs(%r : memref<?x4x1x5xf32, strided<[180, 30, 5, 1], offset: 55>>)
        return
      }
    }
  }) {sym_name = "llvm_cpu", target = "llvm-cpu"} : () -> ()
}) {sym_name = "add_two_dims", sym_visibility = "private"} : () -> ()
func.func @in_place(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %x = "flow.dispatch"(%arg0, %n) {entry_point = @px::@px, result_dims = array<i64: 0>} : (tensor<?x8xf32>, index) -> tensor<?x6x6x5xf32>
  %y = "flow.dispatch"(%arg0, %n) {entry_point = @py::@py, result_dims = array<i64: 0>} : (tensor<?x8xf32>, index) -> tensor<?x4x4x5xf32>
  %z = "flow.dispatch"(%x, %y, %n) {entry_point = @add_pad::@add_pad, result_dims = array<i64: 0>} : (tensor<?x6x6x5xf32>, tensor<?x4x4x5xf32>, index) -> tensor<?x6x6x5xf32>
  %r = "flow.dispatch"(%z, %n) {entry_point = @use::@use, result_dims = array<i64: 0>} : (tensor<?x6x6x5xf32>, index) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
func.func @two_dims(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %x = "flow.dispatch"(%arg0, %n) {entry_point = @px::@px, result_dims = array<i64: 0>} : (tensor<?x8xf32>, index) -> tensor<?x6x6x5xf32>
  %y = "flow.dispatch"(%arg0, %n) {entry_point = @py::@py, result_dims = array<i64: 0>} : (tensor<?x8xf32>, index) -> tensor<?x4x4x5xf32>
  %z = "flow.dispatch"(%x, %y, %n, %n) {entry_point = @add_two_dims::@add_two_dims, result_dims = array<i64: 0>} : (tensor<?x6x6x5xf32>, tensor<?x4x4x5xf32>, index, index) -> tensor<?x6x6x5xf32>
  %r = "flow.dispatch"(%z, %n) {entry_point = @use::@use, result_dims = array<i64: 0>} : (tensor<?x6x6x5xf32>, index) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
