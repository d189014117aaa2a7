// Ops on types approximate-math does not handle stay (f16), and the
// translation then refuses them by name instead of emitting a libm call.
// RUN: kiln-translate --approximate-math --print-ir %s | FileCheck %s
// RUN: not kiln-translate --approximate-math %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @half
// CHECK: math.exp %{{.*}} : f16
// ERR: approximate-math-f16.mlir:10:8: 'math.exp' op would become a libm call
func.func @half(%x: f16) -> f16 {
  %0 = math.exp %x : f16
  return %0 : f16
}
