// A product of two dimensions is not affine.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: non-affine-map.mlir:[[@LINE+1]]:35: error: non-affine expression: at least one of the multiply operands has to be either a constant or symbolic
#map = affine_map<(d0, d1) -> (d0 * d1)>
func.func @f() {
  return
}
