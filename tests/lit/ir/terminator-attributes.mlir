// Attributes on terminators print where mlir-opt-19 puts them and read
// back: func.return and scf.yield take the attribute dictionary before the
// operands, linalg.yield (like vm.ret) after them. The CHECK lines are
// mlir-opt-19's output for this file.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.1
// RUN: mlir-opt %t.1 | diff - %t.1

// CHECK: #map = affine_map<(d0) -> (d0)>
// CHECK: module {
// CHECK:   func.func @f(%arg0: i1, %arg1: f32, %arg2: tensor<4xf32>) -> (f32, tensor<4xf32>) {
// CHECK:     %0 = scf.if %arg0 -> (f32) {
// CHECK:       scf.yield {note = "then"} %arg1 : f32
// CHECK:     } else {
// CHECK:       scf.yield {note = "else"} %arg1 : f32
// CHECK:     }
// CHECK:     %1 = tensor.empty() : tensor<4xf32>
// CHECK:     %2 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg2 : tensor<4xf32>) outs(%1 : tensor<4xf32>) {
// CHECK:     ^bb0(%in: f32, %out: f32):
// CHECK:       linalg.yield %in {note = 1 : i32} : f32
// CHECK:     } -> tensor<4xf32>
// CHECK:     return {note = "ret"} %0, %2 : f32, tensor<4xf32>
// CHECK:   }
// CHECK: }

func.func @f(%c: i1, %x: f32, %t: tensor<4xf32>) -> (f32, tensor<4xf32>) {
  %r = scf.if %c -> f32 {
    "scf.yield"(%x) {note = "then"} : (f32) -> ()
  } else {
    scf.yield {note = "else"} %x : f32
  }
  %e = tensor.empty() : tensor<4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in {note = 1 : i32} : f32
  } -> tensor<4xf32>
  return {note = "ret"} %r, %g : f32, tensor<4xf32>
}
