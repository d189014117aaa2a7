// RUN: not kiln-opt --simt-to-loops %s 2>&1 | FileCheck %s
// A barrier under a condition that depends on the thread (CUDA: undefined
// behaviour, threads would wait for each other forever) is refused with
// the op's location, as is one inside a loop whose bound is per thread.
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 32, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<32xf32>
    %c0 = arith.constant 0 : index
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %p = arith.cmpi eq, %t, %c0 : index
    scf.if %p {
      "hal.interface.barrier"() : () -> ()
    }
    return
  }
}

// CHECK: simt_nonuniform_barrier.mlir:11:5: 'scf.if' op simt-to-loops: a barrier (or warp shuffle) under thread-dependent control flow: the scf.if condition depends on the thread
