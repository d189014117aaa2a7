// An affine map result naming a dimension it did not declare.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
// CHECK: bad-affine-map.mlir:[[@LINE+1]]:32: error: use of undeclared identifier 'd2' in affine map
#map = affine_map<(d0, d1) -> (d2, d0)>
func.func @f() {
  return
}
