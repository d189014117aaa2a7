// linalg.generic without inputs (outs only, linalg.index), and with two results (%1:2, '-> (t, t)', '%out_0' names, %1#1 uses).
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: module {
// CHECK:   func.func @iota(%arg0: tensor<3x4xi32>) -> tensor<3x4xi32> {
// CHECK:     %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%arg0 : tensor<3x4xi32>) {
// CHECK:     ^bb0(%out: i32):
// CHECK:       %2 = linalg.index 0 : index
// CHECK:       %3 = linalg.index 1 : index
// CHECK:       %4 = arith.addi %2, %3 : index
// CHECK:       %5 = arith.index_cast %4 : index to i32
// CHECK:       linalg.yield %5 : i32
// CHECK:     } -> tensor<3x4xi32>
// CHECK:     %1:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<3x4xi32>) outs(%arg0, %arg0 : tensor<3x4xi32>, tensor<3x4xi32>) {
// CHECK:     ^bb0(%in: i32, %out: i32, %out_0: i32):
// CHECK:       linalg.yield %in, %in : i32, i32
// CHECK:     } -> (tensor<3x4xi32>, tensor<3x4xi32>)
// CHECK:     return %1#1 : tensor<3x4xi32>
// CHECK:   }
// CHECK: }

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @iota(%o: tensor<3x4xi32>) -> tensor<3x4xi32> {
  %0 = linalg.generic {indexing_maps = [#map], iterator_types = ["parallel", "parallel"]} outs(%o : tensor<3x4xi32>) {
  ^bb0(%out: i32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %c = arith.index_cast %s : index to i32
    linalg.yield %c : i32
  } -> tensor<3x4xi32>
  %1:2 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<3x4xi32>) outs(%o, %o : tensor<3x4xi32>, tensor<3x4xi32>) {
  ^bb0(%in: i32, %a: i32, %b: i32):
    linalg.yield %in, %in : i32, i32
  } -> (tensor<3x4xi32>, tensor<3x4xi32>)
  return %1#1 : tensor<3x4xi32>
}
