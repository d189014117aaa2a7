// An op with no VM lowering in a host function names itself.
// RUN: not kiln-compile %s --compile-to=vm -o - 2>&1 | FileCheck %s
func.func @f(%a: !hal.buffer_view, %x: f32) -> f32 {
  "hal.buffer_view.assert"(%a) {input = 0 : i32, element_type = f32, shape = array<i64: 4>} : (!hal.buffer_view) -> ()
  // CHECK: pass 'convert-to-vm' failed: {{.*}}error-op.mlir:[[@LINE+1]]:8: 'math.sqrt' op has no VM lowering
  %r = math.sqrt %x : f32
  return %r : f32
}
