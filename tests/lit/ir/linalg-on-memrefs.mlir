// Structured ops on memrefs: no results, no '-> type'; linalg.generic's doc and library_call in its leading dictionary.
// The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: #map = affine_map<(d0, d1) -> (d0, d1)>
// CHECK: module {
// CHECK:   func.func @m(%arg0: memref<4x8xf32>, %arg1: memref<8x16xf32>, %arg2: memref<4x16xf32>, %arg3: memref<16x4xf32>, %arg4: memref<4xf32>) {
// CHECK:     %cst = arith.constant 0.000000e+00 : f32
// CHECK:     linalg.fill ins(%cst : f32) outs(%arg2 : memref<4x16xf32>)
// CHECK:     linalg.matmul ins(%arg0, %arg1 : memref<4x8xf32>, memref<8x16xf32>) outs(%arg2 : memref<4x16xf32>)
// CHECK:     linalg.generic {doc = "copy", indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"], library_call = "my_copy"} ins(%arg2 : memref<4x16xf32>) outs(%arg2 : memref<4x16xf32>) {
// CHECK:     ^bb0(%in: f32, %out: f32):
// CHECK:       linalg.yield %in : f32
// CHECK:     }
// CHECK:     linalg.transpose ins(%arg2 : memref<4x16xf32>) outs(%arg3 : memref<16x4xf32>) permutation = [1, 0] 
// CHECK:     linalg.reduce { arith.addf } ins(%arg2 : memref<4x16xf32>) outs(%arg4 : memref<4xf32>) dimensions = [1] 
// CHECK:     return
// CHECK:   }
// CHECK: }

#map = affine_map<(d0, d1) -> (d0, d1)>
func.func @m(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %c: memref<4x16xf32>, %t: memref<16x4xf32>, %v: memref<4xf32>) {
  %cst = arith.constant 0.0 : f32
  linalg.fill ins(%cst : f32) outs(%c : memref<4x16xf32>)
  linalg.matmul ins(%a, %b : memref<4x8xf32>, memref<8x16xf32>) outs(%c : memref<4x16xf32>)
  linalg.generic {doc = "copy", indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"], library_call = "my_copy"} ins(%c : memref<4x16xf32>) outs(%c : memref<4x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  linalg.transpose ins(%c : memref<4x16xf32>) outs(%t : memref<16x4xf32>) permutation = [1, 0]
  linalg.reduce { arith.addf } ins(%c : memref<4x16xf32>) outs(%v : memref<4xf32>) dimensions = [1]
  return
}
