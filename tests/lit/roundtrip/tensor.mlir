// Round trip of the tensor dialect's element and shape ops: empty (static
// and dynamic), extract/insert, dim, cast, from_elements, splat, concat.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @empty(%arg0: index, %arg1: index) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x3xi8>, tensor<f32>) {
// CHECK-NEXT: %0 = tensor.empty() : tensor<4x8xf32>
// CHECK-NEXT: %1 = tensor.empty(%arg0) : tensor<?x8xf32>
// CHECK-NEXT: %2 = tensor.empty(%arg0, %arg1) : tensor<?x?x3xi8>
// CHECK-NEXT: %3 = tensor.empty() : tensor<f32>
// CHECK-NEXT: return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x3xi8>, tensor<f32>
// CHECK-NEXT: }
func.func @empty(%n: index, %m: index) -> (tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x3xi8>, tensor<f32>) {
  %0 = tensor.empty() : tensor<4x8xf32>
  %1 = tensor.empty(%n) : tensor<?x8xf32>
  %2 = tensor.empty(%n, %m) : tensor<?x?x3xi8>
  %3 = tensor.empty() : tensor<f32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<?x8xf32>, tensor<?x?x3xi8>, tensor<f32>
}

// CHECK-LABEL: func.func @extract_insert(%arg0: tensor<4x?xf32>, %arg1: tensor<i32>, %arg2: index) -> (tensor<4x?xf32>, i32) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c3 = arith.constant 3 : index
// CHECK-NEXT: %extracted = tensor.extract %arg0[%c3, %arg2] : tensor<4x?xf32>
// CHECK-NEXT: %0 = arith.addf %extracted, %extracted : f32
// CHECK-NEXT: %inserted = tensor.insert %0 into %arg0[%c0, %arg2] : tensor<4x?xf32>
// CHECK-NEXT: %extracted_0 = tensor.extract %arg1[] : tensor<i32>
// CHECK-NEXT: return %inserted, %extracted_0 : tensor<4x?xf32>, i32
// CHECK-NEXT: }
func.func @extract_insert(%t: tensor<4x?xf32>, %s: tensor<i32>, %i: index) -> (tensor<4x?xf32>, i32) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %v = tensor.extract %t[%c3, %i] : tensor<4x?xf32>
  %w = arith.addf %v, %v : f32
  %r = tensor.insert %w into %t[%c0, %i] : tensor<4x?xf32>
  %x = tensor.extract %s[] : tensor<i32>
  return %r, %x : tensor<4x?xf32>, i32
}

// CHECK-LABEL: func.func @dim(%arg0: tensor<?x4x?xf32>) -> (index, index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %dim = tensor.dim %arg0, %c0 : tensor<?x4x?xf32>
// CHECK-NEXT: %dim_0 = tensor.dim %arg0, %c2 : tensor<?x4x?xf32>
// CHECK-NEXT: return %dim, %dim_0 : index, index
// CHECK-NEXT: }
func.func @dim(%t: tensor<?x4x?xf32>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x4x?xf32>
  %d2 = tensor.dim %t, %c2 : tensor<?x4x?xf32>
  return %d0, %d2 : index, index
}

// CHECK-LABEL: func.func @cast(%arg0: tensor<?x?xf32>, %arg1: tensor<4x8xf32>, %arg2: tensor<?x?xf32>) -> (tensor<4x?xf32>, tensor<?x?xf32>, tensor<2x2xf32>) {
// CHECK-NEXT: %cast = tensor.cast %arg0 : tensor<?x?xf32> to tensor<4x?xf32>
// CHECK-NEXT: %cast_0 = tensor.cast %arg1 : tensor<4x8xf32> to tensor<?x?xf32>
// CHECK-NEXT: %cast_1 = tensor.cast %arg2 : tensor<?x?xf32> to tensor<2x2xf32>
// CHECK-NEXT: return %cast, %cast_0, %cast_1 : tensor<4x?xf32>, tensor<?x?xf32>, tensor<2x2xf32>
// CHECK-NEXT: }
func.func @cast(%a: tensor<?x?xf32>, %b: tensor<4x8xf32>, %c: tensor<?x?xf32>) -> (tensor<4x?xf32>, tensor<?x?xf32>, tensor<2x2xf32>) {
  %0 = tensor.cast %a : tensor<?x?xf32> to tensor<4x?xf32>
  %1 = tensor.cast %b : tensor<4x8xf32> to tensor<?x?xf32>
  %2 = tensor.cast %c : tensor<?x?xf32> to tensor<2x2xf32>
  return %0, %1, %2 : tensor<4x?xf32>, tensor<?x?xf32>, tensor<2x2xf32>
}

// CHECK-LABEL: func.func @from_elements(%arg0: f32, %arg1: f32, %arg2: index) -> (tensor<2xf32>, tensor<2x2xf32>, tensor<index>) {
// CHECK-NEXT: %from_elements = tensor.from_elements %arg0, %arg1 : tensor<2xf32>
// CHECK-NEXT: %from_elements_0 = tensor.from_elements %arg0, %arg1, %arg1, %arg0 : tensor<2x2xf32>
// CHECK-NEXT: %from_elements_1 = tensor.from_elements %arg2 : tensor<index>
// CHECK-NEXT: return %from_elements, %from_elements_0, %from_elements_1 : tensor<2xf32>, tensor<2x2xf32>, tensor<index>
// CHECK-NEXT: }
func.func @from_elements(%a: f32, %b: f32, %i: index) -> (tensor<2xf32>, tensor<2x2xf32>, tensor<index>) {
  %0 = tensor.from_elements %a, %b : tensor<2xf32>
  %1 = tensor.from_elements %a, %b, %b, %a : tensor<2x2xf32>
  %2 = tensor.from_elements %i : tensor<index>
  return %0, %1, %2 : tensor<2xf32>, tensor<2x2xf32>, tensor<index>
}

// CHECK-LABEL: func.func @splat(%arg0: f32, %arg1: i64, %arg2: index) -> (tensor<4x4xf32>, tensor<8xi64>, tensor<?x4xf32>) {
// CHECK-NEXT: %splat = tensor.splat %arg0 : tensor<4x4xf32>
// CHECK-NEXT: %splat_0 = tensor.splat %arg1 : tensor<8xi64>
// CHECK-NEXT: %splat_1 = tensor.splat %arg0[%arg2] : tensor<?x4xf32>
// CHECK-NEXT: return %splat, %splat_0, %splat_1 : tensor<4x4xf32>, tensor<8xi64>, tensor<?x4xf32>
// CHECK-NEXT: }
func.func @splat(%a: f32, %n: i64, %d: index) -> (tensor<4x4xf32>, tensor<8xi64>, tensor<?x4xf32>) {
  %0 = tensor.splat %a : tensor<4x4xf32>
  %1 = tensor.splat %n : tensor<8xi64>
  %2 = tensor.splat %a[%d] : tensor<?x4xf32>
  return %0, %1, %2 : tensor<4x4xf32>, tensor<8xi64>, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @concat(%arg0: tensor<2x3xf32>, %arg1: tensor<4x3xf32>, %arg2: tensor<?x3xf32>, %arg3: tensor<2x5xf32>) -> (tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x8xf32>) {
// CHECK-NEXT: %concat = tensor.concat dim(0) %arg0, %arg1 : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
// CHECK-NEXT: %concat_0 = tensor.concat dim(0) %arg0, %arg2, %arg1 : (tensor<2x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
// CHECK-NEXT: %concat_1 = tensor.concat dim(1) %arg0, %arg3 : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: return %concat, %concat_0, %concat_1 : tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %c: tensor<?x3xf32>, %d: tensor<2x5xf32>) -> (tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x8xf32>) {
  %0 = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<6x3xf32>
  %1 = tensor.concat dim(0) %a, %c, %b : (tensor<2x3xf32>, tensor<?x3xf32>, tensor<4x3xf32>) -> tensor<?x3xf32>
  %2 = tensor.concat dim(1) %a, %d : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0, %1, %2 : tensor<6x3xf32>, tensor<?x3xf32>, tensor<2x8xf32>
}
