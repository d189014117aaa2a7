// The vm dialect's custom forms print and parse to a fixpoint, and the
// generic form reads back to the same custom form.
// RUN: kiln-compile %s --compile-to=vm -o %t.1.mlir
// RUN: kiln-compile %t.1.mlir --compile-to=vm -o %t.2.mlir
// RUN: diff %t.1.mlir %t.2.mlir
// RUN: FileCheck %s < %t.1.mlir

// CHECK-LABEL: vm.func private @k(%arg0: f32, %arg1: i64, %arg2: !hal.buffer) -> (f32, i64, i32)
// CHECK-SAME: attributes {kiln.signature = (f32, i64, tensor<4xf32>) -> (f32, i64, i32)}
// CHECK-NEXT: %c = vm.const.f32 -1.500000e+00
// CHECK-NEXT: %c_0 = vm.const.i64 -9223372036854775808
// CHECK-NEXT: %c_1 = vm.const.i32 7 {regs = array<i32: 3>}
// CHECK-NEXT: %0 = vm.add.f32 %arg0, %c
// CHECK-NEXT: %1 = vm.max.s.i64 %arg1, %c_0
// CHECK-NEXT: %2 = vm.call.import @hal.buffer.rodata(%c_1) {signature = "i_r"} : (i32) -> !hal.buffer
// CHECK-NEXT: vm.clear.ref %arg2 : !hal.buffer
// CHECK-NEXT: vm.clear.ref %2 : !hal.buffer
// CHECK-NEXT: vm.ret %0, %1, %c_1 : f32, i64, i32
vm.func private @k(%a: f32, %n: i64, %b: !hal.buffer) -> (f32, i64, i32)
    attributes {kiln.signature = (f32, i64, tensor<4xf32>) -> (f32, i64, i32)} {
  %c = vm.const.f32 -1.5
  %m = "vm.const.i64"() {value = -9223372036854775808 : i64} : () -> i64
  %i = vm.const.i32 7 {regs = array<i32: 3>}
  %s = vm.add.f32 %a, %c
  %x = "vm.max.s.i64"(%n, %m) : (i64, i64) -> i64
  %r = "vm.call.import"(%i) {callee = "hal.buffer.rodata", signature = "i_r"} : (i32) -> !hal.buffer
  vm.clear.ref %b : !hal.buffer
  "vm.clear.ref"(%r) : (!hal.buffer) -> ()
  vm.ret %s, %x, %i : f32, i64, i32
}
