// Round trip of arith's conversions on scalars, vectors and whole tensors:
// integer extension and truncation, int<->float, float width changes,
// index_cast and bitcast.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @int_width(%arg0: i8, %arg1: i64, %arg2: i1) -> (i32, i32, i16, i64) {
// CHECK-NEXT: %0 = arith.extsi %arg0 : i8 to i32
// CHECK-NEXT: %1 = arith.extui %arg0 : i8 to i32
// CHECK-NEXT: %2 = arith.trunci %arg1 : i64 to i16
// CHECK-NEXT: %3 = arith.extui %arg2 : i1 to i64
// CHECK-NEXT: return %0, %1, %2, %3 : i32, i32, i16, i64
// CHECK-NEXT: }
func.func @int_width(%a: i8, %b: i64, %c: i1) -> (i32, i32, i16, i64) {
  %0 = arith.extsi %a : i8 to i32
  %1 = arith.extui %a : i8 to i32
  %2 = arith.trunci %b : i64 to i16
  %3 = arith.extui %c : i1 to i64
  return %0, %1, %2, %3 : i32, i32, i16, i64
}

// CHECK-LABEL: func.func @int_float(%arg0: i32, %arg1: i16, %arg2: f32, %arg3: f64) -> (f32, f64, i32, i64) {
// CHECK-NEXT: %0 = arith.sitofp %arg0 : i32 to f32
// CHECK-NEXT: %1 = arith.uitofp %arg1 : i16 to f64
// CHECK-NEXT: %2 = arith.fptosi %arg2 : f32 to i32
// CHECK-NEXT: %3 = arith.fptosi %arg3 : f64 to i64
// CHECK-NEXT: return %0, %1, %2, %3 : f32, f64, i32, i64
// CHECK-NEXT: }
func.func @int_float(%i: i32, %u: i16, %f: f32, %d: f64) -> (f32, f64, i32, i64) {
  %0 = arith.sitofp %i : i32 to f32
  %1 = arith.uitofp %u : i16 to f64
  %2 = arith.fptosi %f : f32 to i32
  %3 = arith.fptosi %d : f64 to i64
  return %0, %1, %2, %3 : f32, f64, i32, i64
}

// CHECK-LABEL: func.func @float_width(%arg0: f16, %arg1: f32, %arg2: bf16) -> (f32, f16, f64, bf16) {
// CHECK-NEXT: %0 = arith.extf %arg0 : f16 to f32
// CHECK-NEXT: %1 = arith.truncf %arg1 : f32 to f16
// CHECK-NEXT: %2 = arith.extf %arg2 : bf16 to f64
// CHECK-NEXT: %3 = arith.truncf %arg1 : f32 to bf16
// CHECK-NEXT: return %0, %1, %2, %3 : f32, f16, f64, bf16
// CHECK-NEXT: }
func.func @float_width(%h: f16, %f: f32, %b: bf16) -> (f32, f16, f64, bf16) {
  %0 = arith.extf %h : f16 to f32
  %1 = arith.truncf %f : f32 to f16
  %2 = arith.extf %b : bf16 to f64
  %3 = arith.truncf %f : f32 to bf16
  return %0, %1, %2, %3 : f32, f16, f64, bf16
}

// CHECK-LABEL: func.func @index_and_bitcast(%arg0: index, %arg1: i32, %arg2: f32, %arg3: i16) -> (i64, index, i32, f32, f16) {
// CHECK-NEXT: %0 = arith.index_cast %arg0 : index to i64
// CHECK-NEXT: %1 = arith.index_cast %arg1 : i32 to index
// CHECK-NEXT: %2 = arith.bitcast %arg2 : f32 to i32
// CHECK-NEXT: %3 = arith.bitcast %2 : i32 to f32
// CHECK-NEXT: %4 = arith.bitcast %arg3 : i16 to f16
// CHECK-NEXT: return %0, %1, %2, %3, %4 : i64, index, i32, f32, f16
// CHECK-NEXT: }
func.func @index_and_bitcast(%i: index, %n: i32, %f: f32, %h: i16) -> (i64, index, i32, f32, f16) {
  %0 = arith.index_cast %i : index to i64
  %1 = arith.index_cast %n : i32 to index
  %2 = arith.bitcast %f : f32 to i32
  %3 = arith.bitcast %2 : i32 to f32
  %4 = arith.bitcast %h : i16 to f16
  return %0, %1, %2, %3, %4 : i64, index, i32, f32, f16
}

// CHECK-LABEL: func.func @vectors(%arg0: vector<8xi8>, %arg1: vector<4xf32>, %arg2: vector<4xindex>) -> (vector<8xi32>, vector<4xi32>, vector<4xf16>, vector<4xi64>, vector<4xi32>) {
// CHECK-NEXT: %0 = arith.extsi %arg0 : vector<8xi8> to vector<8xi32>
// CHECK-NEXT: %1 = arith.fptosi %arg1 : vector<4xf32> to vector<4xi32>
// CHECK-NEXT: %2 = arith.truncf %arg1 : vector<4xf32> to vector<4xf16>
// CHECK-NEXT: %3 = arith.index_cast %arg2 : vector<4xindex> to vector<4xi64>
// CHECK-NEXT: %4 = arith.bitcast %arg1 : vector<4xf32> to vector<4xi32>
// CHECK-NEXT: return %0, %1, %2, %3, %4 : vector<8xi32>, vector<4xi32>, vector<4xf16>, vector<4xi64>, vector<4xi32>
// CHECK-NEXT: }
func.func @vectors(%a: vector<8xi8>, %f: vector<4xf32>, %i: vector<4xindex>) -> (vector<8xi32>, vector<4xi32>, vector<4xf16>, vector<4xi64>, vector<4xi32>) {
  %0 = arith.extsi %a : vector<8xi8> to vector<8xi32>
  %1 = arith.fptosi %f : vector<4xf32> to vector<4xi32>
  %2 = arith.truncf %f : vector<4xf32> to vector<4xf16>
  %3 = arith.index_cast %i : vector<4xindex> to vector<4xi64>
  %4 = arith.bitcast %f : vector<4xf32> to vector<4xi32>
  return %0, %1, %2, %3, %4 : vector<8xi32>, vector<4xi32>, vector<4xf16>, vector<4xi64>, vector<4xi32>
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<2x3xi32>, %arg1: tensor<?xf16>, %arg2: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<?xf32>, tensor<4xi8>, tensor<4xindex>, tensor<2x3xi64>) {
// CHECK-NEXT: %0 = arith.sitofp %arg0 : tensor<2x3xi32> to tensor<2x3xf32>
// CHECK-NEXT: %1 = arith.extf %arg1 : tensor<?xf16> to tensor<?xf32>
// CHECK-NEXT: %2 = arith.trunci %arg2 : tensor<4xi64> to tensor<4xi8>
// CHECK-NEXT: %3 = arith.index_cast %arg2 : tensor<4xi64> to tensor<4xindex>
// CHECK-NEXT: %4 = arith.extui %arg0 : tensor<2x3xi32> to tensor<2x3xi64>
// CHECK-NEXT: %5 = arith.uitofp %arg2 : tensor<4xi64> to tensor<4xf32>
// CHECK-NEXT: %6 = arith.fptosi %0 : tensor<2x3xf32> to tensor<2x3xi16>
// CHECK-NEXT: %7 = arith.bitcast %1 : tensor<?xf32> to tensor<?xi32>
// CHECK-NEXT: return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<?xf32>, tensor<4xi8>, tensor<4xindex>, tensor<2x3xi64>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @tensors(%a: tensor<2x3xi32>, %b: tensor<?xf16>, %c: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<?xf32>, tensor<4xi8>, tensor<4xindex>, tensor<2x3xi64>) {
  %0 = arith.sitofp %a : tensor<2x3xi32> to tensor<2x3xf32>
  %1 = arith.extf %b : tensor<?xf16> to tensor<?xf32>
  %2 = arith.trunci %c : tensor<4xi64> to tensor<4xi8>
  %3 = arith.index_cast %c : tensor<4xi64> to tensor<4xindex>
  %4 = arith.extui %a : tensor<2x3xi32> to tensor<2x3xi64>
  %5 = arith.uitofp %c : tensor<4xi64> to tensor<4xf32>
  %6 = arith.fptosi %0 : tensor<2x3xf32> to tensor<2x3xi16>
  %7 = arith.bitcast %1 : tensor<?xf32> to tensor<?xi32>
  return %0, %1, %2, %3, %4 : tensor<2x3xf32>, tensor<?xf32>, tensor<4xi8>, tensor<4xindex>, tensor<2x3xi64>
}
