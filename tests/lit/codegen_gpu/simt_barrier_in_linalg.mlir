// RUN: not kiln-opt --simt-to-loops %s 2>&1 | FileCheck %s
// Barriers only nest in scf.for and scf.if: anything else is named.
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 32, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<4x32xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
    linalg.reduce ins(%0 : memref<4x32xf32>) outs(%1 : memref<4xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        "hal.interface.barrier"() : () -> ()
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return
  }
}

// CHECK: simt_barrier_in_linalg.mlir:7:5: 'linalg.reduce' op simt-to-loops: a barrier (or warp shuffle) inside 'linalg.reduce' is not supported
