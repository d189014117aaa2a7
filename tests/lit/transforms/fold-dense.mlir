// fold-constants on dense tensor and vector constants: element-wise arith
// and math ops (splat operands give a splat, equal elements become a
// splat), select, cmpf, casts, and the tensor ops that only move constant
// data (extract, from_elements, splat, expand/collapse_shape,
// linalg.transpose). A constant cast to a dynamic type, an out-of-bounds
// extract and an op with a non-constant operand stay.
// RUN: kiln-opt --pass-pipeline=fold-constants %s | kiln-opt --pass-pipeline=dce | FileCheck %s

// CHECK-LABEL: func.func @addi_tensor()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[11, 22, -2147483646]> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @addi_tensor() -> tensor<3xi32> {
  %a = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = arith.constant dense<[10, 20, 2147483647]> : tensor<3xi32>
  %r = arith.addi %a, %b : tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @splat_times_splat()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<-3.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x2xf32>
func.func @splat_times_splat() -> tensor<2x2xf32> {
  %a = arith.constant dense<1.5> : tensor<2x2xf32>
  %b = arith.constant dense<-2.0> : tensor<2x2xf32>
  %r = arith.mulf %a, %b : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @splat_plus_array()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[}}0.000000e+00, 1.000000e+00], [2.000000e+00, 3.000000e+00]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x2xf32>
func.func @splat_plus_array() -> tensor<2x2xf32> {
  %a = arith.constant dense<1.0> : tensor<2x2xf32>
  %b = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = arith.subf %b, %a : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @becomes_splat()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<4> : tensor<3xi32>
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @becomes_splat() -> tensor<3xi32> {
  %a = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %b = arith.constant dense<[3, 2, 1]> : tensor<3xi32>
  %r = arith.addi %a, %b : tensor<3xi32>
  return %r : tensor<3xi32>
}

// CHECK-LABEL: func.func @vector_maximumf()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[1.000000e+00, 3.000000e+00, 0x7FC00000, 0.000000e+00]> : vector<4xf32>
// CHECK-NEXT: return %[[R]] : vector<4xf32>
func.func @vector_maximumf() -> vector<4xf32> {
  %a = arith.constant dense<[1.0, -2.0, 0x7FC00000, -0.0]> : vector<4xf32>
  %b = arith.constant dense<[0.5, 3.0, 1.0, 0.0]> : vector<4xf32>
  %r = arith.maximumf %a, %b : vector<4xf32>
  return %r : vector<4xf32>
}

// CHECK-LABEL: func.func @cmpf_tensor()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[true, true, false, false]> : tensor<4xi1>
// CHECK-NEXT: return %[[R]] : tensor<4xi1>
func.func @cmpf_tensor() -> tensor<4xi1> {
  %a = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %b = arith.constant dense<2.5> : tensor<4xf32>
  %r = arith.cmpf olt, %a, %b : tensor<4xf32>
  return %r : tensor<4xi1>
}

// CHECK-LABEL: func.func @select_tensor()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[1, -1, -1, 4]> : tensor<4xi32>
// CHECK-NEXT: return %[[R]] : tensor<4xi32>
func.func @select_tensor() -> tensor<4xi32> {
  %c = arith.constant dense<[true, false, false, true]> : tensor<4xi1>
  %a = arith.constant dense<[1, 2, 3, 4]> : tensor<4xi32>
  %b = arith.constant dense<-1> : tensor<4xi32>
  %r = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %r : tensor<4xi32>
}

// CHECK-LABEL: func.func @sitofp_tensor()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, -2.000000e+00], [3.000000e+00, 0x4B800000]]> : tensor<2x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2x2xf32>
func.func @sitofp_tensor() -> tensor<2x2xf32> {
  %a = arith.constant dense<[[1, -2], [3, 16777217]]> : tensor<2x2xi32>
  %r = arith.sitofp %a : tensor<2x2xi32> to tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// CHECK-LABEL: func.func @math_exp_tensor()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[1.000000e+00, 1.64872122]> : tensor<2xf32>
// CHECK-NEXT: return %[[R]] : tensor<2xf32>
func.func @math_exp_tensor() -> tensor<2xf32> {
  %a = arith.constant dense<[0.0, 0.5]> : tensor<2xf32>
  %r = math.exp %a : tensor<2xf32>
  return %r : tensor<2xf32>
}

// CHECK-LABEL: func.func @extract()
// CHECK-NEXT: %[[R:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: return %[[R]] : f32
func.func @extract() -> f32 {
  %t = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %i = arith.constant 1 : index
  %j = arith.constant 2 : index
  %r = tensor.extract %t[%i, %j] : tensor<2x3xf32>
  return %r : f32
}

// CHECK-LABEL: func.func @extract_out_of_bounds_kept()
// CHECK: %[[R:.*]] = tensor.extract
// CHECK-NEXT: return %[[R]] : f32
func.func @extract_out_of_bounds_kept() -> f32 {
  %t = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %i = arith.constant 2 : index
  %r = tensor.extract %t[%i, %i] : tensor<2x3xf32>
  return %r : f32
}

// CHECK-LABEL: func.func @from_elements()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[}}7, -8], [-8, 7]]> : tensor<2x2xi64>
// CHECK-NEXT: return %[[R]] : tensor<2x2xi64>
func.func @from_elements() -> tensor<2x2xi64> {
  %a = arith.constant 7 : i64
  %b = arith.constant -8 : i64
  %r = tensor.from_elements %a, %b, %b, %a : tensor<2x2xi64>
  return %r : tensor<2x2xi64>
}

// CHECK-LABEL: func.func @splat()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<2.500000e-01> : tensor<3x3xf16>
// CHECK-NEXT: return %[[R]] : tensor<3x3xf16>
func.func @splat() -> tensor<3x3xf16> {
  %a = arith.constant 0.25 : f16
  %r = tensor.splat %a : tensor<3x3xf16>
  return %r : tensor<3x3xf16>
}

// CHECK-LABEL: func.func @reshape()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi8>
// CHECK-NEXT: return %[[R]] : tensor<2x3xi8>
func.func @reshape() -> tensor<2x3xi8> {
  %a = arith.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi8>
  %r = tensor.expand_shape %a [[0, 1]] output_shape [2, 3] : tensor<6xi8> into tensor<2x3xi8>
  return %r : tensor<2x3xi8>
}

// CHECK-LABEL: func.func @collapse()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: return %[[R]] : tensor<4xf32>
func.func @collapse() -> tensor<4xf32> {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x2xf32> into tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast()
// CHECK: %[[R:.*]] = tensor.cast %{{.*}} : tensor<2x2xf32> to tensor<?x2xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x2xf32>
func.func @cast() -> tensor<?x2xf32> {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %r = tensor.cast %a : tensor<2x2xf32> to tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// CHECK-LABEL: func.func @transpose()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[}}1, 4], [2, 5], [3, 6]]> : tensor<3x2xi32>
// CHECK-NEXT: return %[[R]] : tensor<3x2xi32>
func.func @transpose() -> tensor<3x2xi32> {
  %a = arith.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %e = tensor.empty() : tensor<3x2xi32>
  %r = linalg.transpose ins(%a : tensor<2x3xi32>) outs(%e : tensor<3x2xi32>) permutation = [1, 0]
  return %r : tensor<3x2xi32>
}

// CHECK-LABEL: func.func @transpose_3d()
// CHECK-NEXT: %[[R:.*]] = arith.constant dense<{{\[\[\[}}0, 2], [4, 6]], {{\[\[}}1, 3], [5, 7]]]> : tensor<2x2x2xi32>
// CHECK-NEXT: return %[[R]] : tensor<2x2x2xi32>
func.func @transpose_3d() -> tensor<2x2x2xi32> {
  %a = arith.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi32>
  %e = tensor.empty() : tensor<2x2x2xi32>
  %r = linalg.transpose ins(%a : tensor<2x2x2xi32>) outs(%e : tensor<2x2x2xi32>) permutation = [2, 0, 1]
  return %r : tensor<2x2x2xi32>
}

// CHECK-LABEL: func.func @not_constant_kept(
// CHECK: %[[R:.*]] = arith.addi
// CHECK-NEXT: return %[[R]] : tensor<3xi32>
func.func @not_constant_kept(%x: tensor<3xi32>) -> tensor<3xi32> {
  %a = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %r = arith.addi %a, %x : tensor<3xi32>
  return %r : tensor<3xi32>
}
