// A regrouping arith.bitcast keeps every bit: 12 x i8 is not 4 x i32.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%c: vector<12xi8>) -> vector<4xi32> {
  // CHECK: bad-vector-regroup-bits.mlir:[[@LINE+1]]:8: error: 'arith.bitcast' op requires the same shape for all operands and results
  %0 = arith.bitcast %c : vector<12xi8> to vector<4xi32>
  return %0 : vector<4xi32>
}
