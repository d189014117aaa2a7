// REQUIRES: kiln-compile kiln-run
// RUN: kiln-compile %s -o %t.kiln
// RUN: kiln-run --module=%t.kiln --function=pick --input=3xf32=1,2,3 --input=3xf32=4,5,6 --input=i1=1 | FileCheck %s --check-prefix=TRUE
// RUN: kiln-run --module=%t.kiln --function=pick --input=3xf32=1,2,3 --input=3xf32=4,5,6 --input=i1=false | FileCheck %s --check-prefix=FALSE
// RUN: kiln-run --module=%t.kiln --function=affine --input=f32=3.5 --input=i32=7 | FileCheck %s --check-prefix=AFFINE
// RUN: not kiln-run --module=%t.kiln --function=affine --input=f32=3.5 --input=f32=7 2>&1 | FileCheck %s --check-prefix=WRONG
// Scalar arguments and results through kiln-compile and kiln-run, on the
// command line as kiln-run writes them: `--input=f32=3.5`, `--input=i1=1`,
// results printed as `f32=...`. A scalar of the wrong element type is
// refused naming the input.
// TRUE: result[0]: 3xf32=5 7 9
// TRUE-NEXT: result[1]: f32=14
// FALSE: result[0]: 3xf32=4 10 18
// FALSE-NEXT: result[1]: f32=22
// AFFINE: result[0]: f32=28.5
// AFFINE-NEXT: result[1]: i32=50
// AFFINE-NEXT: result[2]: i1=1
// WRONG: input 1
func.func @pick(%a: tensor<3xf32>, %b: tensor<3xf32>, %p: i1) -> (tensor<3xf32>, f32) {
  %r = scf.if %p -> (tensor<3xf32>) {
    %x = arith.addf %a, %b : tensor<3xf32>
    scf.yield %x : tensor<3xf32>
  } else {
    %y = arith.mulf %a, %b : tensor<3xf32>
    scf.yield %y : tensor<3xf32>
  }
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %t0 = tensor.extract %r[%c0] : tensor<3xf32>
  %t1 = tensor.extract %r[%c2] : tensor<3xf32>
  %s = arith.addf %t0, %t1 : f32
  %f = arith.subf %s, %zero : f32
  %h = arith.divf %f, %f : f32
  %o = arith.mulf %f, %h : f32
  return %r, %o : tensor<3xf32>, f32
}
func.func @affine(%x: f32, %n: i32) -> (f32, i32, i1) {
  %nf = arith.sitofp %n : i32 to f32
  %m = arith.mulf %x, %nf : f32
  %four = arith.constant 4.0 : f32
  %r = arith.addf %m, %four : f32
  %nn = arith.muli %n, %n : i32
  %one = arith.constant 1 : i32
  %q = arith.addi %nn, %one : i32
  %big = arith.cmpi sgt, %q, %n : i32
  return %r, %q, %big : f32, i32, i1
}
