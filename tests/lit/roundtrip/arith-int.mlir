// Round trip of arith's integer ops on scalars, vectors and whole tensors:
// the binary ops, overflow flags, min/max, every cmpi predicate and select.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @binary_i32(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.subi %0, %arg1 : i32
// CHECK-NEXT: %2 = arith.muli %1, %arg0 : i32
// CHECK-NEXT: %3 = arith.divsi %2, %arg1 : i32
// CHECK-NEXT: %4 = arith.divui %3, %arg1 : i32
// CHECK-NEXT: %5 = arith.remsi %4, %arg0 : i32
// CHECK-NEXT: %6 = arith.andi %5, %arg1 : i32
// CHECK-NEXT: %7 = arith.ori %6, %arg0 : i32
// CHECK-NEXT: %8 = arith.xori %7, %arg1 : i32
// CHECK-NEXT: %9 = arith.shli %8, %arg0 : i32
// CHECK-NEXT: %10 = arith.shrsi %9, %arg1 : i32
// CHECK-NEXT: %11 = arith.maxsi %10, %arg0 : i32
// CHECK-NEXT: %12 = arith.minsi %11, %arg1 : i32
// CHECK-NEXT: return %12 : i32
// CHECK-NEXT: }
func.func @binary_i32(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b : i32
  %1 = arith.subi %0, %b : i32
  %2 = arith.muli %1, %a : i32
  %3 = arith.divsi %2, %b : i32
  %4 = arith.divui %3, %b : i32
  %5 = arith.remsi %4, %a : i32
  %6 = arith.andi %5, %b : i32
  %7 = arith.ori %6, %a : i32
  %8 = arith.xori %7, %b : i32
  %9 = arith.shli %8, %a : i32
  %10 = arith.shrsi %9, %b : i32
  %11 = arith.maxsi %10, %a : i32
  %12 = arith.minsi %11, %b : i32
  return %12 : i32
}

// CHECK-LABEL: func.func @binary_index_i64_i8(%arg0: index, %arg1: index, %arg2: i64, %arg3: i8) -> (index, i64, i8) {
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %0 = arith.muli %arg0, %c4 : index
// CHECK-NEXT: %1 = arith.addi %0, %arg1 : index
// CHECK-NEXT: %2 = arith.remsi %1, %c4 : index
// CHECK-NEXT: %c3_i64 = arith.constant 3 : i64
// CHECK-NEXT: %3 = arith.shli %arg2, %c3_i64 : i64
// CHECK-NEXT: %4 = arith.xori %arg3, %arg3 : i8
// CHECK-NEXT: return %2, %3, %4 : index, i64, i8
// CHECK-NEXT: }
func.func @binary_index_i64_i8(%i: index, %j: index, %x: i64, %y: i8) -> (index, i64, i8) {
  %c4 = arith.constant 4 : index
  %0 = arith.muli %i, %c4 : index
  %1 = arith.addi %0, %j : index
  %2 = arith.remsi %1, %c4 : index
  %k = arith.constant 3 : i64
  %3 = arith.shli %x, %k : i64
  %4 = arith.xori %y, %y : i8
  return %2, %3, %4 : index, i64, i8
}

// CHECK-LABEL: func.func @overflow_flags(%arg0: i32, %arg1: i32) -> i32 {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 overflow<nsw> : i32
// CHECK-NEXT: %1 = arith.muli %0, %arg1 overflow<nsw, nuw> : i32
// CHECK-NEXT: %2 = arith.subi %1, %arg0 overflow<nuw> : i32
// CHECK-NEXT: %3 = arith.shli %2, %arg1 overflow<nsw> : i32
// CHECK-NEXT: return %3 : i32
// CHECK-NEXT: }
func.func @overflow_flags(%a: i32, %b: i32) -> i32 {
  %0 = arith.addi %a, %b overflow<nsw> : i32
  %1 = arith.muli %0, %b overflow<nsw, nuw> : i32
  %2 = arith.subi %1, %a overflow<nuw> : i32
  %3 = arith.shli %2, %b overflow<nsw> : i32
  return %3 : i32
}

// CHECK-LABEL: func.func @vectors(%arg0: vector<4xi32>, %arg1: vector<4xi32>) -> vector<4xi32> {
// CHECK-NEXT: %0 = arith.addi %arg0, %arg1 : vector<4xi32>
// CHECK-NEXT: %1 = arith.muli %0, %arg0 : vector<4xi32>
// CHECK-NEXT: %2 = arith.maxsi %1, %arg1 : vector<4xi32>
// CHECK-NEXT: %3 = arith.minsi %2, %arg0 : vector<4xi32>
// CHECK-NEXT: %4 = arith.shrsi %3, %arg1 : vector<4xi32>
// CHECK-NEXT: return %4 : vector<4xi32>
// CHECK-NEXT: }
func.func @vectors(%a: vector<4xi32>, %b: vector<4xi32>) -> vector<4xi32> {
  %0 = arith.addi %a, %b : vector<4xi32>
  %1 = arith.muli %0, %a : vector<4xi32>
  %2 = arith.maxsi %1, %b : vector<4xi32>
  %3 = arith.minsi %2, %a : vector<4xi32>
  %4 = arith.shrsi %3, %b : vector<4xi32>
  return %4 : vector<4xi32>
}

// CHECK-LABEL: func.func @tensors(%arg0: tensor<2x3xi64>, %arg1: tensor<2x3xi64>, %arg2: tensor<?xi16>) -> (tensor<2x3xi64>, tensor<?xi16>) {
// CHECK-NEXT: %0 = arith.subi %arg0, %arg1 : tensor<2x3xi64>
// CHECK-NEXT: %1 = arith.divsi %0, %arg1 : tensor<2x3xi64>
// CHECK-NEXT: %2 = arith.andi %1, %arg0 : tensor<2x3xi64>
// CHECK-NEXT: %3 = arith.ori %arg2, %arg2 : tensor<?xi16>
// CHECK-NEXT: %4 = arith.divui %3, %arg2 : tensor<?xi16>
// CHECK-NEXT: return %2, %4 : tensor<2x3xi64>, tensor<?xi16>
// CHECK-NEXT: }
func.func @tensors(%a: tensor<2x3xi64>, %b: tensor<2x3xi64>, %d: tensor<?xi16>) -> (tensor<2x3xi64>, tensor<?xi16>) {
  %0 = arith.subi %a, %b : tensor<2x3xi64>
  %1 = arith.divsi %0, %b : tensor<2x3xi64>
  %2 = arith.andi %1, %a : tensor<2x3xi64>
  %3 = arith.ori %d, %d : tensor<?xi16>
  %4 = arith.divui %3, %d : tensor<?xi16>
  return %2, %4 : tensor<2x3xi64>, tensor<?xi16>
}

// CHECK-LABEL: func.func @cmpi_predicates(%arg0: i32, %arg1: i32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
// CHECK-NEXT: %0 = arith.cmpi eq, %arg0, %arg1 : i32
// CHECK-NEXT: %1 = arith.cmpi ne, %arg0, %arg1 : i32
// CHECK-NEXT: %2 = arith.cmpi slt, %arg0, %arg1 : i32
// CHECK-NEXT: %3 = arith.cmpi sle, %arg0, %arg1 : i32
// CHECK-NEXT: %4 = arith.cmpi sgt, %arg0, %arg1 : i32
// CHECK-NEXT: %5 = arith.cmpi sge, %arg0, %arg1 : i32
// CHECK-NEXT: %6 = arith.cmpi ult, %arg0, %arg1 : i32
// CHECK-NEXT: %7 = arith.cmpi ule, %arg0, %arg1 : i32
// CHECK-NEXT: %8 = arith.cmpi ugt, %arg0, %arg1 : i32
// CHECK-NEXT: %9 = arith.cmpi uge, %arg0, %arg1 : i32
// CHECK-NEXT: return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
// CHECK-NEXT: }
func.func @cmpi_predicates(%a: i32, %b: i32) -> (i1, i1, i1, i1, i1, i1, i1, i1, i1, i1) {
  %eq = arith.cmpi eq, %a, %b : i32
  %ne = arith.cmpi ne, %a, %b : i32
  %slt = arith.cmpi slt, %a, %b : i32
  %sle = arith.cmpi sle, %a, %b : i32
  %sgt = arith.cmpi sgt, %a, %b : i32
  %sge = arith.cmpi sge, %a, %b : i32
  %ult = arith.cmpi ult, %a, %b : i32
  %ule = arith.cmpi ule, %a, %b : i32
  %ugt = arith.cmpi ugt, %a, %b : i32
  %uge = arith.cmpi uge, %a, %b : i32
  return %eq, %ne, %slt, %sle, %sgt, %sge, %ult, %ule, %ugt, %uge : i1, i1, i1, i1, i1, i1, i1, i1, i1, i1
}

// CHECK-LABEL: func.func @cmpi_shaped(%arg0: index, %arg1: vector<8xi8>, %arg2: tensor<4x?xi32>) -> (i1, vector<8xi1>, tensor<4x?xi1>) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %0 = arith.cmpi sge, %arg0, %c0 : index
// CHECK-NEXT: %1 = arith.cmpi ult, %arg1, %arg1 : vector<8xi8>
// CHECK-NEXT: %2 = arith.cmpi ne, %arg2, %arg2 : tensor<4x?xi32>
// CHECK-NEXT: return %0, %1, %2 : i1, vector<8xi1>, tensor<4x?xi1>
// CHECK-NEXT: }
func.func @cmpi_shaped(%i: index, %v: vector<8xi8>, %t: tensor<4x?xi32>) -> (i1, vector<8xi1>, tensor<4x?xi1>) {
  %c0 = arith.constant 0 : index
  %0 = arith.cmpi sge, %i, %c0 : index
  %1 = arith.cmpi ult, %v, %v : vector<8xi8>
  %2 = arith.cmpi ne, %t, %t : tensor<4x?xi32>
  return %0, %1, %2 : i1, vector<8xi1>, tensor<4x?xi1>
}

// CHECK-LABEL: func.func @select(%arg0: i1, %arg1: i32, %arg2: i32, %arg3: vector<4xi1>, %arg4: vector<4xf32>, %arg5: tensor<2x2xf32>, %arg6: tensor<2x2xf32>, %arg7: tensor<2x2xi1>) -> (i32, vector<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
// CHECK-NEXT: %0 = arith.select %arg0, %arg1, %arg2 : i32
// CHECK-NEXT: %1 = arith.select %arg3, %arg4, %arg4 : vector<4xi1>, vector<4xf32>
// CHECK-NEXT: %2 = arith.select %arg7, %arg5, %arg6 : tensor<2x2xi1>, tensor<2x2xf32>
// CHECK-NEXT: %3 = arith.select %arg0, %arg5, %arg6 : tensor<2x2xf32>
// CHECK-NEXT: return %0, %1, %2, %3 : i32, vector<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @select(%c: i1, %a: i32, %b: i32, %vc: vector<4xi1>, %va: vector<4xf32>, %ta: tensor<2x2xf32>, %tb: tensor<2x2xf32>, %tc: tensor<2x2xi1>) -> (i32, vector<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %0 = arith.select %c, %a, %b : i32
  %1 = arith.select %vc, %va, %va : vector<4xi1>, vector<4xf32>
  %2 = arith.select %tc, %ta, %tb : tensor<2x2xi1>, tensor<2x2xf32>
  %3 = arith.select %c, %ta, %tb : tensor<2x2xf32>
  return %0, %1, %2, %3 : i32, vector<4xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
