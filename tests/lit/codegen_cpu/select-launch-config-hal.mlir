// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// select-launch-config on a hal-level module: kiln.launch on each variant's
// kernel (vector width from the variant's features: 16 for avx512f, 4 for
// aarch64), the same tile sizes and workgroup count for both variants, and
// workgroup_count on every export and on the host dispatch site.

// CHECK: "hal.executable.export"() {{{.*}}sym_name = "mm", workgroup_count = array<i64: 2, 2, 1>
// CHECK: func.func @mm() attributes {kiln.launch = {pipeline = "cpu-matmul", tile_sizes = array<i64: 64, 64, 0>, vector_width = 16 : i64, workgroup_count = array<i64: 2, 2, 1>, workgroup_size = array<i64: 1, 1, 1>}}
// CHECK: target = "llvm-cpu:x86_64+avx512f"
// CHECK: "hal.executable.export"() {{{.*}}sym_name = "mm", workgroup_count = array<i64: 2, 2, 1>
// CHECK: func.func @mm() attributes {kiln.launch = {pipeline = "cpu-matmul", tile_sizes = array<i64: 64, 64, 0>, vector_width = 4 : i64, workgroup_count = array<i64: 2, 2, 1>
// CHECK: target = "llvm-cpu:aarch64"
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @mm_dispatch, {{.*}}ordinal = 0 : i32, {{.*}}workgroup_count = array<i64: 2, 2, 1>, workload
// Another executable's dispatch is left alone.
// CHECK: "hal.command_buffer.dispatch"(
// CHECK-NOT: workgroup_count
// CHECK-SAME: executable = @other
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "mm", workload = array<i64: 100, 70>} : () -> ()
    module {
      func.func @mm() {
        %cst = arith.constant 0.0 : f32
        %0 = hal.interface.binding {binding = 0 : i32} : memref<100x9xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<9x70xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<100x70xf32>
        linalg.fill ins(%cst : f32) outs(%2 : memref<100x70xf32>)
        linalg.matmul ins(%0, %1 : memref<100x9xf32>, memref<9x70xf32>) outs(%2 : memref<100x70xf32>)
        return
      }
    }
  }) {sym_name = "llvm_cpu_x86_64_avx512f", target = "llvm-cpu:x86_64+avx512f"} : () -> ()
  "hal.executable.variant"() ({
    "hal.executable.export"() {binding_count = 3 : i32, ordinal = 0 : i32, push_constant_count = 0 : i32, readonly_mask = 3 : i32, sym_name = "mm", workload = array<i64: 100, 70>} : () -> ()
    module {
      func.func @mm() {
        %cst = arith.constant 0.0 : f32
        %0 = hal.interface.binding {binding = 0 : i32} : memref<100x9xf32>
        %1 = hal.interface.binding {binding = 1 : i32} : memref<9x70xf32>
        %2 = hal.interface.binding {binding = 2 : i32} : memref<100x70xf32>
        linalg.fill ins(%cst : f32) outs(%2 : memref<100x70xf32>)
        linalg.matmul ins(%0, %1 : memref<100x9xf32>, memref<9x70xf32>) outs(%2 : memref<100x70xf32>)
        return
      }
    }
  }) {sym_name = "llvm_cpu_aarch64", target = "llvm-cpu:aarch64"} : () -> ()
}) {sym_name = "mm_dispatch", sym_visibility = "private"} : () -> ()
func.func @main(%arg0: !hal.buffer, %arg1: !hal.buffer, %arg2: !hal.buffer) {
  %cb = "hal.command_buffer.create"() : () -> !hal.command_buffer
  "hal.command_buffer.dispatch"(%cb, %arg0, %arg1, %arg2) {constants = array<i32>, executable = @mm_dispatch, lengths = array<i64: 3600, 2520, 28000>, offsets = array<i64: 0, 0, 0>, ordinal = 0 : i32, readonly_mask = 3 : i32, workload = array<i64: 100, 70>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  "hal.command_buffer.dispatch"(%cb, %arg0, %arg1, %arg2) {constants = array<i32>, executable = @other, lengths = array<i64: 3600, 2520, 28000>, offsets = array<i64: 0, 0, 0>, ordinal = 0 : i32, readonly_mask = 3 : i32, workload = array<i64: 100, 70>} : (!hal.command_buffer, !hal.buffer, !hal.buffer, !hal.buffer) -> ()
  return
}
