// RUN: kiln-opt --simt-to-loops %s | FileCheck %s
// simt-to-loops: the body is cut at each barrier; each part's
// thread-dependent ops and side effects run in one loop over the block's
// 32 threads (block_size), the thread id is the loop's index, the block
// size the constant 32, and thread-independent pure ops (the ceildiv of
// the constant extent by the block size) stay before the loop.

module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 32, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<40xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<40xf32>
    %cst = arith.constant 2.000000e+00 : f32
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %n = hal.interface.workgroup.size {dim = 0 : i32} : index
    %c40 = arith.constant 40 : index
    %c = arith.ceildivsi %c40, %n : index
    %s = arith.muli %t, %c : index
    %x = memref.load %0[%s] : memref<40xf32>
    memref.store %x, %1[%s] : memref<40xf32>
    "hal.interface.barrier"() : () -> ()
    %t2 = hal.interface.thread.id {dim = 0 : i32} : index
    %y = memref.load %1[%t2] : memref<40xf32>
    %z = arith.mulf %y, %cst : f32
    memref.store %z, %0[%t2] : memref<40xf32>
    return
  }
}

// CHECK-LABEL: func.func @k()
// CHECK: %[[C:.*]] = arith.ceildivsi %{{.*}}, %c32{{.*}} : index
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %[[C32:.*]] step %{{.*}} {
// CHECK-NEXT: %[[S:.*]] = arith.muli %[[T]], %[[C]] : index
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[S]]] : memref<40xf32>
// CHECK-NEXT: memref.store %[[X]], %{{.*}}[%[[S]]] : memref<40xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[Y:.*]] = memref.load %{{.*}}[%[[T2]]] : memref<40xf32>
// CHECK-NEXT: arith.mulf %[[Y]]
// CHECK-NEXT: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NOT: hal.interface.thread.id
// CHECK-NOT: hal.interface.barrier

