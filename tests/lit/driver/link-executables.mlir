// RUN: kiln-compile %s --compile-to=codegen -o - | FileCheck %s
// link-executables alone, on the IR before it, gives the same:
// RUN: kiln-compile %s --compile-to=codegen --print-ir-after=scf-to-cf -o /dev/null 2>&1 \
// RUN:   | kiln-opt --link-executables | FileCheck %s
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s --check-prefix=DUMP
// RUN: kiln-run --module=%t.kiln --function=pair --input=4xf32=1,2,3,4 --input=4xf32=10,20,30,40 | FileCheck %s --check-prefix=OUT
// link-executables: small executables become one, with one export each
// (ordinals in module order), and each dispatch names that executable and
// its export's ordinal. Here x - y and y - x are one kernel
// (deduplicate-executables), and so are (x - y) * x and (x - y) * y once
// canonicalize has computed x - y once: two kernels, one executable.
// CHECK-COUNT-1: "hal.executable"()
// CHECK-NOT: "hal.executable"()
// CHECK: "hal.executable.export"() {{{.*}}ordinal = 0 : i32{{.*}}sym_name = "pair_dispatch_0"
// CHECK: "hal.executable.export"() {{{.*}}ordinal = 1 : i32{{.*}}sym_name = "pair_dispatch_2"
// CHECK: func.func @pair_dispatch_0()
// CHECK: arith.subf
// CHECK: func.func @pair_dispatch_2()
// CHECK: arith.mulf
// CHECK: sym_name = "pair_dispatch_0", sym_visibility = "private"
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @pair_dispatch_0, {{.*}}ordinal = 0 : i32
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @pair_dispatch_0, {{.*}}ordinal = 0 : i32
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @pair_dispatch_0, {{.*}}ordinal = 1 : i32
// CHECK: "hal.command_buffer.dispatch"({{.*}}executable = @pair_dispatch_0, {{.*}}ordinal = 1 : i32
//
// The module holds one executable, one shared object, two exports.
// DUMP: executables (1):
// DUMP-NEXT: [0] pair_dispatch_0
// DUMP-NEXT: exports (2):
// DUMP-NEXT: [0] pair_dispatch_0:
// DUMP-NEXT: [1] pair_dispatch_2:
// DUMP-NEXT: variants (1):
//
// OUT: result[0]: 4xf32=-9 -18 -27 -36
// OUT: result[1]: 4xf32=9 18 27 36
// OUT: result[2]: 4xf32=-9 -36 -81 -144
// OUT: result[3]: 4xf32=-90 -360 -810 -1440
func.func @pair(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s1 = arith.subf %x, %y : tensor<4xf32>
  %s2 = arith.subf %y, %x : tensor<4xf32>
  %d1 = arith.subf %x, %y : tensor<4xf32>
  %p1 = arith.mulf %d1, %x : tensor<4xf32>
  %d2 = arith.subf %x, %y : tensor<4xf32>
  %p2 = arith.mulf %d2, %y : tensor<4xf32>
  return %s1, %s2, %p1, %p2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
