// The descriptor types of the seed's examples: memref arguments expand
// into (allocated, aligned, offset, sizes..., strides...), rank 0 drops
// the arrays, the descriptor struct is rebuilt from the fields.
// RUN: kiln-translate --to-llvm-ir --no-c-wrappers %s | FileCheck %s

// CHECK-LABEL: define void @rank0(ptr %0, ptr %1, i64 %2)
// CHECK: insertvalue { ptr, ptr, i64 } undef, ptr %0, 0
// CHECK-NOT: [0 x i64]
func.func @rank0(%a: memref<f32>) {
  return
}

// CHECK-LABEL: define void @one(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4)
// CHECK: insertvalue { ptr, ptr, i64, [1 x i64], [1 x i64] } undef, ptr %0, 0
func.func @one(%a: memref<1xf32>) {
  return
}

// CHECK-LABEL: define void @dyn(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4)
// CHECK: { ptr, ptr, i64, [1 x i64], [1 x i64] }
func.func @dyn(%a: memref<?xf32>) {
  return
}

// 3 + 2 * 5 parameters for the 5-D memref.
// CHECK-LABEL: define void @five(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7, i64 %8, i64 %9, i64 %10, i64 %11, i64 %12)
// CHECK: insertvalue { ptr, ptr, i64, [5 x i64], [5 x i64] } undef, ptr %0, 0
func.func @five(%a: memref<10x42x42x43x123xf32>) {
  return
}

// A memref of vectors: the element type lives in the GEPs, not the
// descriptor; loads move whole <4 x float> values.
// CHECK-LABEL: define <4 x float> @vecs(ptr %0, ptr %1, i64 %2, i64 %3, i64 %4, i64 %5, i64 %6, i64 %7)
// CHECK: { ptr, ptr, i64, [2 x i64], [2 x i64] }
// CHECK: getelementptr <4 x float>, ptr
// CHECK: load <4 x float>, ptr
func.func @vecs(%a: memref<1x?xvector<4xf32>>, %i: index) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %i] : memref<1x?xvector<4xf32>>
  return %v : vector<4xf32>
}

// Scalars map to LLVM scalars, index to i64, n-D vectors to arrays.
// CHECK-LABEL: define [2 x <4 x float>] @scalars(i8 %0, i64 %1, half %2, bfloat %3, double %4, [2 x <4 x float>] %5)
func.func @scalars(%a: i8, %b: index, %c: f16, %d: bf16, %e: f64, %v: vector<2x4xf32>) -> vector<2x4xf32> {
  return %v : vector<2x4xf32>
}
