// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=pair --input=4xf32=1,2,3,4 --input=4xf32=10,20,30,40 | FileCheck %s
// x - y and y - x run one kernel (deduplicate-executables) on swapped
// operands; (x - y) * x and (x - y) * y stay two kernels. Each dispatch
// still computes its own result.
// CHECK: result[0]: 4xf32=-9 -18 -27 -36
// CHECK: result[1]: 4xf32=9 18 27 36
// CHECK: result[2]: 4xf32=-9 -36 -81 -144
// CHECK: result[3]: 4xf32=-90 -360 -810 -1440
func.func @pair(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %s1 = arith.subf %x, %y : tensor<4xf32>
  %s2 = arith.subf %y, %x : tensor<4xf32>
  %d1 = arith.subf %x, %y : tensor<4xf32>
  %p1 = arith.mulf %d1, %x : tensor<4xf32>
  %d2 = arith.subf %x, %y : tensor<4xf32>
  %p2 = arith.mulf %d2, %y : tensor<4xf32>
  return %s1, %s2, %p1, %p2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
