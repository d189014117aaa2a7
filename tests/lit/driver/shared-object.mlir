// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-dump %t.kiln | FileCheck %s
// RUN: kiln-run --module=%t.kiln --input=1x3x6x6xf32=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 | FileCheck %s --check-prefix=OUT
// RUN: kiln-run --module=%t.kiln --device=local-task --input=1x3x6x6xf32=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 | FileCheck %s --check-prefix=OUT
// compile-llvm-cpu links the variants that share a name and a target into
// one shared object, each executable's query named
// kiln_executable_query.EXECUTABLE, and the builder stores it once: two
// convolutions too big for link-executables to merge stay two executables
// whose variants refer to one segment, which the runtime maps once and
// finds each executable's export table in (kiln-run's results: 3x3x3 ones
// summed, 27; then 5x3x3 of those times 0.5, 607.5).
// CHECK: executables (2):
// CHECK: [0] two_dispatch_0
// CHECK: llvm-cpu:x86_64, ELF, {{.*}} segment [[SEG:[0-9]+]]
// CHECK: [1] two_dispatch_1
// CHECK: llvm-cpu:x86_64, ELF, {{.*}} segment [[SEG]]
// CHECK: segments (3):
//
// OUT: result[0]: 1x5x4x4xf32={{(\[|27| |\])+$}}
// OUT: result[1]: 1x4x2x2xf32={{(\[|607\.5| |\])+$}}
func.func @two(%x: tensor<1x3x6x6xf32>) -> (tensor<1x5x4x4xf32>, tensor<1x4x2x2xf32>) {
  %z = arith.constant 0.0 : f32
  %w = arith.constant dense<1.0> : tensor<5x3x3x3xf32>
  %v = arith.constant dense<0.5> : tensor<4x5x3x3xf32>
  %e = tensor.empty() : tensor<1x5x4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x6x6xf32>, tensor<5x3x3x3xf32>) outs(%f : tensor<1x5x4x4xf32>) -> tensor<1x5x4x4xf32>
  %e2 = tensor.empty() : tensor<1x4x2x2xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  %d = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%c, %v : tensor<1x5x4x4xf32>, tensor<4x5x3x3xf32>) outs(%f2 : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %c, %d : tensor<1x5x4x4xf32>, tensor<1x4x2x2xf32>
}
