// Round trip of arith.constant: scalars of every type, splats, dense
// arrays (nested, i1, float formats) and large constants, which mlir-opt
// prints as a hex blob once they have more than 100 elements.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @int_scalars() -> (i32, i64, i8, i16, i32, i64) {
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %c9223372036854775807_i64 = arith.constant 9223372036854775807 : i64
// CHECK-NEXT: %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT: %c7_i16 = arith.constant 7 : i16
// CHECK-NEXT: %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT: %c-9223372036854775808_i64 = arith.constant -9223372036854775808 : i64
// CHECK-NEXT: return %c0_i32, %c9223372036854775807_i64, %c-128_i8, %c7_i16, %c-1_i32, %c-9223372036854775808_i64 : i32, i64, i8, i16, i32, i64
// CHECK-NEXT: }
func.func @int_scalars() -> (i32, i64, i8, i16, i32, i64) {
  %zero = arith.constant 0 : i32
  %big = arith.constant 9223372036854775807 : i64
  %neg = arith.constant -128 : i8
  %c7 = arith.constant 7 : i16
  %m1 = arith.constant -1 : i32
  %min = arith.constant -9223372036854775808 : i64
  return %zero, %big, %neg, %c7, %m1, %min : i32, i64, i8, i16, i32, i64
}

// CHECK-LABEL: func.func @index_and_bool() -> (index, index, i1, i1) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c42 = arith.constant 42 : index
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %false = arith.constant false
// CHECK-NEXT: return %c0, %c42, %true, %false : index, index, i1, i1
// CHECK-NEXT: }
func.func @index_and_bool() -> (index, index, i1, i1) {
  %c0 = arith.constant 0 : index
  %c42 = arith.constant 42 : index
  %t = arith.constant true
  %f = arith.constant 0 : i1
  return %c0, %c42, %t, %f : index, index, i1, i1
}

// CHECK-LABEL: func.func @float_scalars() -> (f32, f32, f64, f16, bf16, f32, f32, f32, f32) {
// CHECK-NEXT: %cst = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %cst_0 = arith.constant 1.000000e-01 : f32
// CHECK-NEXT: %cst_1 = arith.constant 3.1415926535897931 : f64
// CHECK-NEXT: %cst_2 = arith.constant -2.500000e+00 : f16
// CHECK-NEXT: %cst_3 = arith.constant 9.999220e+09 : bf16
// CHECK-NEXT: %cst_4 = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %cst_5 = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %cst_6 = arith.constant 0x7FC00000 : f32
// CHECK-NEXT: %cst_7 = arith.constant -0.000000e+00 : f32
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4, %cst_5, %cst_6, %cst_7 : f32, f32, f64, f16, bf16, f32, f32, f32, f32
// CHECK-NEXT: }
func.func @float_scalars() -> (f32, f32, f64, f16, bf16, f32, f32, f32, f32) {
  %one = arith.constant 1.0 : f32
  %tenth = arith.constant 0.1 : f32
  %pi = arith.constant 3.141592653589793 : f64
  %h = arith.constant -2.5 : f16
  %b = arith.constant 1.0e+10 : bf16
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %negzero = arith.constant -0.0 : f32
  return %one, %tenth, %pi, %h, %b, %inf, %ninf, %nan, %negzero : f32, f32, f64, f16, bf16, f32, f32, f32, f32
}

// CHECK-LABEL: func.func @splats() -> (tensor<4x4xf32>, tensor<16xi32>, vector<8xf32>, tensor<2x3xi1>, tensor<f32>, tensor<3xindex>) {
// CHECK-NEXT: %cst = arith.constant dense<0.000000e+00> : tensor<4x4xf32>
// CHECK-NEXT: %cst_0 = arith.constant dense<-3> : tensor<16xi32>
// CHECK-NEXT: %cst_1 = arith.constant dense<1.500000e+00> : vector<8xf32>
// CHECK-NEXT: %cst_2 = arith.constant dense<true> : tensor<2x3xi1>
// CHECK-NEXT: %cst_3 = arith.constant dense<2.000000e-03> : tensor<f32>
// CHECK-NEXT: %cst_4 = arith.constant dense<7> : tensor<3xindex>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4 : tensor<4x4xf32>, tensor<16xi32>, vector<8xf32>, tensor<2x3xi1>, tensor<f32>, tensor<3xindex>
// CHECK-NEXT: }
func.func @splats() -> (tensor<4x4xf32>, tensor<16xi32>, vector<8xf32>, tensor<2x3xi1>, tensor<f32>, tensor<3xindex>) {
  %a = arith.constant dense<0.0> : tensor<4x4xf32>
  %b = arith.constant dense<-3> : tensor<16xi32>
  %c = arith.constant dense<1.5> : vector<8xf32>
  %d = arith.constant dense<true> : tensor<2x3xi1>
  %e = arith.constant dense<2.0e-3> : tensor<f32>
  %f = arith.constant dense<7> : tensor<3xindex>
  return %a, %b, %c, %d, %e, %f : tensor<4x4xf32>, tensor<16xi32>, vector<8xf32>, tensor<2x3xi1>, tensor<f32>, tensor<3xindex>
}

// CHECK-LABEL: func.func @dense_arrays() -> (tensor<2x3xi32>, tensor<4xf32>, vector<2x2xf64>, tensor<3xi1>, tensor<2x2x2xi8>, tensor<3xindex>) {
// CHECK-NEXT: %cst = arith.constant dense<{{\[\[}}1, 2, 3], [-4, -5, -6]]> : tensor<2x3xi32>
// CHECK-NEXT: %cst_0 = arith.constant dense<[5.000000e-01, -1.250000e+00, 3.000000e+00, 1.000000e-07]> : tensor<4xf32>
// CHECK-NEXT: %cst_1 = arith.constant dense<{{\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]> : vector<2x2xf64>
// CHECK-NEXT: %cst_2 = arith.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-NEXT: %cst_3 = arith.constant dense<{{\[\[\[}}1, 2], [3, 4]], {{\[\[}}5, 6], [7, 8]]]> : tensor<2x2x2xi8>
// CHECK-NEXT: %cst_4 = arith.constant dense<[0, 1, 2]> : tensor<3xindex>
// CHECK-NEXT: return %cst, %cst_0, %cst_1, %cst_2, %cst_3, %cst_4 : tensor<2x3xi32>, tensor<4xf32>, vector<2x2xf64>, tensor<3xi1>, tensor<2x2x2xi8>, tensor<3xindex>
// CHECK-NEXT: }
func.func @dense_arrays() -> (tensor<2x3xi32>, tensor<4xf32>, vector<2x2xf64>, tensor<3xi1>, tensor<2x2x2xi8>, tensor<3xindex>) {
  %a = arith.constant dense<[[1, 2, 3], [-4, -5, -6]]> : tensor<2x3xi32>
  %b = arith.constant dense<[0.5, -1.25, 3.0e+00, 1.0e-7]> : tensor<4xf32>
  %c = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : vector<2x2xf64>
  %d = arith.constant dense<[true, false, true]> : tensor<3xi1>
  %e = arith.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi8>
  %f = arith.constant dense<[0, 1, 2]> : tensor<3xindex>
  return %a, %b, %c, %d, %e, %f : tensor<2x3xi32>, tensor<4xf32>, vector<2x2xf64>, tensor<3xi1>, tensor<2x2x2xi8>, tensor<3xindex>
}

// CHECK-LABEL: func.func @dense_f16_bf16() -> (tensor<3xf16>, tensor<2xbf16>, tensor<0xf32>) {
// CHECK-NEXT: %cst = arith.constant dense<[1.000000e+00, -5.000000e-01, 6.550400e+04]> : tensor<3xf16>
// CHECK-NEXT: %cst_0 = arith.constant dense<[3.000000e+00, 1.000980e-01]> : tensor<2xbf16>
// CHECK-NEXT: %cst_1 = arith.constant dense<> : tensor<0xf32>
// CHECK-NEXT: return %cst, %cst_0, %cst_1 : tensor<3xf16>, tensor<2xbf16>, tensor<0xf32>
// CHECK-NEXT: }
func.func @dense_f16_bf16() -> (tensor<3xf16>, tensor<2xbf16>, tensor<0xf32>) {
  %a = arith.constant dense<[1.0, -0.5, 65504.0]> : tensor<3xf16>
  %b = arith.constant dense<[3.0, 0.1]> : tensor<2xbf16>
  %c = arith.constant dense<> : tensor<0xf32>
  return %a, %b, %c : tensor<3xf16>, tensor<2xbf16>, tensor<0xf32>
}

// CHECK-LABEL: func.func @hundred_elements_stay_a_list() -> tensor<100xi32> {
// CHECK-NEXT: %cst = arith.constant dense<[-50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]> : tensor<100xi32>
// CHECK-NEXT: return %cst : tensor<100xi32>
// CHECK-NEXT: }
func.func @hundred_elements_stay_a_list() -> tensor<100xi32> {
  %a = arith.constant dense<[-50, -49, -48, -47, -46, -45, -44, -43, -42, -41, -40, -39, -38, -37, -36, -35, -34, -33, -32, -31, -30, -29, -28, -27, -26, -25, -24, -23, -22, -21, -20, -19, -18, -17, -16, -15, -14, -13, -12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49]> : tensor<100xi32>
  return %a : tensor<100xi32>
}

// CHECK-LABEL: func.func @large_becomes_hex() -> (tensor<101xi8>, tensor<8x16xf32>) {
// CHECK-NEXT: %cst = arith.constant dense<"0x80A5CAEF14395E83A8CDF2173C6186ABD0F51A3F6489AED3F81D42678CB1D6FB20456A8FB4D9FE23486D92B7DC01264B7095BADF04294E7398BDE2072C51769BC0E50A2F54799EC3E80D32577CA1C6EB10355A7FA4C9EE13385D82A7CCF1163B6085AACFF4"> : tensor<101xi8>
// CHECK-NEXT: %cst_0 = arith.constant dense<"0x000000C10000F8C00000F0C00000E8C00000E0C00000D8C00000D0C00000C8C00000C0C00000B8C00000B0C00000A8C00000A0C0000098C0000090C0000088C0000080C0000070C0000060C0000050C0000040C0000030C0000020C0000010C0000000C00000E0BF0000C0BF0000A0BF000080BF000040BF000000BF000080BE000000000000803E0000003F0000403F0000803F0000A03F0000C03F0000E03F0000004000001040000020400000304000004040000050400000604000007040000080400000884000009040000098400000A0400000A8400000B0400000B8400000C0400000C8400000D0400000D8400000E0400000E8400000F0400000F84000000041000004410000084100000C4100001041000014410000184100001C4100002041000024410000284100002C4100003041000034410000384100003C4100004041000044410000484100004C4100005041000054410000584100005C4100006041000064410000684100006C4100007041000074410000784100007C41000080410000824100008441000086410000884100008A4100008C4100008E41000090410000924100009441000096410000984100009A4100009C4100009E410000A0410000A2410000A4410000A6410000A8410000AA410000AC410000AE410000B0410000B2410000B4410000B6410000B8410000BA410000BC410000BE41"> : tensor<128xf32>
// CHECK-NEXT: %expanded = tensor.expand_shape %cst_0 {{\[\[}}0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
// CHECK-NEXT: return %cst, %expanded : tensor<101xi8>, tensor<8x16xf32>
// CHECK-NEXT: }
func.func @large_becomes_hex() -> (tensor<101xi8>, tensor<8x16xf32>) {
  %a = arith.constant dense<[-128, -91, -54, -17, 20, 57, 94, -125, -88, -51, -14, 23, 60, 97, -122, -85, -48, -11, 26, 63, 100, -119, -82, -45, -8, 29, 66, 103, -116, -79, -42, -5, 32, 69, 106, -113, -76, -39, -2, 35, 72, 109, -110, -73, -36, 1, 38, 75, 112, -107, -70, -33, 4, 41, 78, 115, -104, -67, -30, 7, 44, 81, 118, -101, -64, -27, 10, 47, 84, 121, -98, -61, -24, 13, 50, 87, 124, -95, -58, -21, 16, 53, 90, 127, -92, -55, -18, 19, 56, 93, -126, -89, -52, -15, 22, 59, 96, -123, -86, -49, -12]> : tensor<101xi8>
  %b = arith.constant dense<[-8.0, -7.75, -7.5, -7.25, -7.0, -6.75, -6.5, -6.25, -6.0, -5.75, -5.5, -5.25, -5.0, -4.75, -4.5, -4.25, -4.0, -3.75, -3.5, -3.25, -3.0, -2.75, -2.5, -2.25, -2.0, -1.75, -1.5, -1.25, -1.0, -0.75, -0.5, -0.25, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75, 3.0, 3.25, 3.5, 3.75, 4.0, 4.25, 4.5, 4.75, 5.0, 5.25, 5.5, 5.75, 6.0, 6.25, 6.5, 6.75, 7.0, 7.25, 7.5, 7.75, 8.0, 8.25, 8.5, 8.75, 9.0, 9.25, 9.5, 9.75, 10.0, 10.25, 10.5, 10.75, 11.0, 11.25, 11.5, 11.75, 12.0, 12.25, 12.5, 12.75, 13.0, 13.25, 13.5, 13.75, 14.0, 14.25, 14.5, 14.75, 15.0, 15.25, 15.5, 15.75, 16.0, 16.25, 16.5, 16.75, 17.0, 17.25, 17.5, 17.75, 18.0, 18.25, 18.5, 18.75, 19.0, 19.25, 19.5, 19.75, 20.0, 20.25, 20.5, 20.75, 21.0, 21.25, 21.5, 21.75, 22.0, 22.25, 22.5, 22.75, 23.0, 23.25, 23.5, 23.75]> : tensor<128xf32>
  %c = tensor.expand_shape %b [[0, 1]] output_shape [8, 16] : tensor<128xf32> into tensor<8x16xf32>
  return %a, %c : tensor<101xi8>, tensor<8x16xf32>
}

// CHECK-LABEL: func.func @hex_input() -> (tensor<2x2xi32>, tensor<3xf32>) {
// CHECK-NEXT: %cst = arith.constant dense<{{\[\[}}1, 2], [3, 4]]> : tensor<2x2xi32>
// CHECK-NEXT: %cst_0 = arith.constant dense<[1.000000e+00, 2.000000e+00, -3.000000e+00]> : tensor<3xf32>
// CHECK-NEXT: return %cst, %cst_0 : tensor<2x2xi32>, tensor<3xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @hex_input() -> (tensor<2x2xi32>, tensor<3xf32>) {
  %a = arith.constant dense<"0x01000000020000000300000004000000"> : tensor<2x2xi32>
  %b = arith.constant dense<"0x0000803F00000040000040C0"> : tensor<3xf32>
  return %a, %b : tensor<2x2xi32>, tensor<3xf32>
}
