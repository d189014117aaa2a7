// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// flow.list ops are verified: an inserted element must be a ranked
// tensor of the list's element type, positions index values.

func.func @main(%l: !kiln.seq<tensor<?xf32>>, %t: tensor<2xi32>, %p: index) -> !kiln.seq<tensor<?xf32>> {
  // CHECK: host-list-errors.mlir:[[@LINE+1]]:8: error: 'flow.list.insert' op inserts a value that is not a ranked tensor of the list's element type
  %r = "flow.list.insert"(%l, %t, %p) : (!kiln.seq<tensor<?xf32>>, tensor<2xi32>, index) -> !kiln.seq<tensor<?xf32>>
  return %r : !kiln.seq<tensor<?xf32>>
}
