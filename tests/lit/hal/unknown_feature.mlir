// RUN: not kiln-opt %s --assign-targets 2>&1 | FileCheck %s
// A known architecture with an unknown feature: the llvm-cpu parser's
// message (with the valid features) comes through.
// CHECK: assign-targets: target 'llvm-cpu:x86_64+avx512q': unknown x86_64 feature 'avx512q'; valid features: sse2
module attributes {kiln.targets = ["llvm-cpu:x86_64+avx512q"]} {
}
