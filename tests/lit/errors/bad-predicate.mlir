// An arith.cmpi predicate that does not exist.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: i32) -> i1 {
  // CHECK: bad-predicate.mlir:[[@LINE+1]]:19: error: invalid cmpi predicate 'lessthan'
  %0 = arith.cmpi lessthan, %a, %a : i32
  return %0 : i1
}
