// scf-to-cf keeps big static nests rolled: the latch of a loop that holds
// another loop and would pass the unroll budget (1024 ops) if flattened,
// counting inner loops flat where they fit the budget, carries
// kiln.no_unroll, which becomes llvm.loop.unroll.disable. Innermost loops
// and small nests are left to LLVM; so is a function, up to a budget of
// its own.
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

// Nests that each fit the budget but together would flatten the function
// past 4096 ops (a concat copying many small pieces, one nest each): the
// largest are kept loops until the rest fits. The 8x16 nests flatten to
// 528 ops each, the 2x16 ones to 132 (about 5300 in all); keeping 3 big
// ones rolled saves 3 x 462. The small ones come first and stay as they are.
// CHECK-LABEL: func.func @siblings(
// CHECK-NOT: kiln.no_unroll
// CHECK: memref.store {{.*}} : memref<8x8x16xf32>
// CHECK-COUNT-3: cf.br ^{{.*}} {kiln.no_unroll}
// CHECK-NOT: kiln.no_unroll
// CHECK: return
func.func @siblings(%a: memref<8x16xf32>, %s: memref<8x2x16xf32>, %b: memref<8x8x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s0 = arith.constant 0 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s0, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s1, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s2, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s3 = arith.constant 3 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s3, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s4 = arith.constant 4 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s4, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s5 = arith.constant 5 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s5, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s6 = arith.constant 6 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s6, %i, %j] : memref<8x2x16xf32>
    }
  }
  %s7 = arith.constant 7 : index
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %s[%s7, %i, %j] : memref<8x2x16xf32>
    }
  }
  %b0 = arith.constant 0 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b0, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b1 = arith.constant 1 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b1, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b2 = arith.constant 2 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b2, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b3 = arith.constant 3 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b3, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b4 = arith.constant 4 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b4, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b5 = arith.constant 5 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b5, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b6 = arith.constant 6 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b6, %i, %j] : memref<8x8x16xf32>
    }
  }
  %b7 = arith.constant 7 : index
  scf.for %i = %c0 to %c8 step %c1 {
    scf.for %j = %c0 to %c16 step %c1 {
      %x = memref.load %a[%i, %j] : memref<8x16xf32>
      memref.store %x, %b[%b7, %i, %j] : memref<8x8x16xf32>
    }
  }
  return
}

// LLVM: ![[ID:[0-9]+]] = distinct !{![[ID]], ![[HINT:[0-9]+]]}
// LLVM: ![[HINT]] = !{!"llvm.loop.unroll.disable"}
