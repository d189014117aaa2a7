// Affine map spelling and the simplifications MLIR applies on construction
// (constants and symbols to the right, x * 1, x + 0); subtraction printed as
// '-'. The CHECK lines are mlir-opt-19's output for this file.
// RUN: kiln-opt --allow-unregistered-dialect %s | FileCheck --match-full-lines %s
// RUN: kiln-opt --allow-unregistered-dialect %s > %t.1 && kiln-opt --allow-unregistered-dialect %t.1 > %t.2 && diff %t.1 %t.2
// REQUIRES: mlir-opt
// RUN: mlir-opt --allow-unregistered-dialect %s | diff - %t.1

// CHECK: #map = affine_map<(d0, d1)[s0, s1] -> (d0 * s0 + s1, d0 - d1 * 2, d0 * -2 + 3, -(d0 + d1), (d0 + d1) * 3, d0 floordiv s0, (d0 mod 4) * 2, d1 + d0, d0 + 2, d0 + s0, d0, d0, d1 * 3, d0 - 5, d0 ceildiv 2 - 1, (d0 + 1) mod 3 + d1 floordiv 2)>
// CHECK: #map1 = affine_map<(d0) -> ()>
// CHECK: #map2 = affine_map<() -> ()>
// CHECK: #map3 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK: module {
// CHECK:   "test.op"() {a = #map, b = #map1, c = #map2, e = #map3} : () -> ()
// CHECK: }

"test.op"() {a = affine_map<(d0, d1)[s0, s1] -> (d0 * s0 + s1, d0 - d1 * 2, d0 * -2 + 3, -(d0 + d1), (d0 + d1) * 3, d0 floordiv s0, (d0 mod 4) * 2, d1 + d0, 2 + d0, s0 + d0, d0 * 1, d0 + 0, 3 * d1, d0 - 5, d0 ceildiv 2 - 1, (d0 + 1) mod 3 + d1 floordiv 2)>, b = affine_map<(d0) -> ()>, c = affine_map<() -> ()>, e = affine_map<(i, j) -> (j, i)>} : () -> ()
