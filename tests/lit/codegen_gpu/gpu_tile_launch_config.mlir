// RUN: kiln-opt --select-gpu-launch-config %s | FileCheck %s --check-prefix=SM80
// RUN: sed s/cuda:sm_80/cuda:sm_90/ %s | kiln-opt --select-gpu-launch-config - | FileCheck %s --check-prefix=SM90
// select-gpu-launch-config: f32 matmul roots get the shared-memory tiling
// per SM: 64x64 block tiles on both, 2 warps with 8x8 thread tiles and
// 16-deep K steps on sm_80, 4 warps with 4x8 thread tiles and 32-deep K
// steps on sm_90. Block tiles and K steps are clamped to the matmul's
// sizes, thread tiles shrink until every thread has one (@small: 3x3
// outputs, 1x1 per thread). The workgroup tiles stay the CPU rule's (the
// host dispatches one grid for every variant). Other roots get none.

module attributes {kiln.target = "cuda:sm_80"} {
  func.func @mm() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<130x68xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<68x260xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<130x260xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%2 : memref<130x260xf32>)
    linalg.matmul ins(%0, %1 : memref<130x68xf32>, memref<68x260xf32>) outs(%2 : memref<130x260xf32>)
    return
  }
  func.func @small() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<2x3x5xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<2x5x3xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<2x3x3xf32>
    linalg.batch_matmul ins(%0, %1 : memref<2x3x5xf32>, memref<2x5x3xf32>) outs(%2 : memref<2x3x3xf32>)
    return
  }
  func.func @relu() {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1000xf32>
    %cst = arith.constant 0.000000e+00 : f32
    linalg.fill ins(%cst : f32) outs(%0 : memref<1000xf32>)
    return
  }
}

// SM80-LABEL: func.func @mm() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>, block_tile = array<i64: 64, 64>, k_step = 16 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 8, 8>, tile_sizes = array<i64: 64, 64, 0>, vector_width = 4 : i64, workgroup_count = array<i64: 5, 3, 1>, workgroup_size = array<i64: 1, 1, 1>}}
// SM80-LABEL: func.func @small() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>, block_tile = array<i64: 3, 3>, k_step = 5 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 1, 1>,
// SM80-LABEL: func.func @relu() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>, pipeline = "gpu-elementwise", tile_sizes

// SM90-LABEL: func.func @mm() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, block_tile = array<i64: 64, 64>, k_step = 32 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 4, 8>, tile_sizes = array<i64: 64, 64, 0>, vector_width = 4 : i64, workgroup_count = array<i64: 5, 3, 1>, workgroup_size = array<i64: 1, 1, 1>}}
// SM90-LABEL: func.func @small() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, block_tile = array<i64: 3, 3>, k_step = 5 : i64, pipeline = "gpu-matmul-shared", thread_tile = array<i64: 1, 1>,
// SM90-LABEL: func.func @relu() attributes {kiln.launch = {block_size = array<i64: 128, 1, 1>, pipeline = "gpu-elementwise", tile_sizes
