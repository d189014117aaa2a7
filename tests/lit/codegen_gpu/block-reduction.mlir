// RUN: kiln-opt-gpu --distribute-to-threads %s | FileCheck %s
// Block-wide reduction: 3 outputs over 1000 rows leave no parallel loop
// worth splitting, so every thread reduces its chunk of the rows into its
// own 3 partials in workgroup memory (memory space 3), starting from the
// combiner's identity (0 for addf); after a barrier thread 0 folds the
// launched threads' partials into the output, in thread order.

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
// CHECK-NEXT: %[[P:.*]] = memref.alloca() : memref<192xf32, 3>
// CHECK: %[[T:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK-NEXT: %[[N:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK: %[[B:.*]] = arith.muli %[[T]], %c3 : index
// CHECK: %[[V:.*]] = memref.subview %[[P]][%[[B]]] [3] [1] : memref<192xf32, 3> to memref<3xf32, strided<[1], offset: ?>, 3>
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %{{.*}}, %[[V]][%{{.*}}] : memref<3xf32, strided<[1], offset: ?>, 3>
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [%{{.*}}, 3] [1, 1] : memref<1000x3xf32> to memref<?x3xf32, strided<[3, 1], offset: ?>>
// CHECK-NEXT: linalg.reduce ins(%[[IN]] : memref<?x3xf32, strided<[3, 1], offset: ?>>) outs(%[[V]] : memref<3xf32, strided<[1], offset: ?>, 3>) dimensions = [0]
// CHECK: "hal.interface.barrier"() : () -> ()
// CHECK: scf.if
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[O:.*]] = memref.load %{{.*}}[%[[Q]]] : memref<3xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[O]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %[[P]][%{{.*}}] : memref<192xf32, 3>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[Q]]] : memref<3xf32>
