// RUN: not kiln-opt --gpu-tile-matmul-shared %s 2>&1 | FileCheck %s
// RUN: sed -e 's/module attributes {kiln.target = "llvm-cpu"}/module attributes {kiln.target = "rocm"}/' %s | not kiln-opt --select-gpu-launch-config - 2>&1 | FileCheck %s --check-prefix=TARGET
// A hand-written kiln.launch whose thread tile needs more accumulators
// than a thread can hold is refused with the kernel's location; the
// launch-config pass needs a cuda:sm_NN target.

module attributes {kiln.target = "llvm-cpu"} {
  func.func @big() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>, block_tile = array<i64: 128, 128>, k_step = 8 : i64, thread_tile = array<i64: 128, 4>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<128x8xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<8x128xf32>
    %2 = hal.interface.binding {binding = 2 : i32} : memref<128x128xf32>
    linalg.matmul ins(%0, %1 : memref<128x8xf32>, memref<8x128xf32>) outs(%2 : memref<128x128xf32>)
    return
  }
}

// CHECK: gpu_tile_errors.mlir:8:3: {{.*}}gpu-tile-matmul-shared: thread tile 128x4 needs more than 256 accumulators
// TARGET: select-gpu-launch-config: the module needs kiln.target = "cuda:sm_NN"
