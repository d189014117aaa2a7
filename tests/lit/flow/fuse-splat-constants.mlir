// RUN: kiln-opt %s --fuse-elementwise | FileCheck %s
// fuse-elementwise turns a generic's splat-constant inputs (rank 0 or
// broadcast, as the ONNX importer leaves a Pow's exponent or an epsilon)
// into scalar constants in its body; an input that alone sizes a loop
// stays an input.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#s = affine_map<(d0, d1) -> ()>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>

// The decomposed LayerNorm's (x - mean)^2: the exponent is in the body,
// and the constant tensor is gone.
// CHECK-LABEL: func.func @pow_exponent
// CHECK-NOT: arith.constant dense
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4x8xf32>)
// CHECK: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: math.powf %{{.*}}, %[[TWO]] : f32
func.func @pow_exponent(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %two = arith.constant dense<2.0> : tensor<f32>
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id2, #s, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %two : tensor<4x8xf32>, tensor<f32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = math.powf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// A splat read through a broadcast map, and an integer splat.
// CHECK-LABEL: func.func @broadcast_splats
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<4x8xi32>)
// CHECK-DAG: arith.constant 2.500000e-01 : f32
// CHECK-DAG: arith.constant 3 : i32
func.func @broadcast_splats(%x: tensor<4x8xf32>, %i: tensor<4x8xi32>) -> tensor<4x8xf32> {
  %eps = arith.constant dense<0.25> : tensor<8xf32>
  %three = arith.constant dense<3> : tensor<4xi32>
  %e = tensor.empty() : tensor<4x8xf32>
  %g = linalg.generic {indexing_maps = [#id2, #col, #id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %eps, %i, %three : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xi32>, tensor<4xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: i32, %d: i32, %out: f32):
    %s = arith.addi %c, %d : i32
    %f = arith.sitofp %s : i32 to f32
    %t = arith.addf %a, %b : f32
    %r = arith.mulf %t, %f : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %g : tensor<4x8xf32>
}

// The splat alone sizes the reduction loop d1: it stays an input.
// CHECK-LABEL: func.func @sizes_a_loop
// CHECK: arith.constant dense<5.000000e-01> : tensor<4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0, %{{.*}} : tensor<4xf32>, tensor<4x8xf32>)
func.func @sizes_a_loop(%x: tensor<4xf32>) -> tensor<4xf32> {
  %h = arith.constant dense<0.5> : tensor<4x8xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %g = linalg.generic {indexing_maps = [#row, #id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x, %h : tensor<4xf32>, tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %out, %m : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  return %g : tensor<4xf32>
}
