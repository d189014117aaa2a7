// RUN: not kiln-opt-gpu --simt-to-loops %s 2>&1 | FileCheck %s
// A per-thread value (the loaded element) used after a barrier: it would
// need per-thread storage, which simt-to-loops does not make.
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 8, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<8xf32>
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %x = memref.load %0[%t] : memref<8xf32>
    "hal.interface.barrier"() : () -> ()
    memref.store %x, %0[%t] : memref<8xf32>
    return
  }
}

// CHECK: simt-across-barrier.mlir:7:10: 'hal.interface.thread.id' op simt-to-loops: a per-thread value is used across a barrier
