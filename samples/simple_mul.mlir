// IREE's classic first sample: c = a * b, elementwise on tensor<4xf32>.
//   kiln-compile samples/simple_mul.mlir -o simple_mul.kiln
//   kiln-run --module=simple_mul.kiln --function=simple_mul \
//       --input=4xf32=1,2,3,4 --input=4xf32=5,6,7,8
func.func @simple_mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.mulf %a, %b : tensor<4xf32>
  return %c : tensor<4xf32>
}
