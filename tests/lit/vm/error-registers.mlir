// Hand-written vm-level input with registers outside the function's banks
// is refused at emission, naming the op, instead of producing bytecode the
// loader would reject.
// RUN: not kiln-compile %s -o %t.kiln 2>&1 | FileCheck %s
vm.func @f(%a: !hal.buffer_view) -> !hal.buffer_view
    attributes {arg_regs = array<i32: 0>, scalar_count = 2 : i32, ref_count = 1 : i32,
                kiln.signature = (tensor<4xf32>) -> tensor<4xf32>} {
  // CHECK: kiln-compile: error: {{.*}}error-registers.mlir:[[@LINE+1]]:8: 'vm.const.i64' op register 1 is outside the function's scalar bank (2)
  %c = vm.const.i64 4 {regs = array<i32: 1>}
  vm.ret %a : !hal.buffer_view
}
