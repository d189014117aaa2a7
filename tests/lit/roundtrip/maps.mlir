// Round trip of affine maps: user-named #aliases (mlir-opt renames them
// #map, #map1, ... in order of first use and drops unused ones), inline
// affine_map<...> attributes (which get aliases too), maps shared between
// functions, and the expression forms: constants, sums, products,
// floordiv, ceildiv, mod and symbols.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

#identity = affine_map<(i, j) -> (i, j)>
#transposed = affine_map<(i, j) -> (j, i)>
#never_used = affine_map<(i) -> (i * 3)>
#to_scalar = affine_map<(i, j) -> ()>

// CHECK: #map = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-NEXT: #map1 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-NEXT: #map2 = affine_map<(d0, d1) -> ()>
// CHECK-NEXT: #map3 = affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2 * 3)>
// CHECK-NEXT: #map4 = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-NEXT: #map5 = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-NEXT: #map6 = affine_map<() -> (0, 42)>
// CHECK-NEXT: #map7 = affine_map<(d0, d1) -> (d0 floordiv 4, d1 ceildiv 8, d0 mod 16)>
// CHECK-NEXT: #map8 = affine_map<(d0)[s0, s1] -> (d0 * s0 + s1, -d0 + 7)>
// CHECK-NEXT: module {
// CHECK-LABEL: func.func @named_aliases(%arg0: tensor<4x6xf32>, %arg1: tensor<6x4xf32>) -> tensor<6x4xf32> {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<4x6xf32>) outs(%arg1 : tensor<6x4xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: linalg.yield %in : f32
// CHECK-NEXT: } -> tensor<6x4xf32>
// CHECK-NEXT: return %0 : tensor<6x4xf32>
// CHECK-NEXT: }
func.func @named_aliases(%x: tensor<4x6xf32>, %init: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %r = linalg.generic {indexing_maps = [#transposed, #identity], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x6xf32>) outs(%init : tensor<6x4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<6x4xf32>
  return %r : tensor<6x4xf32>
}

// CHECK-LABEL: func.func @reuse_and_inline(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>) -> tensor<f32> {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = ["reduction", "reduction"]} ins(%arg0 : tensor<4x6xf32>) outs(%arg1 : tensor<f32>) {
// CHECK-NEXT: ^bb0(%in: f32, %out: f32):
// CHECK-NEXT: %1 = arith.addf %in, %out : f32
// CHECK-NEXT: linalg.yield %1 : f32
// CHECK-NEXT: } -> tensor<f32>
// CHECK-NEXT: return %0 : tensor<f32>
// CHECK-NEXT: }
func.func @reuse_and_inline(%x: tensor<4x6xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, #to_scalar], iterator_types = ["reduction", "reduction"]}
      ins(%x : tensor<4x6xf32>) outs(%init : tensor<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK-LABEL: func.func @window(%arg0: tensor<1x21xf32>, %arg1: tensor<3xf32>, %arg2: tensor<1x8xf32>) -> tensor<1x8xf32> {
// CHECK-NEXT: %0 = linalg.generic {indexing_maps = [#map3, #map4, #map5], iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0, %arg1 : tensor<1x21xf32>, tensor<3xf32>) outs(%arg2 : tensor<1x8xf32>) {
// CHECK-NEXT: ^bb0(%in: f32, %in_0: f32, %out: f32):
// CHECK-NEXT: %1 = arith.maximumf %in, %out : f32
// CHECK-NEXT: linalg.yield %1 : f32
// CHECK-NEXT: } -> tensor<1x8xf32>
// CHECK-NEXT: return %0 : tensor<1x8xf32>
// CHECK-NEXT: }
func.func @window(%x: tensor<1x21xf32>, %win: tensor<3xf32>, %init: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(n, o, k) -> (n, o * 2 + k * 3)>, affine_map<(n, o, k) -> (k)>, affine_map<(n, o, k) -> (n, o)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %win : tensor<1x21xf32>, tensor<3xf32>) outs(%init : tensor<1x8xf32>) {
  ^bb0(%a: f32, %w: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  } -> tensor<1x8xf32>
  return %r : tensor<1x8xf32>
}

// CHECK-LABEL: func.func @map_attributes() attributes {kiln.const = #map6, kiln.div = #map7, kiln.id = #map1, kiln.sym = #map8} {
// CHECK-NEXT: return
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @map_attributes() attributes {
    kiln.div = affine_map<(d0, d1) -> (d0 floordiv 4, d1 ceildiv 8, d0 mod 16)>,
    kiln.sym = affine_map<(d0)[s0, s1] -> (d0 * s0 + s1, -d0 + 7)>,
    kiln.const = affine_map<() -> (0, 42)>,
    kiln.id = affine_map<(i, j) -> (i, j)>} {
  return
}
