// Kernels that leave part of their result unwritten (an insert into an
// empty tensor: undefined in MLIR, zeros in Kiln's buffers) next to ones
// that write all of it, for uninitialized_check.c. @dirty and @dirty_t
// fill a result and an intermediate of the same sizes as @partial's and
// @partial_t's with nonzero values, in buffers the device's pool hands
// out again.
func.func @dirty(%a: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 7.0 : f32
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %r : tensor<65536xf32>
}
// result = a in the first half, then 0 (the zeroed rest), plus 1
func.func @partial(%a: tensor<32768xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %i = tensor.insert_slice %a into %e[0] [32768] [1] : tensor<32768xf32> into tensor<65536xf32>
  %e2 = tensor.empty() : tensor<65536xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%i : tensor<65536xf32>) outs(%e2 : tensor<65536xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 1.0 : f32
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<65536xf32>
  return %r : tensor<65536xf32>
}
// (a + 7) @ b: the sum lives in the transient arena
func.func @dirty_t(%a: tensor<256x512xf32>, %b: tensor<512x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%x: f32, %o: f32):
    %c = arith.constant 7.0 : f32
    %y = arith.addf %x, %c : f32
    linalg.yield %y : f32
  } -> tensor<256x512xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.matmul ins(%m, %b : tensor<256x512xf32>, tensor<512x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}
// [a, 0; 0, 0] @ b: the padded operand lives in the transient arena
func.func @partial_t(%a: tensor<128x256xf32>, %b: tensor<512x64xf32>) -> tensor<256x64xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %i = tensor.insert_slice %a into %e[0, 0] [128, 256] [1, 1] : tensor<128x256xf32> into tensor<256x512xf32>
  %z = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<256x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e2 : tensor<256x64xf32>) -> tensor<256x64xf32>
  %r = linalg.matmul ins(%i, %b : tensor<256x512xf32>, tensor<512x64xf32>) outs(%f : tensor<256x64xf32>) -> tensor<256x64xf32>
  return %r : tensor<256x64xf32>
}
