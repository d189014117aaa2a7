// RUN: not kiln-opt %s --pass-pipeline=flow,hal 2>&1 | FileCheck %s
// A host loop's result may be returned or carried into another host loop;
// a kernel reading it is refused (not supported yet) at the reader.
func.func private @step(%acc: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.host_loop_body} {
  %y = arith.addf %acc, %acc : tensor<4xf32>
  return %y : tensor<4xf32>
}

func.func @main(%x: tensor<4xf32>, %n: tensor<i64>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.extract %n[] : tensor<i64>
  %trip = arith.index_cast %t : i64 to index
  %r = scf.for %i = %c0 to %trip step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %y = func.call @step(%acc) : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %y : tensor<4xf32>
  }
  // CHECK: host_loop_body_result_read.mlir:[[@LINE+1]]:8: error: 'flow.dispatch' op plan-memory: function @main: reads a host loop's result (only returning it or carrying it into another host loop is supported yet)
  %s = arith.mulf %r, %r : tensor<4xf32>
  return %s : tensor<4xf32>
}
