// RUN: kiln-opt --distribute-to-threads %s | FileCheck %s
// RUN: kiln-opt --distribute-to-threads --simt-to-loops %s | FileCheck %s --check-prefix=SIMT
// A softmax over 2 rows of 1000 (few, long rows) is shared by the whole
// block: per row (a loop with uniform bounds), each thread takes its chunk
// [t*c, min(t*c + c, 1000)), c = ceil(1000 / threads); the chunk's max
// becomes the block's max by warp shuffles and one slot per warp in
// workgroup memory (barriers in the row loop), likewise the sum of
// exp(x - max); the chunk is then scaled by 1 / sum.
module {
  func.func @softmax() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<2x1000xf32>
    %1 = hal.interface.binding {binding = 1 : i32} : memref<2x1000xf32>
    linalg.softmax dimension(1) ins(%0 : memref<2x1000xf32>) outs(%1 : memref<2x1000xf32>)
    return
  }
}

// CHECK-LABEL: func.func @softmax()
// CHECK-SAME: kiln.warp_size = 32 : i64
// CHECK-NEXT: %[[W:.*]] = memref.alloca() : memref<2xf32, 3>
// CHECK: %[[T:.*]] = hal.interface.thread.id {dim = 0 : i32} : index
// CHECK: arith.minsi
// CHECK-NEXT: %[[N:.*]] = hal.interface.workgroup.size {dim = 0 : i32} : index
// CHECK-NEXT: %c1000 = arith.constant 1000 : index
// CHECK-NEXT: %[[C:.*]] = arith.ceildivsi %c1000, %[[N]] : index
// CHECK: %[[S:.*]] = arith.minsi %{{.*}}, %c1000 : index
// CHECK: %[[E:.*]] = arith.minsi %{{.*}}, %c1000 : index
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %c2 step
// CHECK: %[[MAX:.*]] = scf.for %[[J:.*]] = %[[S]] to %[[E]] step %{{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: "hal.interface.shuffle"(%[[MAX]]) {offset = 16 : i32, width = 32 : i32}
// CHECK: "hal.interface.barrier"
// CHECK: "hal.interface.barrier"
// CHECK: scf.for %{{.*}} = %[[S]] to %[[E]] step %{{.*}} iter_args
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[ROW]], %{{.*}}] : memref<2x1000xf32>
// CHECK: "hal.interface.shuffle"
// CHECK: "hal.interface.barrier"
// CHECK: "hal.interface.barrier"
// CHECK: %[[INV:.*]] = arith.divf
// CHECK: scf.for %{{.*}} = %[[S]] to %[[E]] step
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK-NOT: linalg.softmax

// The SIMT-on-CPU form: the row loop stays outside the thread loops.
// SIMT-LABEL: func.func @softmax()
// SIMT: scf.for %[[ROW:.*]] = %{{.*}} to %c2 step
// SIMT: scf.for %[[T:.*]] = %{{.*}} to %c64{{.*}} step
// SIMT-NOT: hal.interface
