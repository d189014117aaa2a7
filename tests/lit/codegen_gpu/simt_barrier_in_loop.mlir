// RUN: kiln-opt --simt-to-loops %s | FileCheck %s
// Barriers inside an scf.for with thread-uniform bounds (the shape of a
// shared-memory tiled K loop: load a tile, barrier, use it, barrier) and
// inside a uniform scf.if: the K loop stays outside the thread loops and
// each of its segments gets its own `scf.for` over the 32 threads. The
// per-thread accumulator (an iter_arg) lives in a per-thread slot array
// (memref<32xf32>): stored before the loop, loaded and stored in the
// body, loaded after it. The thread id is recomputed in each segment (the
// thread loop's index), the tile is shared (memref.alloca in space 3).

module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 32, 1, 1>}} {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x32xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<32xf32>
    %tile = memref.alloca() : memref<32xf32, 3>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %c31 = arith.constant 31 : index
    %zero = arith.constant 0.0 : f32
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%s = %zero) -> (f32) {
      %x = memref.load %a[%k, %t] : memref<4x32xf32>
      memref.store %x, %tile[%t] : memref<32xf32, 3>
      "hal.interface.barrier"() : () -> ()
      %r = arith.subi %c31, %t : index
      %y = memref.load %tile[%r] : memref<32xf32, 3>
      %s2 = arith.addf %s, %y : f32
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        "hal.interface.barrier"() : () -> ()
      }
      "hal.interface.barrier"() : () -> ()
      scf.yield %s2 : f32
    }
    memref.store %acc, %o[%t] : memref<32xf32>
    return
  }
}

// CHECK-LABEL: func.func @k()
// CHECK: %[[OUT:.*]] = memref.alloca() : memref<32xf32>
// CHECK-NEXT: %[[ACC:.*]] = memref.alloca() : memref<32xf32>
// CHECK: %[[TILE:.*]] = memref.alloca() : memref<32xf32, 3>
// The accumulator's initial value, per thread.
// CHECK: scf.for %[[T0:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: memref.store %{{.*}}, %[[ACC]][%[[T0]]] : memref<32xf32>
// CHECK-NEXT: }
// The K loop: no iter_args, thread loops inside.
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[T1:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[K]], %[[T1]]] : memref<4x32xf32>
// CHECK-NEXT: memref.store %[[X]], %[[TILE]][%[[T1]]] : memref<32xf32, 3>
// CHECK-NEXT: }
// After the first barrier: the partner's element, the accumulator update
// (kept in a slot until the yield's segment).
// CHECK: %[[F:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// CHECK-NEXT: scf.for %[[T2:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: %[[R:.*]] = arith.subi %{{.*}}, %[[T2]] : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[TILE]][%[[R]]] : memref<32xf32, 3>
// CHECK-NEXT: %[[S:.*]] = memref.load %[[ACC]][%[[T2]]] : memref<32xf32>
// CHECK-NEXT: %[[S2:.*]] = arith.addf %[[S]], %[[Y]] : f32
// CHECK-NEXT: memref.store %[[S2]], %[[OUT]][%[[T2]]] : memref<32xf32>
// CHECK-NEXT: }
// The uniform scf.if keeps its condition; its barrier is gone.
// CHECK-NEXT: scf.if %[[F]] {
// CHECK-NEXT: }
// The yield's segment: the accumulator for the next iteration.
// CHECK: scf.for %[[T3:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: %[[V:.*]] = memref.load %[[OUT]][%[[T3]]] : memref<32xf32>
// CHECK-NEXT: memref.store %[[V]], %[[ACC]][%[[T3]]] : memref<32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// After the K loop: every thread's accumulator to the output.
// CHECK: scf.for %[[T4:.*]] = %{{.*}} to %c32{{.*}} step
// CHECK-NEXT: %[[Z:.*]] = memref.load %[[ACC]][%[[T4]]] : memref<32xf32>
// CHECK-NEXT: memref.store %[[Z]], %{{.*}}[%[[T4]]] : memref<32xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NOT: hal.interface
