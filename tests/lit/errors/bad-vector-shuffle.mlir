// vector.shuffle takes two 1-D vectors of one type and a mask whose
// entries pick lanes of the two (here 8 lanes: 0..7).
// RUN: not kiln-opt --split-input-file %s 2>&1 | FileCheck %s
func.func @f(%a: vector<4xf32>) -> vector<4xf32> {
  // CHECK: bad-vector-shuffle.mlir:[[@LINE+1]]:8: error: 'vector.shuffle' op mask entry 2 (8) is out of bounds for two vectors of 4 lanes
  %s = vector.shuffle %a, %a [0, 1, 8, 3] : vector<4xf32>, vector<4xf32>
  return %s : vector<4xf32>
}
// -----
func.func @g(%a: vector<4xf32>, %b: vector<8xf32>) -> vector<4xf32> {
  // CHECK: bad-vector-shuffle.mlir:[[@LINE+1]]:8: error: 'vector.shuffle' op expects two 1-D vector operands of the same type
  %s = vector.shuffle %a, %b [0, 1, 2, 3] : vector<4xf32>, vector<8xf32>
  return %s : vector<4xf32>
}
