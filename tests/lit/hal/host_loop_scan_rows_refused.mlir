// RUN: not kiln-opt %s --pass-pipeline=flow,hal 2>&1 | FileCheck %s
// A host loop writes only whole rows into a buffer it carries (the ONNX
// importer's scan outputs): plan-memory copies a row's bytes at step *
// the buffer's row bytes, so part of a row (here 2 of 3 columns, at
// column 0) is refused by name, not copied at the wrong stride.
// CHECK: plan-memory: function @main: a host loop's scan row does not fit its buffer
func.func private @step(%acc: tensor<?xf32>, %i: index) -> (tensor<?xf32>, tensor<2xf32>) attributes {kiln.host_loop_body} {
  %c0 = arith.constant 0 : index
  %m = tensor.dim %acc, %c0 : tensor<?xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%acc : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.addf %a, %a : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  %r = tensor.extract_slice %y[0] [2] [1] : tensor<?xf32> to tensor<2xf32>
  return %y, %r : tensor<?xf32>, tensor<2xf32>
}

func.func @main(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<?x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant dense<> : tensor<0x3xf32>
  %zc = tensor.cast %z : tensor<0x3xf32> to tensor<?x3xf32>
  %first = arith.minsi %n, %c1 : index
  %a:2 = scf.for %i = %c0 to %first step %c1 iter_args(%acc = %x, %buf = %zc) -> (tensor<?xf32>, tensor<?x3xf32>) {
    %r:2 = func.call @step(%acc, %i) : (tensor<?xf32>, index) -> (tensor<?xf32>, tensor<2xf32>)
    %b = tensor.empty(%n) : tensor<?x3xf32>
    %w = tensor.insert_slice %r#1 into %b[%i, 0] [1, 2] [1, 1] : tensor<2xf32> into tensor<?x3xf32>
    scf.yield %r#0, %w : tensor<?xf32>, tensor<?x3xf32>
  }
  return %a#0, %a#1 : tensor<?xf32>, tensor<?x3xf32>
}
