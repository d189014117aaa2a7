func.func @f() -> (tensor<200xf32>, tensor<4xf16>, tensor<3xi1>, f32, f64, bf16, f16) {
  %c = arith.constant dense<1.5> : tensor<200xf32>
  %d = arith.constant dense<[1.5, 2.0, 0.1, 65504.0]> : tensor<4xf16>
  %e = arith.constant dense<[true, false, true]> : tensor<3xi1>
  %f = arith.constant 0x7FC00000 : f32
  %g = arith.constant 1.0e-300 : f64
  %h = arith.constant 0.3 : bf16
  %i = arith.constant 0.1 : f16
  %j = arith.constant 123456789.0 : f32
  %k = arith.constant 1.0e20 : f64
  %l = arith.constant 1.2345678912345e-10 : f64
  %m = arith.constant 0x7F800000 : f32
  %n = arith.constant -0.0 : f32
  return %c, %d, %e, %f, %g, %h, %i : tensor<200xf32>, tensor<4xf16>, tensor<3xi1>, f32, f64, bf16, f16
}
