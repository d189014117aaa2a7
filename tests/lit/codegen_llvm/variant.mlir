// A module holding a hal.executable.variant: kiln-translate translates the
// variant's inner module as a kernel module (host functions are left to
// the vm stage).
// RUN: kiln-translate %s | FileCheck %s

// CHECK: @kiln.exports = {{.*}} ptr @k, [3 x i32] [i32 1, i32 1, i32 1], i32 2, i32 1, i32 1 }
// CHECK-LABEL: define internal i32 @k(
// CHECK: %binding0 = load ptr
// CHECK: %pc0 = load i32
// CHECK: ret i32 0
// CHECK-LABEL: define {{.*}}ptr @kiln_executable_query(i32
// CHECK-NOT: define {{.*}} @main
"hal.executable"() ({
  "hal.executable.variant"() ({
    "hal.executable.export"() {sym_name = "k", ordinal = 0 : i32, binding_count = 2 : i32,
        readonly_mask = 1 : i32, push_constant_count = 1 : i32} : () -> ()
    builtin.module {
      func.func @k() {
        %c0 = arith.constant 0 : index
        %a = hal.interface.binding {binding = 0 : i32} : memref<4xi32>
        %b = hal.interface.binding {binding = 1 : i32} : memref<4xi32>
        %p = hal.interface.constant {index = 0 : index} : i32
        %x = memref.load %a[%c0] : memref<4xi32>
        %y = arith.addi %x, %p : i32
        memref.store %y, %b[%c0] : memref<4xi32>
        return
      }
    }
  }) {sym_name = "x86", target = "llvm-cpu:x86_64"} : () -> ()
}) {sym_name = "exe0"} : () -> ()

func.func @main(%a: !hal.buffer_view) -> !hal.buffer_view {
  return %a : !hal.buffer_view
}
