// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=flow | FileCheck %s --check-prefix=COUNT
// deduplicate-executables, second round: the steps of an unrolled loop
// read the same windows at other offsets. @steps' five steps each read
// rows [r, r+2) of %x at columns 0 and 1 (the first window stays a slice,
// fold-views folds the second into the generic's map as d0 + r); they
// become one kernel whose row offset is a push constant (an index
// argument), each dispatch passing its own. @three's three steps stay
// three kernels with static offsets (fewer than four copies).
// COUNT-COUNT-4: "flow.executable"
// COUNT-NOT: "flow.executable"
// CHECK: func.func @steps_dispatch_0(
// CHECK-SAME: %arg2: !flow.dispatch.tensor<writeonly:tensor<2x4xf32>>, %arg3: index) {
// CHECK: tensor.extract_slice %0[%arg3, 0] [2, 4] [1, 1]
// CHECK: tensor.extract_slice %0[%arg3, 1] [2, 4] [1, 1]
// CHECK-LABEL: func.func @steps(%arg0
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: "flow.dispatch"(%arg0, %arg1, %[[C2]]) {entry_point = @steps_dispatch_0::@steps_dispatch_0
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: "flow.dispatch"(%arg0, %0, %[[C4]]) {entry_point = @steps_dispatch_0::@steps_dispatch_0
// CHECK: %[[C6:.*]] = arith.constant 6 : index
// CHECK: "flow.dispatch"(%arg0, %1, %[[C6]]) {entry_point = @steps_dispatch_0::@steps_dispatch_0
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: "flow.dispatch"(%arg0, %2, %[[C8]]) {entry_point = @steps_dispatch_0::@steps_dispatch_0
// CHECK: %[[C10:.*]] = arith.constant 10 : index
// CHECK: "flow.dispatch"(%arg0, %3, %[[C10]]) {entry_point = @steps_dispatch_0::@steps_dispatch_0
// CHECK: func.func @three_dispatch_{{[0-9]+}}(%arg0: !flow.dispatch.tensor<readonly:tensor<9x5xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<1x3xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<1x3xf32>>) {
// CHECK: func.func @three_dispatch_{{[0-9]+}}(%arg0: !flow.dispatch.tensor<readonly:tensor<9x5xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<1x3xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<1x3xf32>>) {
// CHECK: func.func @three_dispatch_{{[0-9]+}}(%arg0: !flow.dispatch.tensor<readonly:tensor<9x5xf32>>, %arg1: !flow.dispatch.tensor<readonly:tensor<1x3xf32>>, %arg2: !flow.dispatch.tensor<writeonly:tensor<1x3xf32>>) {
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

func.func @three(%x: tensor<9x5xf32>, %h: tensor<1x3xf32>) -> (tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>) {
  %a0 = tensor.extract_slice %x[2, 1] [1, 3] [1, 1] : tensor<9x5xf32> to tensor<1x3xf32>
  %h0 = arith.addf %a0, %h : tensor<1x3xf32>
  %a1 = tensor.extract_slice %x[4, 1] [1, 3] [1, 1] : tensor<9x5xf32> to tensor<1x3xf32>
  %h1 = arith.addf %a1, %h0 : tensor<1x3xf32>
  %a2 = tensor.extract_slice %x[6, 1] [1, 3] [1, 1] : tensor<9x5xf32> to tensor<1x3xf32>
  %h2 = arith.addf %a2, %h1 : tensor<1x3xf32>
  return %h0, %h1, %h2 : tensor<1x3xf32>, tensor<1x3xf32>, tensor<1x3xf32>
}
