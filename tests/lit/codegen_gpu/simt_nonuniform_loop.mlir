// RUN: not kiln-opt --simt-to-loops %s 2>&1 | FileCheck %s
// A barrier inside a loop whose trip count differs per thread (loaded
// from memory) is refused: threads would not meet at it.
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 32, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<32xindex>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %n = memref.load %0[%t] : memref<32xindex>
    scf.for %i = %c0 to %n step %c1 {
      "hal.interface.barrier"() : () -> ()
    }
    return
  }
}

// CHECK: simt_nonuniform_loop.mlir:11:5: 'scf.for' op simt-to-loops: a barrier (or warp shuffle) under thread-dependent control flow: the scf.for bounds depend on the thread
