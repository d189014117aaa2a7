// REQUIRES: kiln-compile kiln-run
// RUN: kiln-opt %s --inline-calls -o %t.mlir
// RUN: kiln-compile %t.mlir -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=calls --input=3xf32=1,2,3 | FileCheck %s
// A program with calls, inlined by inline-calls (kiln-compile's flow
// stage does not run it yet), then compiled and run: 2(2x+1)+1-x = 3x+3.
// CHECK: result[0]: 3xf32=6 9 12
func.func @calls(%x: tensor<3xf32>) -> tensor<3xf32> {
  %a = call @twice_plus_one(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %b = call @twice_plus_one(%a) : (tensor<3xf32>) -> tensor<3xf32>
  %c = arith.subf %b, %x : tensor<3xf32>
  return %c : tensor<3xf32>
}
func.func private @twice_plus_one(%x: tensor<3xf32>) -> tensor<3xf32> {
  %one = arith.constant dense<1.0> : tensor<3xf32>
  %d = arith.addf %x, %x : tensor<3xf32>
  %r = arith.addf %d, %one : tensor<3xf32>
  return %r : tensor<3xf32>
}
