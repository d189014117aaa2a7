// RUN: kiln-opt --distribute-to-threads %s | FileCheck %s
// Block-wide reduction: 3 outputs over 1000 rows leave no parallel loop
// worth splitting, so every thread reduces its chunk of the rows into its
// own 3 partials in workgroup memory (memory space 3), starting from the
// combiner's identity (0 for addf). Then, for each output (a loop with
// uniform bounds): the partial is reduced within the warp by butterfly
// shuffles (xor 16, 8, 4, 2, 1), lane 0 of each warp writes workgroup
// memory (one slot per warp), barrier, every warp reduces those slots the
// same way (lanes past the launched warps take the identity), barrier
// (the slots are reused), thread 0 adds the result into the output. The kernel records the warp
// size it assumes (kiln.warp_size = 32).

module {
  func.func @col_sums() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<1000x3xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<3xf32>
    linalg.reduce ins(%0 : memref<1000x3xf32>) outs(%1 : memref<3xf32>) dimensions = [0]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return
  }
}

// CHECK-LABEL: func.func @col_sums()
// CHECK-SAME: kiln.warp_size = 32 : i64
// CHECK-NEXT: %[[W:.*]] = memref.alloca() : memref<2xf32, 3>
// CHECK-NEXT: %[[P:.*]] = memref.alloca() : memref<192xf32, 3>
// CHECK: %[[T:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: %[[B:.*]] = arith.muli %[[T]], %c3 : index
// CHECK: %[[V:.*]] = memref.subview %[[P]][%[[B]]] [3] [1] : memref<192xf32, 3> to memref<3xf32, strided<[1], offset: ?>, 3>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %{{.*}}, %[[V]][%{{.*}}] : memref<3xf32, strided<[1], offset: ?>, 3>
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [%{{.*}}, 3] [1, 1] : memref<1000x3xf32> to memref<?x3xf32, strided<[3, 1], offset: ?>>
// CHECK-NEXT: linalg.reduce ins(%[[IN]] : memref<?x3xf32, strided<[3, 1], offset: ?>>) outs(%[[V]] : memref<3xf32, strided<[1], offset: ?>, 3>) dimensions = [0]
// CHECK: %[[T2:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N2:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: %[[LANE:.*]] = arith.remui %[[T2]], %c32 : index
// CHECK-NEXT: %[[WARP:.*]] = arith.divui %[[T2]], %c32 : index
// CHECK-NEXT: %[[NW:.*]] = arith.ceildivui %[[N2]], %c32 : index
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[X:.*]] = memref.load %[[P]][%{{.*}}] : memref<192xf32, 3>
// CHECK-NEXT: %[[S16:.*]] = "hal.interface.shuffle"(%[[X]]) {offset = 16 : i32, width = 32 : i32} : (f32) -> f32
// CHECK-NEXT: %[[A16:.*]] = arith.addf %[[X]], %[[S16]] : f32
// CHECK-NEXT: "hal.interface.shuffle"(%[[A16]]) {offset = 8 : i32, width = 32 : i32}
// CHECK: "hal.interface.shuffle"(%{{.*}}) {offset = 1 : i32, width = 32 : i32}
// CHECK-NEXT: %[[R1:.*]] = arith.addf
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: memref.store %[[R1]], %[[W]][%[[WARP]]] : memref<2xf32, 3>
// CHECK-NEXT: }
// CHECK-NEXT: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: %[[WX:.*]] = memref.load %[[W]][%{{.*}}] : memref<2xf32, 3>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[WX]], %{{.*}} : f32
// CHECK-NEXT: "hal.interface.shuffle"(%[[SEL]]) {offset = 16 : i32, width = 32 : i32}
// CHECK: "hal.interface.shuffle"(%{{.*}}) {offset = 1 : i32, width = 32 : i32}
// CHECK-NEXT: %[[R2:.*]] = arith.addf
// CHECK-NEXT: "hal.interface.barrier"() : () -> ()
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: %[[O:.*]] = memref.load %{{.*}}[%[[Q]]] : memref<3xf32>
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[O]], %[[R2]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %{{.*}}[%[[Q]]] : memref<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
