// arith.bitcast may regroup the bits of a 1-D integer vector into other
// lanes (the int8 microkernel reads its i32 column sums from packed i8
// weights; %0 verifies), but not float lanes.
// RUN: not kiln-opt %s 2>&1 | FileCheck %s
func.func @f(%a: vector<64xi8>, %b: vector<16xf32>) -> (vector<16xi32>, vector<64xi8>) {
  %0 = arith.bitcast %a : vector<64xi8> to vector<16xi32>
  // CHECK: bad-vector-regroup.mlir:[[@LINE+1]]:8: error: 'arith.bitcast' op regroups lanes of integer vectors only
  %1 = arith.bitcast %b : vector<16xf32> to vector<64xi8>
  return %0, %1 : vector<16xi32>, vector<64xi8>
}
