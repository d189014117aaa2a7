// RUN: kiln-opt --simt-to-loops %s | FileCheck %s
// A per-thread value (the loaded element) used after a barrier goes
// through a per-thread slot array (one element per thread): stored in the
// segment that defines it, loaded in the one that uses it. The thread id
// itself is recomputed (each segment's thread loop index).
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 8, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<8xf32>
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %x = memref.load %0[%t] : memref<8xf32>
    "hal.interface.barrier"() : () -> ()
    %c7 = arith.constant 7 : index
    %r = arith.subi %c7, %t : index
    memref.store %x, %0[%r] : memref<8xf32>
    return
  }
}

// CHECK-LABEL: func.func @k()
// CHECK-NEXT: %[[SLOT:.*]] = memref.alloca() : memref<8xf32>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[T]]] : memref<8xf32>
// CHECK-NEXT: memref.store %[[X]], %[[SLOT]][%[[T]]] : memref<8xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %c8{{.*}} step
// CHECK-NEXT: %[[R:.*]] = arith.subi %{{.*}}, %[[T2]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[SLOT]][%[[T2]]] : memref<8xf32>
// CHECK-NEXT: memref.store %[[Y]], %{{.*}}[%[[R]]] : memref<8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
