// Round trip of scf: for with and without iter_args, if with results and
// an else region, if without results, nested regions, and scf.yield.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func @sum_to(%arg0: index) -> index {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %0 = scf.for %arg1 = %c0 to %arg0 step %c1 iter_args(%arg2 = %c0) -> (index) {
// CHECK-NEXT: %1 = arith.addi %arg2, %arg1 : index
// CHECK-NEXT: scf.yield %1 : index
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : index
// CHECK-NEXT: }
func.func @sum_to(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
    %s = arith.addi %acc, %i : index
    scf.yield %s : index
  }
  return %r : index
}

// CHECK-LABEL: func.func @two_iter_args(%arg0: tensor<16xf32>) -> (f32, f32) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c16 = arith.constant 16 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %cst_0 = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %0:2 = scf.for %arg1 = %c0 to %c16 step %c4 iter_args(%arg2 = %cst, %arg3 = %cst_0) -> (f32, f32) {
// CHECK-NEXT: %extracted = tensor.extract %arg0[%arg1] : tensor<16xf32>
// CHECK-NEXT: %2 = arith.addf %arg2, %extracted : f32
// CHECK-NEXT: %3 = arith.maximumf %arg3, %extracted : f32
// CHECK-NEXT: scf.yield %2, %3 : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: %1 = arith.addf %0#0, %0#1 : f32
// CHECK-NEXT: return %1, %0#1 : f32, f32
// CHECK-NEXT: }
func.func @two_iter_args(%t: tensor<16xf32>) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r:2 = scf.for %i = %c0 to %c16 step %c4 iter_args(%sum = %zero, %max = %ninf) -> (f32, f32) {
    %x = tensor.extract %t[%i] : tensor<16xf32>
    %s = arith.addf %sum, %x : f32
    %m = arith.maximumf %max, %x : f32
    scf.yield %s, %m : f32, f32
  }
  %after = arith.addf %r#0, %r#1 : f32
  return %after, %r#1 : f32, f32
}

// CHECK-LABEL: func.func @loop_over_tensor(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %0 = scf.for %arg1 = %c0 to %c8 step %c2 iter_args(%arg2 = %arg0) -> (tensor<8x8xf32>) {
// CHECK-NEXT: %extracted_slice = tensor.extract_slice %arg2[%arg1, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
// CHECK-NEXT: %1 = arith.negf %extracted_slice : tensor<2x8xf32>
// CHECK-NEXT: %inserted_slice = tensor.insert_slice %1 into %arg2[%arg1, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<8x8xf32>
// CHECK-NEXT: scf.yield %inserted_slice : tensor<8x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : tensor<8x8xf32>
// CHECK-NEXT: }
func.func @loop_over_tensor(%t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c8 step %c2 iter_args(%acc = %t) -> (tensor<8x8xf32>) {
    %tile = tensor.extract_slice %acc[%i, 0] [2, 8] [1, 1] : tensor<8x8xf32> to tensor<2x8xf32>
    %neg = arith.negf %tile : tensor<2x8xf32>
    %ins = tensor.insert_slice %neg into %acc[%i, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<8x8xf32>
    scf.yield %ins : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}

// CHECK-LABEL: func.func @nested_loops_no_results(%arg0: index, %arg1: index) {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: scf.for %arg2 = %c0 to %arg0 step %c1 {
// CHECK-NEXT: scf.for %arg3 = %arg2 to %arg1 step %c1 {
// CHECK-NEXT: %0 = arith.addi %arg2, %arg3 : index
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @nested_loops_no_results(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %i to %m step %c1 {
      %k = arith.addi %i, %j : index
    }
  }
  return
}

// CHECK-LABEL: func.func @for_i32(%arg0: i32, %arg1: i32, %arg2: i32) -> i32 {
// CHECK-NEXT: %0 = scf.for %arg3 = %arg0 to %arg1 step %arg2 iter_args(%arg4 = %arg0) -> (i32)  : i32 {
// CHECK-NEXT: %1 = arith.addi %arg4, %arg3 : i32
// CHECK-NEXT: scf.yield %1 : i32
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: }
func.func @for_i32(%lb: i32, %ub: i32, %step: i32) -> i32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%a = %lb) -> (i32) : i32 {
    %s = arith.addi %a, %i : i32
    scf.yield %s : i32
  }
  return %r : i32
}

// CHECK-LABEL: func.func @if_else(%arg0: i1, %arg1: f32, %arg2: f32) -> f32 {
// CHECK-NEXT: %0 = scf.if %arg0 -> (f32) {
// CHECK-NEXT: %1 = arith.addf %arg1, %arg2 : f32
// CHECK-NEXT: scf.yield %1 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %1 = arith.subf %arg1, %arg2 : f32
// CHECK-NEXT: scf.yield %1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: return %0 : f32
// CHECK-NEXT: }
func.func @if_else(%c: i1, %a: f32, %b: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    %s = arith.addf %a, %b : f32
    scf.yield %s : f32
  } else {
    %d = arith.subf %a, %b : f32
    scf.yield %d : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @if_two_results(%arg0: i32) -> (i32, tensor<2xi32>) {
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %0 = arith.cmpi sgt, %arg0, %c0_i32 : i32
// CHECK-NEXT: %1:2 = scf.if %0 -> (i32, tensor<2xi32>) {
// CHECK-NEXT: %from_elements = tensor.from_elements %arg0, %arg0 : tensor<2xi32>
// CHECK-NEXT: scf.yield %arg0, %from_elements : i32, tensor<2xi32>
// CHECK-NEXT: } else {
// CHECK-NEXT: %2 = arith.subi %c0_i32, %arg0 : i32
// CHECK-NEXT: %from_elements = tensor.from_elements %2, %c0_i32 : tensor<2xi32>
// CHECK-NEXT: scf.yield %2, %from_elements : i32, tensor<2xi32>
// CHECK-NEXT: }
// CHECK-NEXT: return %1#0, %1#1 : i32, tensor<2xi32>
// CHECK-NEXT: }
func.func @if_two_results(%x: i32) -> (i32, tensor<2xi32>) {
  %zero = arith.constant 0 : i32
  %pos = arith.cmpi sgt, %x, %zero : i32
  %r:2 = scf.if %pos -> (i32, tensor<2xi32>) {
    %t = tensor.from_elements %x, %x : tensor<2xi32>
    scf.yield %x, %t : i32, tensor<2xi32>
  } else {
    %n = arith.subi %zero, %x : i32
    %t = tensor.from_elements %n, %zero : tensor<2xi32>
    scf.yield %n, %t : i32, tensor<2xi32>
  }
  return %r#0, %r#1 : i32, tensor<2xi32>
}

// CHECK-LABEL: func.func @if_no_results(%arg0: i1, %arg1: index) -> index {
// CHECK-NEXT: scf.if %arg0 {
// CHECK-NEXT: %0 = arith.addi %arg1, %arg1 : index
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %arg0 {
// CHECK-NEXT: %0 = arith.muli %arg1, %arg1 : index
// CHECK-NEXT: } else {
// CHECK-NEXT: %0 = arith.subi %arg1, %arg1 : index
// CHECK-NEXT: }
// CHECK-NEXT: return %arg1 : index
// CHECK-NEXT: }
func.func @if_no_results(%c: i1, %n: index) -> index {
  scf.if %c {
    %unused = arith.addi %n, %n : index
  }
  scf.if %c {
    %u = arith.muli %n, %n : index
  } else {
    %v = arith.subi %n, %n : index
  }
  return %n : index
}

// CHECK-LABEL: func.func @if_inside_for(%arg0: index, %arg1: tensor<?xf32>) -> f32 {
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %0 = scf.for %arg2 = %c0 to %arg0 step %c1 iter_args(%arg3 = %cst) -> (f32) {
// CHECK-NEXT: %2 = arith.remsi %arg2, %c2 : index
// CHECK-NEXT: %3 = arith.cmpi eq, %2, %c0 : index
// CHECK-NEXT: %extracted = tensor.extract %arg1[%arg2] : tensor<?xf32>
// CHECK-NEXT: %4 = scf.if %3 -> (f32) {
// CHECK-NEXT: %5 = arith.addf %arg3, %extracted : f32
// CHECK-NEXT: scf.yield %5 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: %5 = arith.subf %arg3, %extracted : f32
// CHECK-NEXT: scf.yield %5 : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield %4 : f32
// CHECK-NEXT: }
// CHECK-NEXT: %1 = arith.mulf %0, %0 : f32
// CHECK-NEXT: return %1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @if_inside_for(%n: index, %t: tensor<?xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (f32) {
    %rem = arith.remsi %i, %c2 : index
    %even = arith.cmpi eq, %rem, %c0 : index
    %x = tensor.extract %t[%i] : tensor<?xf32>
    %v = scf.if %even -> (f32) {
      %p = arith.addf %acc, %x : f32
      scf.yield %p : f32
    } else {
      %m = arith.subf %acc, %x : f32
      scf.yield %m : f32
    }
    scf.yield %v : f32
  }
  %final = arith.mulf %r, %r : f32
  return %final : f32
}
