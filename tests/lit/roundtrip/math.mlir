// Round trip of the math dialect on scalars, vectors and tensors, with and
// without fastmath flags.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @unary_f32(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = math.exp %arg0 : f32
// CHECK-NEXT: %1 = math.exp2 %0 : f32
// CHECK-NEXT: %2 = math.log %1 : f32
// CHECK-NEXT: %3 = math.log2 %2 : f32
// CHECK-NEXT: %4 = math.tanh %3 : f32
// CHECK-NEXT: %5 = math.erf %4 : f32
// CHECK-NEXT: %6 = math.sqrt %5 : f32
// CHECK-NEXT: %7 = math.rsqrt %6 : f32
// CHECK-NEXT: %8 = math.absf %7 : f32
// CHECK-NEXT: %9 = math.floor %8 : f32
// CHECK-NEXT: %10 = math.ceil %9 : f32
// CHECK-NEXT: %11 = math.round %10 : f32
// CHECK-NEXT: %12 = math.sin %11 : f32
// CHECK-NEXT: %13 = math.cos %12 : f32
// CHECK-NEXT: return %13 : f32
// CHECK-NEXT: }
func.func @unary_f32(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  %1 = math.exp2 %0 : f32
  %2 = math.log %1 : f32
  %3 = math.log2 %2 : f32
  %4 = math.tanh %3 : f32
  %5 = math.erf %4 : f32
  %6 = math.sqrt %5 : f32
  %7 = math.rsqrt %6 : f32
  %8 = math.absf %7 : f32
  %9 = math.floor %8 : f32
  %10 = math.ceil %9 : f32
  %11 = math.round %10 : f32
  %12 = math.sin %11 : f32
  %13 = math.cos %12 : f32
  return %13 : f32
}

// CHECK-LABEL: func.func @powf(%arg0: f32, %arg1: f32, %arg2: f64) -> (f32, f64) {
// CHECK-NEXT: %0 = math.powf %arg0, %arg1 : f32
// CHECK-NEXT: %1 = math.powf %arg2, %arg2 : f64
// CHECK-NEXT: return %0, %1 : f32, f64
// CHECK-NEXT: }
func.func @powf(%x: f32, %y: f32, %d: f64) -> (f32, f64) {
  %0 = math.powf %x, %y : f32
  %1 = math.powf %d, %d : f64
  return %0, %1 : f32, f64
}

// CHECK-LABEL: func.func @fma(%arg0: f32, %arg1: vector<8xf64>) -> (f32, vector<8xf64>) {
// CHECK-NEXT: %0 = math.fma %arg0, %arg0, %arg0 : f32
// CHECK-NEXT: %1 = math.fma %arg1, %arg1, %arg1 fastmath<contract> : vector<8xf64>
// CHECK-NEXT: return %0, %1 : f32, vector<8xf64>
// CHECK-NEXT: }
func.func @fma(%x: f32, %v: vector<8xf64>) -> (f32, vector<8xf64>) {
  %0 = math.fma %x, %x, %x : f32
  %1 = math.fma %v, %v, %v fastmath<contract> : vector<8xf64>
  return %0, %1 : f32, vector<8xf64>
}

// CHECK-LABEL: func.func @other_widths(%arg0: f16, %arg1: bf16, %arg2: f64) -> (f16, bf16, f64) {
// CHECK-NEXT: %0 = math.exp %arg0 : f16
// CHECK-NEXT: %1 = math.tanh %arg1 : bf16
// CHECK-NEXT: %2 = math.sqrt %arg2 : f64
// CHECK-NEXT: return %0, %1, %2 : f16, bf16, f64
// CHECK-NEXT: }
func.func @other_widths(%h: f16, %b: bf16, %d: f64) -> (f16, bf16, f64) {
  %0 = math.exp %h : f16
  %1 = math.tanh %b : bf16
  %2 = math.sqrt %d : f64
  return %0, %1, %2 : f16, bf16, f64
}

// CHECK-LABEL: func.func @fastmath(%arg0: f32) -> f32 {
// CHECK-NEXT: %0 = math.exp %arg0 fastmath<fast> : f32
// CHECK-NEXT: %1 = math.log %0 fastmath<afn> : f32
// CHECK-NEXT: %2 = math.powf %1, %arg0 fastmath<nnan,ninf,nsz> : f32
// CHECK-NEXT: return %2 : f32
// CHECK-NEXT: }
func.func @fastmath(%x: f32) -> f32 {
  %0 = math.exp %x fastmath<fast> : f32
  %1 = math.log %0 fastmath<afn> : f32
  %2 = math.powf %1, %x fastmath<nnan, ninf, nsz> : f32
  return %2 : f32
}

// CHECK-LABEL: func.func @vectors(%arg0: vector<8xf32>) -> vector<8xf32> {
// CHECK-NEXT: %0 = math.tanh %arg0 : vector<8xf32>
// CHECK-NEXT: %1 = math.erf %0 : vector<8xf32>
// CHECK-NEXT: %2 = math.powf %1, %arg0 : vector<8xf32>
// CHECK-NEXT: %3 = math.absf %2 : vector<8xf32>
// CHECK-NEXT: return %3 : vector<8xf32>
// CHECK-NEXT: }
func.func @vectors(%v: vector<8xf32>) -> vector<8xf32> {
  %0 = math.tanh %v : vector<8xf32>
  %1 = math.erf %0 : vector<8xf32>
  %2 = math.powf %1, %v : vector<8xf32>
  %3 = math.absf %2 : vector<8xf32>
  return %3 : vector<8xf32>
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<2x?xf32>, %arg1: tensor<16xf16>) -> (tensor<2x?xf32>, tensor<16xf16>) {
// CHECK-NEXT: %0 = math.exp %arg0 : tensor<2x?xf32>
// CHECK-NEXT: %1 = math.rsqrt %0 : tensor<2x?xf32>
// CHECK-NEXT: %2 = math.sin %arg1 : tensor<16xf16>
// CHECK-NEXT: %3 = math.cos %2 : tensor<16xf16>
// CHECK-NEXT: %4 = math.round %3 : tensor<16xf16>
// CHECK-NEXT: return %1, %4 : tensor<2x?xf32>, tensor<16xf16>
// CHECK-NEXT: }
func.func @tensors(%t: tensor<2x?xf32>, %u: tensor<16xf16>) -> (tensor<2x?xf32>, tensor<16xf16>) {
  %0 = math.exp %t : tensor<2x?xf32>
  %1 = math.rsqrt %0 : tensor<2x?xf32>
  %2 = math.sin %u : tensor<16xf16>
  %3 = math.cos %2 : tensor<16xf16>
  %4 = math.round %3 : tensor<16xf16>
  return %1, %4 : tensor<2x?xf32>, tensor<16xf16>
}

// CHECK-LABEL: func.func @gelu(%arg0: f32) -> f32 {
// CHECK-NEXT: %cst = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %cst_0 = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %cst_1 = arith.constant 0.707106769 : f32
// CHECK-NEXT: %0 = arith.mulf %arg0, %cst_1 : f32
// CHECK-NEXT: %1 = math.erf %0 : f32
// CHECK-NEXT: %2 = arith.addf %1, %cst_0 : f32
// CHECK-NEXT: %3 = arith.mulf %arg0, %cst : f32
// CHECK-NEXT: %4 = arith.mulf %3, %2 : f32
// CHECK-NEXT: return %4 : f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @gelu(%x: f32) -> f32 {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %0 = arith.mulf %x, %rsqrt2 : f32
  %1 = math.erf %0 : f32
  %2 = arith.addf %1, %one : f32
  %3 = arith.mulf %x, %half : f32
  %4 = arith.mulf %3, %2 : f32
  return %4 : f32
}
