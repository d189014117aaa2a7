// RUN: kiln-opt --simt-to-loops %s | FileCheck %s
// RUN: sed 's/i64: 64, 1, 1/i64: 48, 1, 1/' %s | not kiln-opt --simt-to-loops - 2>&1 | FileCheck %s --check-prefix=BAD
// A warp shuffle on the CPU: every thread writes its value to its slot,
// the threads meet (loop fission), then each reads its partner's slot
// (thread id xor offset; partners stay in the warp since the block is a
// whole number of warps).
module {
  func.func @k() attributes {kiln.launch = {block_size = array<i64: 64, 1, 1>}} {
    %0 = hal.interface.binding {binding = 0 : i32} : memref<64xf32>
    %t = hal.interface.thread.id {dim = 0 : i32} : index
    %x = memref.load %0[%t] : memref<64xf32>
    %y = "hal.interface.shuffle"(%x) {offset = 4 : i32, width = 32 : i32} : (f32) -> f32
    %s = arith.addf %x, %y : f32
    memref.store %s, %0[%t] : memref<64xf32>
    return
  }
}

// CHECK-LABEL: func.func @k()
// CHECK-NEXT: %[[KEEP:.*]] = memref.alloca() : memref<64xf32>
// CHECK-NEXT: %[[SLOT:.*]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for %[[T:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[T]]] : memref<64xf32>
// CHECK-NEXT: memref.store %[[X]], %[[KEEP]][%[[T]]] : memref<64xf32>
// CHECK-NEXT: memref.store %[[X]], %[[SLOT]][%[[T]]] : memref<64xf32>
// CHECK-NEXT: }
// CHECK: scf.for %[[T2:.*]] = %{{.*}} to %c64{{.*}} step
// CHECK-NEXT: %[[P:.*]] = arith.xori %[[T2]], %c4{{.*}} : index
// CHECK-NEXT: %[[Y:.*]] = memref.load %[[SLOT]][%[[P]]] : memref<64xf32>
// CHECK-NEXT: %[[X2:.*]] = memref.load %[[KEEP]][%[[T2]]] : memref<64xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X2]], %[[Y]] : f32
// CHECK-NEXT: memref.store %[[S]], %{{.*}}[%[[T2]]] : memref<64xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NOT: hal.interface.shuffle

// BAD: <stdin>:12:10: 'hal.interface.shuffle' op simt-to-loops: a warp shuffle needs a block size that is a multiple of the warp width 32, got 48
