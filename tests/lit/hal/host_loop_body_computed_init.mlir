// RUN: not kiln-opt %s --pass-pipeline=flow,hal 2>&1 | FileCheck %s
// A host loop takes arguments, constants and earlier host loops' results;
// a kernel's result as its initial value is refused (not supported yet)
// at the loop.
func.func private @step(%acc: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.host_loop_body} {
  %y = arith.addf %acc, %acc : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %s = arith.mulf %x, %x : tensor<4xf32>
  // CHECK: host_loop_body_computed_init.mlir:[[@LINE+1]]:8: error: 'scf.for' op plan-memory: function @main: a host loop takes a value that is neither an argument, a constant nor an earlier host loop's result (dispatch results entering a host loop are not supported yet)
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %s) -> (tensor<4xf32>) {
    %y = func.call @step(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
