// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=steps --input=12x6xf32=0,0.125,0.25,0.375,0.5,0.625,0.75,0.875,1,1.125,1.25,1.375,1.5,1.625,1.75,1.875,2,2.125,2.25,2.375,2.5,2.625,2.75,2.875,3,3.125,3.25,3.375,3.5,3.625,3.75,3.875,4,4.125,4.25,4.375,4.5,4.625,4.75,4.875,5,5.125,5.25,5.375,5.5,5.625,5.75,5.875,6,6.125,6.25,6.375,6.5,6.625,6.75,6.875,7,7.125,7.25,7.375,7.5,7.625,7.75,7.875,8,8.125,8.25,8.375,8.5,8.625,8.75,8.875 --input=2x4xf32=0,0,0,0,0,0,0,0 | FileCheck %s
// The five steps run one kernel (deduplicate-executables' second round)
// with their row offset r = 2, 4, ..., 10 as a push constant; each step
// h = x[r:r+2, 0:4] * x[r:r+2, 1:5] + h must read its own rows
// (x = 0, 1/8, 2/8, ... row-major; numpy's values).
// CHECK: result[0]: 2x4xf32=[2.4375 2.84375 3.28125 3.75][5.34375 5.9375 6.5625 7.21875]
// CHECK: result[1]: 2x4xf32=[11.8125 13 14.25 15.5625][19.875 21.4375 23.0625 24.75]
// CHECK: result[2]: 2x4xf32=[32.625 34.9688 37.4062 39.9375][48.0938 51 54 57.0938]
// CHECK: result[3]: 2x4xf32=[69.375 73.25 77.25 81.375][94.5 99.125 103.875 108.75]
// CHECK: result[4]: 2x4xf32=[126.562 132.344 138.281 144.375][163.594 170.312 177.188 184.219]
func.func @steps(%x: tensor<12x6xf32>, %h: tensor<2x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %a0 = tensor.extract_slice %x[2, 0] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %b0 = tensor.extract_slice %x[2, 1] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %m0 = arith.mulf %a0, %b0 : tensor<2x4xf32>
  %h0 = arith.addf %m0, %h : tensor<2x4xf32>
  %a1 = tensor.extract_slice %x[4, 0] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %b1 = tensor.extract_slice %x[4, 1] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %m1 = arith.mulf %a1, %b1 : tensor<2x4xf32>
  %h1 = arith.addf %m1, %h0 : tensor<2x4xf32>
  %a2 = tensor.extract_slice %x[6, 0] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %b2 = tensor.extract_slice %x[6, 1] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %m2 = arith.mulf %a2, %b2 : tensor<2x4xf32>
  %h2 = arith.addf %m2, %h1 : tensor<2x4xf32>
  %a3 = tensor.extract_slice %x[8, 0] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %b3 = tensor.extract_slice %x[8, 1] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %m3 = arith.mulf %a3, %b3 : tensor<2x4xf32>
  %h3 = arith.addf %m3, %h2 : tensor<2x4xf32>
  %a4 = tensor.extract_slice %x[10, 0] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %b4 = tensor.extract_slice %x[10, 1] [2, 4] [1, 1] : tensor<12x6xf32> to tensor<2x4xf32>
  %m4 = arith.mulf %a4, %b4 : tensor<2x4xf32>
  %h4 = arith.addf %m4, %h3 : tensor<2x4xf32>
  return %h0, %h1, %h2, %h3, %h4 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}
