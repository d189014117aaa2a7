// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=chain --input=2x3xf32=1,2,3,4,5,6 --input=3x2xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=CHAIN
// RUN: kiln-run --module=%t.kiln --function=row_sum --input=2x4xf32=1,2,3,4,5,6,7,8 | FileCheck %s --check-prefix=ROWSUM
// RUN: kiln-run --module=%t.kiln --function=shared --input=4xf32=0,1,2,3 | FileCheck %s --check-prefix=SHARED
// RUN: kiln-run --module=%t.kiln --function=ret_arg --input=2x3xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=RETARG
// RUN: kiln-run --module=%t.kiln --function=views --input=2x3xf32=1,2,3,4,5,6 | FileCheck %s --check-prefix=VIEWS
// RUN: kiln-run --module=%t.kiln --function=int_select --input=4xi32=1,5,3,-7 --input=4xi32=2,4,3,-8 | FileCheck %s --check-prefix=SELECT
// RUN: kiln-run --module=%t.kiln --function=matmuls --input=2x2xf32=1,2,3,4 | FileCheck %s --check-prefix=MATMULS
// RUN: kiln-run --module=%t.kiln --function=matmuls --input=2x2xf32=1,0,0,1 | FileCheck %s --check-prefix=MATMULS-ID
// RUN: kiln-run --module=%t.kiln --function=gather --input=5xf32=10,11,12,13,14 --input=3xi32=4,0,2 | FileCheck %s --check-prefix=GATHER
// RUN: kiln-run --module=%t.kiln --function=scalar_ops --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=SCALARS
// RUN: kiln-run --module=%t.kiln --function=loop_over_tensor --input=8x8xf32=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64 | FileCheck %s --check-prefix=LOOP
// RUN: kiln-run --module=%t.kiln --function=power --input=4xf32=1,2,3,4 | FileCheck %s --check-prefix=POWER
// RUN: kiln-run --module=%t.kiln --function=choose --input=4xf32=1,2,3,4 --input=4xf32=5,6,7,8 | FileCheck %s --check-prefix=THEN
// RUN: kiln-run --module=%t.kiln --function=choose --input=4xf32=9,2,3,4 --input=4xf32=5,6,7,8 | FileCheck %s --check-prefix=ELSE
//
// What the flow and hal stages do, checked by running it (with the rest of
// the pipeline): fusion through a transpose and of x*x, a square folded
// into a reduction, a producer recomputed in two consumers, results that
// are arguments, views of arguments and constants (copies), reshape views
// of an intermediate, i1 intermediates, dispatch results reused from the
// arena, tensor.extract inside a generic body (a gather), and scalars
// extracted on the host feeding tensor.insert / tensor.from_elements
// (recomputed inside the kernels), loops and branches on tensors inside
// a kernel (dynamic slices). Values are small integers so the output is
// exact.
// CHAIN: result[0]: 3x2xf32=[4 36][25 81][64 144]
// ROWSUM: result[0]: 2xf32=31 175
// SHARED: result[0]: 4xf32=2 4 6 8
// SHARED-NEXT: result[1]: 4xf32=3 6 9 12
// RETARG: result[0]: 2x3xf32=[1 2 3][4 5 6]
// RETARG-NEXT: result[1]: 6xf32=1 2 3 4 5 6
// RETARG-NEXT: result[2]: 3xf32=7 8 9
// VIEWS: result[0]: 3x2xf32=[-1 -2][-3 -4][-5 -6]
// SELECT: result[0]: 4xi32=1 4 3 -8
// MATMULS: result[0]: 2x2xf32=[99 190][335 534]
// MATMULS-ID: result[0]: 2x2xf32=[0 0][0 0]
// GATHER: result[0]: 3xf32=14 10 12
// SCALARS: result[0]: 4xf32=1 6 3 4
// SCALARS-NEXT: result[1]: 2xf32=2 6
// LOOP: result[0]: 8x8xf32=[-1 -2 -3 -4 -5 -6 -7 -8][-9 -10 -11 -12 -13 -14 -15 -16][-17 -18 -19 -20 -21 -22 -23 -24][-25 -26 -27 -28 -29 -30 -31 -32][-33 -34 -35 -36 -37 -38 -39 -40][-41 -42 -43 -44 -45 -46 -47 -48][-49 -50 -51 -52 -53 -54 -55 -56][-57 -58 -59 -60 -61 -62 -63 -64]
// POWER: result[0]: 4xf32=1 3 81 256
// THEN: result[0]: 4xf32=6 8 10 12
// ELSE: result[0]: 4xf32=4 -4 -4 -4
func.func @chain(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %y = arith.addf %t, %b : tensor<3x2xf32>
  %z = arith.mulf %y, %y : tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}
func.func @row_sum(%a: tensor<2x4xf32>) -> tensor<2xf32> {
  %sq = arith.mulf %a, %a : tensor<2x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
  %s = linalg.reduce ins(%sq : tensor<2x4xf32>) outs(%z : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %0 = arith.addf %in, %init : f32
      linalg.yield %0 : f32
    }
  %one = arith.constant dense<1.0> : tensor<2xf32>
  %r = arith.addf %s, %one : tensor<2xf32>
  return %r : tensor<2xf32>
}
func.func @shared(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant dense<1.0> : tensor<4xf32>
  %three = arith.constant dense<3.0> : tensor<4xf32>
  %x = arith.addf %a, %one : tensor<4xf32>
  %y = arith.addf %x, %x : tensor<4xf32>
  %z = arith.mulf %x, %three : tensor<4xf32>
  return %y, %z : tensor<4xf32>, tensor<4xf32>
}
func.func @ret_arg(%a: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<6xf32>, tensor<3xf32>) {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %c = arith.constant dense<[7.0, 8.0, 9.0]> : tensor<3xf32>
  return %a, %r, %c : tensor<2x3xf32>, tensor<6xf32>, tensor<3xf32>
}
func.func @views(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %r = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %s = tensor.expand_shape %r [[0, 1]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
  %n = arith.negf %s : tensor<2x3xf32>
  %f = tensor.collapse_shape %n [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %g = tensor.expand_shape %f [[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
  return %g : tensor<3x2xf32>
}
func.func @int_select(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %c = arith.cmpi slt, %a, %b : tensor<4xi32>
  %s = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xi32>
  return %s : tensor<4xi32>
}
func.func @matmuls(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m1 = linalg.matmul ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m2 = linalg.matmul ins(%m1, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %m3 = linalg.matmul ins(%m2, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%z : tensor<2x2xf32>) -> tensor<2x2xf32>
  %b = arith.constant dense<-100.0> : tensor<2x2xf32>
  %s = arith.addf %m3, %b : tensor<2x2xf32>
  %zs = arith.constant dense<0.0> : tensor<2x2xf32>
  %r = arith.maximumf %s, %zs : tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}
func.func @gather(%table: tensor<5xf32>, %idx: tensor<3xi32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%idx : tensor<3xi32>) outs(%e : tensor<3xf32>) {
  ^bb0(%i: i32, %o: f32):
    %ii = arith.index_cast %i : i32 to index
    %v = tensor.extract %table[%ii] : tensor<5xf32>
    linalg.yield %v : f32
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}
func.func @scalar_ops(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<2xf32>) {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %x = tensor.extract %a[%c1] : tensor<4xf32>
  %y = tensor.extract %a[%c3] : tensor<4xf32>
  %s = arith.addf %x, %y : f32
  %i = tensor.insert %s into %a[%c1] : tensor<4xf32>
  %f = tensor.from_elements %x, %s : tensor<2xf32>
  return %i, %f : tensor<4xf32>, tensor<2xf32>
}
func.func @loop_over_tensor(%t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %r = scf.for %i = %c0 to %c8 step %c2 iter_args(%acc = %t) -> (tensor<8x8xf32>) {
    %tile = tensor.extract_slice %acc[%i, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
    %neg = arith.negf %tile : tensor<2x8xf32>
    %ins = tensor.insert_slice %neg into %acc[%i, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<8x8xf32>
    scf.yield %ins : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
func.func @power(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %s = %z) -> (tensor<4xf32>, f32) {
    %m = arith.mulf %acc, %x : tensor<4xf32>
    %e = tensor.extract %m[%c0] : tensor<4xf32>
    %s2 = arith.addf %s, %e : f32
    %m2 = tensor.insert %s2 into %m[%c1] : tensor<4xf32>
    scf.yield %m2, %s2 : tensor<4xf32>, f32
  }
  return %r#0 : tensor<4xf32>
}
func.func @choose(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %x[%c0] : tensor<4xf32>
  %b = tensor.extract %y[%c0] : tensor<4xf32>
  %p = arith.cmpf olt, %a, %b : f32
  %r = scf.if %p -> (tensor<4xf32>) {
    %s = arith.addf %x, %y : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  } else {
    %d = arith.subf %x, %y : tensor<4xf32>
    scf.yield %d : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
