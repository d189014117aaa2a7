// The cf, memref and vector ops print as mlir-opt-19 prints
// them, and printing is a fixpoint; mlir-opt accepts what Kiln prints.
// RUN: kiln-translate --print-ir %s | FileCheck %s
// RUN: kiln-translate --print-ir %s > %t.1 && kiln-translate --print-ir %t.1 > %t.2 && diff %t.1 %t.2
// RUN: mlir-opt %s | kiln-translate --print-ir - | FileCheck %s
// RUN: kiln-translate --print-ir %s | mlir-opt > /dev/null
// REQUIRES: mlir-opt

// CHECK-LABEL: func.func @ops(
// CHECK-NEXT: %0 = memref.load %arg0[%arg1, %arg1] : memref<16x16xf32>
// CHECK-NEXT: memref.store %0, %arg0[%arg1, %arg1] : memref<16x16xf32>
// CHECK-NEXT: %alloca = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
// CHECK-NEXT: %alloca_0 = memref.alloca(%arg1) : memref<?x4xf32>
// CHECK-NEXT: %dim = memref.dim %arg5, %arg1 : memref<?xf32>
// CHECK-NEXT: %cast = memref.cast %arg5 : memref<?xf32> to memref<4xf32>
// CHECK-NEXT: %subview = memref.subview %arg0[%arg1, 0] [4, 4] [1, 1] : memref<16x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
// CHECK-NEXT: %reinterpret_cast = memref.reinterpret_cast %arg6 to offset: [0], sizes: [16, 16], strides: [16, 1] : memref<256xf32> to memref<16x16xf32>
// CHECK-NEXT: %collapse_shape = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<16x16xf32> into memref<256xf32>
// CHECK-NEXT: %expand_shape = memref.expand_shape %arg6 {{\[\[}}0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
// CHECK-NEXT: memref.copy %arg0, %reinterpret_cast : memref<16x16xf32> to memref<16x16xf32>
// CHECK-NEXT: memref.prefetch %arg0[%arg1, %arg1], read, locality<1>, data : memref<16x16xf32>
// CHECK-NEXT: memref.prefetch %arg0[%arg1, %arg1], write, locality<3>, instr : memref<16x16xf32>
// CHECK-NEXT: %1 = vector.load %arg0[%arg1, %arg1] : memref<16x16xf32>, vector<4xf32>
// CHECK-NEXT: vector.store %1, %arg0[%arg1, %arg1] : memref<16x16xf32>, vector<4xf32>
// CHECK-NEXT: %2 = vector.broadcast %arg3 : f32 to vector<4xf32>
// CHECK-NEXT: %3 = vector.broadcast %arg2 : vector<4xf32> to vector<2x4xf32>
// CHECK-NEXT: %4 = vector.splat %arg3 : vector<4xf32>
// CHECK-NEXT: %5 = vector.extract %arg2[0] : f32 from vector<4xf32>
// CHECK-NEXT: %6 = vector.extract %3[1] : vector<4xf32> from vector<2x4xf32>
// CHECK-NEXT: %7 = vector.extract %arg2[%arg1] : f32 from vector<4xf32>
// CHECK-NEXT: %8 = vector.insert %arg3, %arg2 [1] : f32 into vector<4xf32>
// CHECK-NEXT: %9 = vector.insert %arg3, %arg2 [%arg1] : f32 into vector<4xf32>
// CHECK-NEXT: %10 = vector.fma %arg2, %arg2, %arg2 : vector<4xf32>
// CHECK-NEXT: %11 = vector.reduction <add>, %arg2 : vector<4xf32> into f32
// CHECK-NEXT: %12 = vector.reduction <maximumf>, %arg2, %arg3 : vector<4xf32> into f32
// CHECK-NEXT: %13 = vector.transfer_read %arg0[%arg1, %arg1], %arg3 : memref<16x16xf32>, vector<4xf32>
// CHECK-NEXT: %14 = vector.transfer_read %arg0[%arg1, %arg1], %arg3 {in_bounds = [true]} : memref<16x16xf32>, vector<4xf32>
// CHECK-NEXT: vector.transfer_write %13, %arg0[%arg1, %arg1] : vector<4xf32>, memref<16x16xf32>
// CHECK-NEXT: vector.transfer_write %14, %arg0[%arg1, %arg1] {in_bounds = [true]} : vector<4xf32>, memref<16x16xf32>
// CHECK-NEXT: cf.cond_br %arg4, ^bb1(%0 : f32), ^bb1(%arg3 : f32)
// CHECK-NEXT: ^bb1(%15: f32):
// CHECK-NEXT: cf.br ^bb2
// CHECK-NEXT: ^bb2:
// CHECK-NEXT: return %15 : f32
func.func @ops(%m: memref<16x16xf32>, %i: index, %v: vector<4xf32>, %s: f32, %c: i1, %d: memref<?xf32>, %x: memref<256xf32>) -> f32 {
  %0 = memref.load %m[%i, %i] : memref<16x16xf32>
  memref.store %0, %m[%i, %i] : memref<16x16xf32>
  %a = memref.alloca() {alignment = 64 : i64} : memref<4xf32>
  %a2 = memref.alloca(%i) : memref<?x4xf32>
  %dim = memref.dim %d, %i : memref<?xf32>
  %cast = memref.cast %d : memref<?xf32> to memref<4xf32>
  %sv = memref.subview %m[%i, 0] [4, 4] [1, 1] : memref<16x16xf32> to memref<4x4xf32, strided<[16, 1], offset: ?>>
  %rc = memref.reinterpret_cast %x to offset: [0], sizes: [16, 16], strides: [16, 1] : memref<256xf32> to memref<16x16xf32>
  %cs = memref.collapse_shape %m [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  %es = memref.expand_shape %x [[0, 1]] output_shape [16, 16] : memref<256xf32> into memref<16x16xf32>
  memref.copy %m, %rc : memref<16x16xf32> to memref<16x16xf32>
  memref.prefetch %m[%i, %i], read, locality<1>, data : memref<16x16xf32>
  memref.prefetch %m[%i, %i], write, locality<3>, instr : memref<16x16xf32>
  %vl = vector.load %m[%i, %i] : memref<16x16xf32>, vector<4xf32>
  vector.store %vl, %m[%i, %i] : memref<16x16xf32>, vector<4xf32>
  %b = vector.broadcast %s : f32 to vector<4xf32>
  %b2 = vector.broadcast %v : vector<4xf32> to vector<2x4xf32>
  %sp = vector.splat %s : vector<4xf32>
  %e = vector.extract %v[0] : f32 from vector<4xf32>
  %e2 = vector.extract %b2[1] : vector<4xf32> from vector<2x4xf32>
  %e3 = vector.extract %v[%i] : f32 from vector<4xf32>
  %in = vector.insert %s, %v [1] : f32 into vector<4xf32>
  %in2 = vector.insert %s, %v [%i] : f32 into vector<4xf32>
  %f = vector.fma %v, %v, %v : vector<4xf32>
  %r = vector.reduction <add>, %v : vector<4xf32> into f32
  %r2 = vector.reduction <maximumf>, %v, %s : vector<4xf32> into f32
  %t1 = vector.transfer_read %m[%i, %i], %s : memref<16x16xf32>, vector<4xf32>
  %t2 = vector.transfer_read %m[%i, %i], %s {in_bounds = [true]} : memref<16x16xf32>, vector<4xf32>
  vector.transfer_write %t1, %m[%i, %i] : vector<4xf32>, memref<16x16xf32>
  vector.transfer_write %t2, %m[%i, %i] {in_bounds = [true]} : vector<4xf32>, memref<16x16xf32>
  cf.cond_br %c, ^bb1(%0 : f32), ^bb1(%s : f32)
^bb1(%z: f32):
  cf.br ^bb2
^bb2:
  return %z : f32
}
