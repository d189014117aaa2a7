#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%arg0: tensor<4x8xf32>, %a: tensor<8x16xf32>, %i: index) -> tensor<4x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %cc = arith.constant 0.1 : f32
  %cd = arith.constant 0.123456789 : f64
  %ce = arith.constant 3.4e38 : f32
  %c1 = arith.constant 1 : index
  %c2 = arith.constant -1 : i32
  %t = arith.constant true
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = linalg.matmul ins(%arg0, %a : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %g = linalg.generic {indexing_maps = [#map, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x16xf32>) outs(%m : tensor<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %y : f32
    %w = arith.addf %z, %c0 : f32
    linalg.yield %w : f32
  } -> tensor<4x16xf32>
  %d = tensor.dim %g, %c1 : tensor<4x16xf32>
  %cst = arith.constant dense<[1.0, 2.5]> : tensor<2xf32>
  %cst2 = arith.constant dense<1.0> : tensor<2xf32>
  %cst3 = arith.constant dense<[[1, 2],[3,4]]> : tensor<2x2xi32>
  %s = scf.for %iv = %c1 to %i step %c1 iter_args(%acc = %c0) -> (f32) {
    %q = arith.addf %acc, %c0 : f32
    scf.yield %q : f32
  }
  %r = scf.if %t -> (f32) {
    %q = arith.addf %s, %c0 : f32
    scf.yield %q : f32
  } else {
    %q = arith.mulf %s, %c0 : f32
    scf.yield %q : f32
  }
  %v = func.call @g(%r) : (f32) -> f32
  return %g : tensor<4x16xf32>
}
func.func private @g(f32) -> f32
