// RUN: kiln-opt %s | FileCheck %s
// RUN: sed 's/width = 32/width = 16/' %s | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=WIDTH
// RUN: sed 's/offset = 8/offset = 32/' %s | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=OFFSET
// RUN: sed 's/f32/f64/g' %s | not kiln-opt - 2>&1 | FileCheck %s --check-prefix=TYPE
// hal.interface.shuffle: the full 32-lane warp, an xor offset in [1, 32),
// an f32 or i32 value; anything else is a verifier error at the op.
module {
  func.func @k(%x: f32, %i: i32) -> (f32, i32) {
    %y = "hal.interface.shuffle"(%x) {offset = 8 : i32, width = 32 : i32} : (f32) -> f32
    %j = "hal.interface.shuffle"(%i) {offset = 1 : i32, width = 32 : i32} : (i32) -> i32
    return %y, %j : f32, i32
  }
}

// CHECK: "hal.interface.shuffle"(%{{.*}}) {offset = 8 : i32, width = 32 : i32} : (f32) -> f32
// CHECK: "hal.interface.shuffle"(%{{.*}}) {offset = 1 : i32, width = 32 : i32} : (i32) -> i32
// WIDTH: 9:10: error: 'hal.interface.shuffle' op requires 'width = 32' (the warp size)
// OFFSET: 9:10: error: 'hal.interface.shuffle' op requires an integer 'offset' in [1, 32)
// TYPE: 9:10: error: 'hal.interface.shuffle' op operand must be f32 or i32
