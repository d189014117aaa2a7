// Round trip of tensor.extract_slice / insert_slice with static, dynamic and
// mixed offsets, sizes and strides, including rank-reducing slices.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @extract_static(%arg0: tensor<8x16xf32>) -> (tensor<4x4xf32>, tensor<2x8xf32>) {
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %arg0[0, 0] [4, 4] [1, 1] : tensor<8x16xf32> to tensor<4x4xf32>
// CHECK-NEXT: %extracted_slice_0 = tensor.extract_slice %arg0[2, 1] [2, 8] [3, 2] : tensor<8x16xf32> to tensor<2x8xf32>
// CHECK-NEXT: return %extracted_slice, %extracted_slice_0 : tensor<4x4xf32>, tensor<2x8xf32>
// CHECK-NEXT: }
func.func @extract_static(%t: tensor<8x16xf32>) -> (tensor<4x4xf32>, tensor<2x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<8x16xf32> to tensor<4x4xf32>
  %1 = tensor.extract_slice %t[2, 1] [2, 8] [3, 2] : tensor<8x16xf32> to tensor<2x8xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<2x8xf32>
}

// CHECK-LABEL: func.func @extract_dynamic(%arg0: tensor<?x?xf32>, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index) -> tensor<?x?xf32> {
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %arg0[%arg1, %arg2] [%arg3, %arg4] [%arg5, %arg5] : tensor<?x?xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %extracted_slice : tensor<?x?xf32>
// CHECK-NEXT: }
func.func @extract_dynamic(%t: tensor<?x?xf32>, %o0: index, %o1: index, %s0: index, %s1: index, %st: index) -> tensor<?x?xf32> {
  %0 = tensor.extract_slice %t[%o0, %o1] [%s0, %s1] [%st, %st] : tensor<?x?xf32> to tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @extract_mixed(%arg0: tensor<?x32x?xf32>, %arg1: index, %arg2: index) -> (tensor<?x16x4xf32>, tensor<16x?xf32>) {
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %arg0[%arg1, 8, 0] [%arg2, 16, 4] [1, 1, %arg2] : tensor<?x32x?xf32> to tensor<?x16x4xf32>
// CHECK-NEXT: %extracted_slice_0 = tensor.extract_slice %arg0[0, 0, %arg1] [1, 16, %arg2] [1, 2, 1] : tensor<?x32x?xf32> to tensor<16x?xf32>
// CHECK-NEXT: return %extracted_slice, %extracted_slice_0 : tensor<?x16x4xf32>, tensor<16x?xf32>
// CHECK-NEXT: }
func.func @extract_mixed(%t: tensor<?x32x?xf32>, %o: index, %s: index) -> (tensor<?x16x4xf32>, tensor<16x?xf32>) {
  %0 = tensor.extract_slice %t[%o, 8, 0] [%s, 16, 4] [1, 1, %s] : tensor<?x32x?xf32> to tensor<?x16x4xf32>
  %1 = tensor.extract_slice %t[0, 0, %o] [1, 16, %s] [1, 2, 1] : tensor<?x32x?xf32> to tensor<16x?xf32>
  return %0, %1 : tensor<?x16x4xf32>, tensor<16x?xf32>
}

// CHECK-LABEL: func.func @insert_static(%arg0: tensor<4x4xf32>, %arg1: tensor<8x16xf32>) -> tensor<8x16xf32> {
// CHECK-NEXT: %inserted_slice = tensor.insert_slice %arg0 into %arg1[4, 8] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x16xf32>
// CHECK-NEXT: return %inserted_slice : tensor<8x16xf32>
// CHECK-NEXT: }
func.func @insert_static(%src: tensor<4x4xf32>, %dst: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = tensor.insert_slice %src into %dst[4, 8] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @insert_mixed(%arg0: tensor<?x4xf32>, %arg1: tensor<16xf32>, %arg2: tensor<?x16xf32>, %arg3: index, %arg4: index) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
// CHECK-NEXT: %inserted_slice = tensor.insert_slice %arg0 into %arg2[%arg3, 2] [%arg4, 4] [1, 3] : tensor<?x4xf32> into tensor<?x16xf32>
// CHECK-NEXT: %inserted_slice_0 = tensor.insert_slice %arg1 into %inserted_slice[%arg3, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<?x16xf32>
// CHECK-NEXT: return %inserted_slice, %inserted_slice_0 : tensor<?x16xf32>, tensor<?x16xf32>
// CHECK-NEXT: }
func.func @insert_mixed(%src: tensor<?x4xf32>, %row: tensor<16xf32>, %dst: tensor<?x16xf32>, %o: index, %s: index) -> (tensor<?x16xf32>, tensor<?x16xf32>) {
  %0 = tensor.insert_slice %src into %dst[%o, 2] [%s, 4] [1, 3] : tensor<?x4xf32> into tensor<?x16xf32>
  %1 = tensor.insert_slice %row into %0[%o, 0] [1, 16] [1, 1] : tensor<16xf32> into tensor<?x16xf32>
  return %0, %1 : tensor<?x16xf32>, tensor<?x16xf32>
}

// CHECK-LABEL: func.func @tile_loop_body(%arg0: tensor<128x256xf32>, %arg1: index, %arg2: index) -> tensor<128x256xf32> {
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %arg0[%arg1, %arg2] [32, 64] [1, 1] : tensor<128x256xf32> to tensor<32x64xf32>
// CHECK-NEXT: %0 = arith.negf %extracted_slice : tensor<32x64xf32>
// CHECK-NEXT: %inserted_slice = tensor.insert_slice %0 into %arg0[%arg1, %arg2] [32, 64] [1, 1] : tensor<32x64xf32> into tensor<128x256xf32>
// CHECK-NEXT: return %inserted_slice : tensor<128x256xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @tile_loop_body(%t: tensor<128x256xf32>, %i: index, %j: index) -> tensor<128x256xf32> {
  %tile = tensor.extract_slice %t[%i, %j] [32, 64] [1, 1] : tensor<128x256xf32> to tensor<32x64xf32>
  %neg = arith.negf %tile : tensor<32x64xf32>
  %r = tensor.insert_slice %neg into %t[%i, %j] [32, 64] [1, 1] : tensor<32x64xf32> into tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}
