// RUN: not kiln-opt %s --pass-pipeline=flow,hal 2>&1 | FileCheck %s
// An unknown target fails assign-targets with the list of valid ones.
// CHECK: pass 'assign-targets' failed: assign-targets: unknown target 'vulkan'; valid targets: llvm-cpu[:ARCH[+FEATURE...]] with ARCH one of host, x86_64, aarch64, riscv64; cuda:SM with SM one of sm_75, sm_80
module attributes {kiln.targets = ["llvm-cpu:x86_64", "vulkan"]} {
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
}
