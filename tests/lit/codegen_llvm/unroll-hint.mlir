// scf-to-cf keeps big static nests rolled: the latch of a loop that holds
// another loop and would pass the unroll budget (1024 ops) if flattened,
// counting inner loops flat where they fit the budget, carries
// kiln.no_unroll, which becomes llvm.loop.unroll.disable. Innermost loops
// and small nests are left to LLVM.
// RUN: kiln-translate --scf-to-cf --print-ir %s | FileCheck %s
// RUN: kiln-translate --scf-to-cf --no-c-wrappers %s | FileCheck %s --check-prefix=LLVM

// A 4x32x64 transpose (about 24,600 instructions when LLVM flattened it):
// the 64-trip loop fits the budget (64 x 4 ops), the 32-trip loop around
// it does not, nor does the 4-trip loop around that; both are marked.
// CHECK-LABEL: func.func @transpose(
// CHECK-COUNT-2: cf.br ^{{.*}} {kiln.no_unroll}
// CHECK-NOT: kiln.no_unroll
// CHECK: return
// LLVM-LABEL: define void @transpose(
// LLVM-COUNT-2: br label %{{.*}}, !llvm.loop !{{[0-9]+}}
// LLVM-NOT: !llvm.loop
// LLVM: ret void
// LLVM-LABEL: define void @small(
// LLVM-NOT: !llvm.loop
// LLVM: ret void
func.func @transpose(%a: memref<64x4x32xf32>, %b: memref<4x32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c32 step %c1 {
      scf.for %k = %c0 to %c64 step %c1 {
        %x = memref.load %a[%k, %i, %j] : memref<64x4x32xf32>
        memref.store %x, %b[%i, %j, %k] : memref<4x32x64xf32>
      }
    }
  }
  return
}

// A 3x3 nest of a few ops stays LLVM's to unroll.
// CHECK-LABEL: func.func @small(
// CHECK-NOT: kiln.no_unroll
// CHECK: return
func.func @small(%a: memref<3x3xf32>, %s: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  scf.for %i = %c0 to %c3 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %x = memref.load %a[%i, %j] : memref<3x3xf32>
      %y = memref.load %s[] : memref<f32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %s[] : memref<f32>
    }
  }
  return
}

// A loop with a dynamic trip count around another loop is kept rolled
// (its size is unbounded); a lone big loop is innermost and left alone.
// CHECK-LABEL: func.func @dynamic(
// CHECK-COUNT-1: cf.br ^{{.*}} {kiln.no_unroll}
// CHECK-NOT: kiln.no_unroll
// CHECK: return
func.func @dynamic(%a: memref<?x8xf32>, %n: index, %v: memref<4096xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c4096 = arith.constant 4096 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c8 step %c1 {
      memref.store %z, %a[%i, %j] : memref<?x8xf32>
    }
  }
  scf.for %k = %c0 to %c4096 step %c1 {
    memref.store %z, %v[%k] : memref<4096xf32>
  }
  return
}

// LLVM: ![[ID:[0-9]+]] = distinct !{![[ID]], ![[HINT:[0-9]+]]}
// LLVM: ![[HINT]] = !{!"llvm.loop.unroll.disable"}
