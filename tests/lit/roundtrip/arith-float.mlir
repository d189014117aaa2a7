// Round trip of arith's floating-point ops on scalars, vectors and whole
// tensors: the binary ops, negf, maximumf/minimumf, fastmath flags and
// every cmpf predicate.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @binary_f32(%arg0: f32, %arg1: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg1 : f32
// CHECK-NEXT: %1 = arith.subf %0, %arg1 : f32
// CHECK-NEXT: %2 = arith.mulf %1, %arg0 : f32
// CHECK-NEXT: %3 = arith.divf %2, %arg1 : f32
// CHECK-NEXT: %4 = arith.negf %3 : f32
// CHECK-NEXT: %5 = arith.maximumf %4, %arg0 : f32
// CHECK-NEXT: %6 = arith.minimumf %5, %arg1 : f32
// CHECK-NEXT: return %6 : f32
// CHECK-NEXT: }
func.func @binary_f32(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.subf %0, %b : f32
  %2 = arith.mulf %1, %a : f32
  %3 = arith.divf %2, %b : f32
  %4 = arith.negf %3 : f32
  %5 = arith.maximumf %4, %a : f32
  %6 = arith.minimumf %5, %b : f32
  return %6 : f32
}

// CHECK-LABEL: func.func @other_widths(%arg0: f16, %arg1: bf16, %arg2: f64) -> (f16, bf16, f64) {
// CHECK-NEXT: %0 = arith.mulf %arg0, %arg0 : f16
// CHECK-NEXT: %1 = arith.addf %arg1, %arg1 : bf16
// CHECK-NEXT: %2 = arith.divf %arg2, %arg2 : f64
// CHECK-NEXT: %3 = arith.negf %2 : f64
// CHECK-NEXT: return %0, %1, %3 : f16, bf16, f64
// CHECK-NEXT: }
func.func @other_widths(%h: f16, %b: bf16, %d: f64) -> (f16, bf16, f64) {
  %0 = arith.mulf %h, %h : f16
  %1 = arith.addf %b, %b : bf16
  %2 = arith.divf %d, %d : f64
  %3 = arith.negf %2 : f64
  return %0, %1, %3 : f16, bf16, f64
}

// CHECK-LABEL: func.func @fastmath(%arg0: f32, %arg1: f32) -> f32 {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg1 fastmath<fast> : f32
// CHECK-NEXT: %1 = arith.mulf %0, %arg1 fastmath<nnan,ninf> : f32
// CHECK-NEXT: %2 = arith.divf %1, %arg0 fastmath<contract> : f32
// CHECK-NEXT: %3 = arith.subf %2, %arg1 : f32
// CHECK-NEXT: return %3 : f32
// CHECK-NEXT: }
func.func @fastmath(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b fastmath<fast> : f32
  %1 = arith.mulf %0, %b fastmath<nnan, ninf> : f32
  %2 = arith.divf %1, %a fastmath<contract> : f32
  %3 = arith.subf %2, %b fastmath<none> : f32
  return %3 : f32
}

// CHECK-LABEL: func.func @vectors(%arg0: vector<4xf32>, %arg1: vector<4xf32>) -> vector<4xf32> {
// CHECK-NEXT: %0 = arith.addf %arg0, %arg1 : vector<4xf32>
// CHECK-NEXT: %1 = arith.maximumf %0, %arg1 : vector<4xf32>
// CHECK-NEXT: %2 = arith.negf %1 : vector<4xf32>
// CHECK-NEXT: return %2 : vector<4xf32>
// CHECK-NEXT: }
func.func @vectors(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.addf %a, %b : vector<4xf32>
  %1 = arith.maximumf %0, %b : vector<4xf32>
  %2 = arith.negf %1 : vector<4xf32>
  return %2 : vector<4xf32>
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<1x3x8x8xf32>, %arg1: tensor<1x3x8x8xf32>, %arg2: tensor<?x?xf16>) -> (tensor<1x3x8x8xf32>, tensor<?x?xf16>) {
// CHECK-NEXT: %0 = arith.subf %arg0, %arg1 : tensor<1x3x8x8xf32>
// CHECK-NEXT: %1 = arith.mulf %0, %0 : tensor<1x3x8x8xf32>
// CHECK-NEXT: %2 = arith.minimumf %1, %arg0 : tensor<1x3x8x8xf32>
// CHECK-NEXT: %3 = arith.divf %arg2, %arg2 : tensor<?x?xf16>
// CHECK-NEXT: %4 = arith.negf %3 : tensor<?x?xf16>
// CHECK-NEXT: return %2, %4 : tensor<1x3x8x8xf32>, tensor<?x?xf16>
// CHECK-NEXT: }
func.func @tensors(%a: tensor<1x3x8x8xf32>, %b: tensor<1x3x8x8xf32>, %c: tensor<?x?xf16>) -> (tensor<1x3x8x8xf32>, tensor<?x?xf16>) {
  %0 = arith.subf %a, %b : tensor<1x3x8x8xf32>
  %1 = arith.mulf %0, %0 : tensor<1x3x8x8xf32>
  %2 = arith.minimumf %1, %a : tensor<1x3x8x8xf32>
  %3 = arith.divf %c, %c : tensor<?x?xf16>
  %4 = arith.negf %3 : tensor<?x?xf16>
  return %2, %4 : tensor<1x3x8x8xf32>, tensor<?x?xf16>
}

// CHECK-LABEL: func.func @cmpf_ordered(%arg0: f32, %arg1: f32) -> (i1, i1, i1, i1, i1, i1, i1, i1) {
// CHECK-NEXT: %0 = arith.cmpf false, %arg0, %arg1 : f32
// CHECK-NEXT: %1 = arith.cmpf oeq, %arg0, %arg1 : f32
// CHECK-NEXT: %2 = arith.cmpf ogt, %arg0, %arg1 : f32
// CHECK-NEXT: %3 = arith.cmpf oge, %arg0, %arg1 : f32
// CHECK-NEXT: %4 = arith.cmpf olt, %arg0, %arg1 : f32
// CHECK-NEXT: %5 = arith.cmpf ole, %arg0, %arg1 : f32
// CHECK-NEXT: %6 = arith.cmpf one, %arg0, %arg1 : f32
// CHECK-NEXT: %7 = arith.cmpf ord, %arg0, %arg1 : f32
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7 : i1, i1, i1, i1, i1, i1, i1, i1
// CHECK-NEXT: }
func.func @cmpf_ordered(%a: f32, %b: f32) -> (i1, i1, i1, i1, i1, i1, i1, i1) {
  %0 = arith.cmpf false, %a, %b : f32
  %1 = arith.cmpf oeq, %a, %b : f32
  %2 = arith.cmpf ogt, %a, %b : f32
  %3 = arith.cmpf oge, %a, %b : f32
  %4 = arith.cmpf olt, %a, %b : f32
  %5 = arith.cmpf ole, %a, %b : f32
  %6 = arith.cmpf one, %a, %b : f32
  %7 = arith.cmpf ord, %a, %b : f32
  return %0, %1, %2, %3, %4, %5, %6, %7 : i1, i1, i1, i1, i1, i1, i1, i1
}

// CHECK-LABEL: func.func @cmpf_unordered(%arg0: f64, %arg1: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1) {
// CHECK-NEXT: %0 = arith.cmpf ueq, %arg0, %arg1 : f64
// CHECK-NEXT: %1 = arith.cmpf ugt, %arg0, %arg1 : f64
// CHECK-NEXT: %2 = arith.cmpf uge, %arg0, %arg1 : f64
// CHECK-NEXT: %3 = arith.cmpf ult, %arg0, %arg1 : f64
// CHECK-NEXT: %4 = arith.cmpf ule, %arg0, %arg1 : f64
// CHECK-NEXT: %5 = arith.cmpf une, %arg0, %arg1 : f64
// CHECK-NEXT: %6 = arith.cmpf uno, %arg0, %arg1 : f64
// CHECK-NEXT: %7 = arith.cmpf true, %arg0, %arg1 : f64
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7 : i1, i1, i1, i1, i1, i1, i1, i1
// CHECK-NEXT: }
func.func @cmpf_unordered(%a: f64, %b: f64) -> (i1, i1, i1, i1, i1, i1, i1, i1) {
  %0 = arith.cmpf ueq, %a, %b : f64
  %1 = arith.cmpf ugt, %a, %b : f64
  %2 = arith.cmpf uge, %a, %b : f64
  %3 = arith.cmpf ult, %a, %b : f64
  %4 = arith.cmpf ule, %a, %b : f64
  %5 = arith.cmpf une, %a, %b : f64
  %6 = arith.cmpf uno, %a, %b : f64
  %7 = arith.cmpf true, %a, %b : f64
  return %0, %1, %2, %3, %4, %5, %6, %7 : i1, i1, i1, i1, i1, i1, i1, i1
}

// CHECK-LABEL: func.func @cmpf_shaped(%arg0: vector<4xf32>, %arg1: tensor<2x?xf32>) -> (vector<4xi1>, tensor<2x?xi1>) {
// CHECK-NEXT: %0 = arith.cmpf olt, %arg0, %arg0 : vector<4xf32>
// CHECK-NEXT: %1 = arith.cmpf une, %arg1, %arg1 fastmath<nnan> : tensor<2x?xf32>
// CHECK-NEXT: return %0, %1 : vector<4xi1>, tensor<2x?xi1>
// CHECK-NEXT: }
func.func @cmpf_shaped(%v: vector<4xf32>, %t: tensor<2x?xf32>) -> (vector<4xi1>, tensor<2x?xi1>) {
  %0 = arith.cmpf olt, %v, %v : vector<4xf32>
  %1 = arith.cmpf une, %t, %t fastmath<nnan> : tensor<2x?xf32>
  return %0, %1 : vector<4xi1>, tensor<2x?xi1>
}

// CHECK-LABEL: func.func @relu(%arg0: f32) -> f32 {
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = arith.cmpf ogt, %arg0, %cst : f32
// CHECK-NEXT: %1 = arith.select %0, %arg0, %cst : f32
// CHECK-NEXT: return %1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @relu(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %gt = arith.cmpf ogt, %x, %zero : f32
  %r = arith.select %gt, %x, %zero : f32
  return %r : f32
}
