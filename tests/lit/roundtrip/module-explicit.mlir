// Round trip of a file that spells out its top-level `module { ... }`
// (mlir-opt prints it once, it does not nest a second one around it), with
// an alias defined before the module.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

#map = affine_map<(d0) -> (d0)>
module {
// CHECK: #map = affine_map<(d0) -> (d0)>
// CHECK-NEXT: module {
// CHECK-LABEL: func.func @double(%arg0: tensor<8xf32>) -> tensor<8xf32> {
// CHECK-NEXT: %0 = tensor.empty() : tensor<8xf32>
// CHECK-NEXT: %1 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%arg0 : tensor<8xf32>) outs(%0 : tensor<8xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %2 = arith.addf %in, %in : f32
// CHECK-NEXT: linalg.yield %2 : f32
// CHECK-NEXT: } -> tensor<8xf32>
// CHECK-NEXT: return %1 : tensor<8xf32>
// CHECK-NEXT: }
  func.func @double(%x: tensor<8xf32>) -> tensor<8xf32> {
    %e = tensor.empty() : tensor<8xf32>
    %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {
    ^bb0(%a: f32, %o: f32):
      %d = arith.addf %a, %a : f32
      linalg.yield %d : f32
    } -> tensor<8xf32>
    return %r : tensor<8xf32>
  }
// CHECK-LABEL: func.func private @helper(f32) -> f32
// CHECK-NEXT: }
  func.func private @helper(f32) -> f32
}
