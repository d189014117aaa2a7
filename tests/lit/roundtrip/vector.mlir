// Round trip of the vector dialect: load/store from memrefs, broadcast,
// splat, extract/insert (static positions, scalars and sub-vectors), fma
// and reduction kinds, on 1-D and 2-D vectors.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @load_store(%arg0: memref<16x16xf32>, %arg1: index, %arg2: index) {
// CHECK-NEXT: %0 = vector.load %arg0[%arg1, %arg2] : memref<16x16xf32>, vector<8xf32>
// CHECK-NEXT: %1 = vector.load %arg0[%arg1, %arg2] : memref<16x16xf32>, vector<2x4xf32>
// CHECK-NEXT: vector.store %0, %arg0[%arg2, %arg1] : memref<16x16xf32>, vector<8xf32>
// CHECK-NEXT: vector.store %1, %arg0[%arg1, %arg1] : memref<16x16xf32>, vector<2x4xf32>
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @load_store(%m: memref<16x16xf32>, %i: index, %j: index) {
  %v = vector.load %m[%i, %j] : memref<16x16xf32>, vector<8xf32>
  %w = vector.load %m[%i, %j] : memref<16x16xf32>, vector<2x4xf32>
  vector.store %v, %m[%j, %i] : memref<16x16xf32>, vector<8xf32>
  vector.store %w, %m[%i, %i] : memref<16x16xf32>, vector<2x4xf32>
  return
}

// CHECK-LABEL: func.func @broadcast_splat(%arg0: f32, %arg1: vector<4xf32>) -> (vector<8xf32>, vector<2x4xf32>, vector<4xf32>) {
// CHECK-NEXT: %0 = vector.broadcast %arg0 : f32 to vector<8xf32>
// CHECK-NEXT: %1 = vector.broadcast %arg1 : vector<4xf32> to vector<2x4xf32>
// CHECK-NEXT: %2 = vector.splat %arg0 : vector<4xf32>
// CHECK-NEXT: return %0, %1, %2 : vector<8xf32>, vector<2x4xf32>, vector<4xf32>
// CHECK-NEXT: }
func.func @broadcast_splat(%s: f32, %v: vector<4xf32>) -> (vector<8xf32>, vector<2x4xf32>, vector<4xf32>) {
  %0 = vector.broadcast %s : f32 to vector<8xf32>
  %1 = vector.broadcast %v : vector<4xf32> to vector<2x4xf32>
  %2 = vector.splat %s : vector<4xf32>
  return %0, %1, %2 : vector<8xf32>, vector<2x4xf32>, vector<4xf32>
}

// CHECK-LABEL: func.func @extract_insert(%arg0: vector<2x4xf32>, %arg1: vector<4xf32>, %arg2: f32) -> (f32, vector<4xf32>, vector<2x4xf32>, vector<2x4xf32>) {
// CHECK-NEXT: %0 = vector.extract %arg0[1, 3] : f32 from vector<2x4xf32>
// CHECK-NEXT: %1 = vector.extract %arg0[0] : vector<4xf32> from vector<2x4xf32>
// CHECK-NEXT: %2 = vector.insert %arg2, %arg0 [0, 2] : f32 into vector<2x4xf32>
// CHECK-NEXT: %3 = vector.insert %arg1, %2 [1] : vector<4xf32> into vector<2x4xf32>
// CHECK-NEXT: return %0, %1, %2, %3 : f32, vector<4xf32>, vector<2x4xf32>, vector<2x4xf32>
// CHECK-NEXT: }
func.func @extract_insert(%v: vector<2x4xf32>, %r: vector<4xf32>, %s: f32) -> (f32, vector<4xf32>, vector<2x4xf32>, vector<2x4xf32>) {
  %0 = vector.extract %v[1, 3] : f32 from vector<2x4xf32>
  %1 = vector.extract %v[0] : vector<4xf32> from vector<2x4xf32>
  %2 = vector.insert %s, %v [0, 2] : f32 into vector<2x4xf32>
  %3 = vector.insert %r, %2 [1] : vector<4xf32> into vector<2x4xf32>
  return %0, %1, %2, %3 : f32, vector<4xf32>, vector<2x4xf32>, vector<2x4xf32>
}

// vector.shuffle: two operands, the mask in square brackets, the
// operands' types after the colon (the result's lanes are the mask's).
// CHECK-LABEL: func.func @shuffle(%arg0: vector<8xf32>, %arg1: vector<8xf32>) -> vector<4xf32> {
// CHECK-NEXT: %0 = vector.shuffle %arg0, %arg1 [0, 9, 2, 15] : vector<8xf32>, vector<8xf32>
// CHECK-NEXT: return %0 : vector<4xf32>
// CHECK-NEXT: }
func.func @shuffle(%a: vector<8xf32>, %b: vector<8xf32>) -> vector<4xf32> {
  %0 = vector.shuffle %a, %b [0, 9, 2, 15] : vector<8xf32>, vector<8xf32>
  return %0 : vector<4xf32>
}

// CHECK-LABEL: func.func @fma_reduce(%arg0: vector<8xf32>, %arg1: vector<8xf32>, %arg2: vector<8xf32>, %arg3: f32, %arg4: vector<4xi32>) -> (vector<8xf32>, f32, f32, f32, i32, i32) {
// CHECK-NEXT: %0 = vector.fma %arg0, %arg1, %arg2 : vector<8xf32>
// CHECK-NEXT: %1 = vector.reduction <add>, %0 : vector<8xf32> into f32
// CHECK-NEXT: %2 = vector.reduction <add>, %arg0, %arg3 : vector<8xf32> into f32
// CHECK-NEXT: %3 = vector.reduction <maximumf>, %arg1 : vector<8xf32> into f32
// CHECK-NEXT: %4 = vector.reduction <mul>, %arg4 : vector<4xi32> into i32
// CHECK-NEXT: %5 = vector.reduction <xor>, %arg4 : vector<4xi32> into i32
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5 : vector<8xf32>, f32, f32, f32, i32, i32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @fma_reduce(%a: vector<8xf32>, %b: vector<8xf32>, %c: vector<8xf32>, %acc: f32, %i: vector<4xi32>) -> (vector<8xf32>, f32, f32, f32, i32, i32) {
  %0 = vector.fma %a, %b, %c : vector<8xf32>
  %1 = vector.reduction <add>, %0 : vector<8xf32> into f32
  %2 = vector.reduction <add>, %a, %acc : vector<8xf32> into f32
  %3 = vector.reduction <maximumf>, %b : vector<8xf32> into f32
  %4 = vector.reduction <mul>, %i : vector<4xi32> into i32
  %5 = vector.reduction <xor>, %i : vector<4xi32> into i32
  return %0, %1, %2, %3, %4, %5 : vector<8xf32>, f32, f32, f32, i32, i32
}
