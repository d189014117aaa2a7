// RUN: kiln-compile %s --target=cuda:sm_90 -o %t.gpu.kiln --print-ir-after=select-gpu-launch-config 2>&1 >/dev/null | FileCheck %s --check-prefix=GPU
// RUN: kiln-compile %s --target=cuda:sm_90 --target=llvm-cpu -o %t.both.kiln --print-ir-after=select-gpu-launch-config 2>&1 >/dev/null | FileCheck %s --check-prefix=BOTH
// A streamed matmul (one row, a 64 MiB B: cg_streamed_matmul) takes the
// CPU's wide column tiles (4 of 1024) where a CPU variant shares the
// grid; an executable of GPU variants only takes 64-column tiles like
// other matmuls (64 blocks for the SMs, not 4).
// GPU: tile_sizes = array<i64: 1, 64, 0>, vector_width = 4 : i64, workgroup_count = array<i64: 64, 1, 1>
// BOTH: tile_sizes = array<i64: 1, 1024, 0>, vector_width = 4 : i64, workgroup_count = array<i64: 4, 1, 1>
func.func @main(%x: tensor<1x4096xf32>, %w: tensor<4096x4096xf32>) -> tensor<1x4096xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4096xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x4096xf32>, tensor<4096x4096xf32>) outs(%f : tensor<1x4096xf32>) -> tensor<1x4096xf32>
  return %y : tensor<1x4096xf32>
}
