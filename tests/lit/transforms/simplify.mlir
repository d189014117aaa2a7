// simplify: algebraic identities on scalars and on tensors with splat
// constants, select/cmpi on known operands, casts that undo each other,
// tensor.dim / tensor.extract through their producers, and scf.if / scf.for
// with constant conditions or bounds. Float identities that would be wrong
// for -0.0 or NaN are kept.
// Run with cse so that equal constants materialized by different rewrites
// are one value, and dce so that what a rewrite bypassed is gone.
// RUN: kiln-opt --pass-pipeline=simplify %s | kiln-opt --pass-pipeline=cse,dce | FileCheck %s

// CHECK-LABEL: func.func @int_identities(
// CHECK-SAME: %[[X:[^:]*]]: i32
// CHECK-NOT: arith.addi
// CHECK-NOT: arith.muli
// CHECK-NOT: arith.ori
// CHECK-NOT: arith.divsi
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[X]] : i32, i32, i32, i32, i32
func.func @int_identities(%x: i32) -> (i32, i32, i32, i32, i32) {
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %a = arith.addi %x, %zero : i32
  %b = arith.addi %zero, %x : i32
  %c = arith.muli %one, %x : i32
  %d = arith.ori %x, %zero : i32
  %e = arith.divsi %x, %one : i32
  return %a, %b, %c, %d, %e : i32, i32, i32, i32, i32
}

// CHECK-LABEL: func.func @int_to_constants(
// CHECK-DAG: %[[Z:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[M:.*]] = arith.constant -1 : i64
// CHECK-NOT: arith.subi
// CHECK-NOT: arith.xori
// CHECK: return %[[Z]], %[[Z]], %[[Z]], %[[M]] : i64, i64, i64, i64
func.func @int_to_constants(%x: i64) -> (i64, i64, i64, i64) {
  %zero = arith.constant 0 : i64
  %ones = arith.constant -1 : i64
  %a = arith.subi %x, %x : i64
  %b = arith.xori %x, %x : i64
  %c = arith.muli %x, %zero : i64
  %d = arith.ori %x, %ones : i64
  return %a, %b, %c, %d : i64, i64, i64, i64
}

// Constants move to the right operand of commutative ops.
// CHECK-LABEL: func.func @commutative_order(
// CHECK-SAME: %[[X:[^:]*]]: index
// CHECK: %[[C:.*]] = arith.constant 4 : index
// CHECK: arith.muli %[[X]], %[[C]] : index
func.func @commutative_order(%x: index) -> index {
  %c4 = arith.constant 4 : index
  %r = arith.muli %c4, %x : index
  return %r : index
}

// CHECK-LABEL: func.func @float_identities(
// CHECK-SAME: %[[X:[^:]*]]: f32
// CHECK-DAG: %[[ADDZ:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK-DAG: %[[MULZ:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: return %[[X]], %[[X]], %[[X]], %[[X]], %[[ADDZ]], %[[MULZ]], %[[X]]
func.func @float_identities(%x: f32) -> (f32, f32, f32, f32, f32, f32, f32) {
  %nzero = arith.constant -0.0 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %a = arith.addf %x, %nzero : f32
  %b = arith.subf %x, %zero : f32
  %c = arith.mulf %x, %one : f32
  %d = arith.divf %x, %one : f32
  // x + 0.0 is -0.0 + 0.0 = 0.0 for x = -0.0, and x * 0.0 is NaN for inf.
  %e = arith.addf %x, %zero : f32
  %f = arith.mulf %x, %zero : f32
  %n = arith.negf %x : f32
  %g = arith.negf %n : f32
  return %a, %b, %c, %d, %e, %f, %g : f32, f32, f32, f32, f32, f32, f32
}

// CHECK-LABEL: func.func @tensor_splat_identities(
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x?xf32>, %[[U:[^:]*]]: tensor<8xi32>
// CHECK: %[[NS:.*]] = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 1]> : tensor<8xi32>
// CHECK-NEXT: %[[B:.*]] = arith.addi %[[U]], %[[NS]] : tensor<8xi32>
// CHECK-NEXT: return %[[T]], %[[B]] : tensor<4x?xf32>, tensor<8xi32>
func.func @tensor_splat_identities(%t: tensor<4x?xf32>, %u: tensor<8xi32>) -> (tensor<4x?xf32>, tensor<8xi32>) {
  %n = arith.constant 3 : index
  %e = tensor.empty(%n) : tensor<4x?xf32>
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %zero = arith.constant dense<0> : tensor<8xi32>
  %notsplat = arith.constant dense<[0, 0, 0, 0, 0, 0, 0, 1]> : tensor<8xi32>
  %a = arith.addi %u, %zero : tensor<8xi32>
  %b = arith.addi %a, %notsplat : tensor<8xi32>
  return %t, %b : tensor<4x?xf32>, tensor<8xi32>
}

// CHECK-LABEL: func.func @select_and_cmpi(
// CHECK-SAME: %[[C:[^:]*]]: i1, %[[A:[^:]*]]: i32, %[[B:[^:]*]]: i32
// CHECK-DAG: %[[T:.*]] = arith.constant true
// CHECK-DAG: %[[F:.*]] = arith.constant false
// CHECK-NOT: arith.select
// CHECK-NOT: arith.cmpi
// CHECK: return %[[A]], %[[B]], %[[A]], %[[C]], %[[T]], %[[F]] : i32, i32, i32, i1, i1, i1
func.func @select_and_cmpi(%c: i1, %a: i32, %b: i32) -> (i32, i32, i32, i1, i1, i1) {
  %true = arith.constant true
  %false = arith.constant false
  %0 = arith.select %true, %a, %b : i32
  %1 = arith.select %false, %a, %b : i32
  %2 = arith.select %c, %a, %a : i32
  %3 = arith.select %c, %true, %false : i1
  %4 = arith.cmpi sle, %a, %a : i32
  %5 = arith.cmpi ne, %b, %b : i32
  return %0, %1, %2, %3, %4, %5 : i32, i32, i32, i1, i1, i1
}

// CHECK-LABEL: func.func @select_tensor_condition(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NOT: arith.select
// CHECK: return %[[B]] : tensor<4xf32>
func.func @select_tensor_condition(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<false> : tensor<4xi1>
  %r = arith.select %c, %a, %b : tensor<4xi1>, tensor<4xf32>
  return %r : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast_pairs(
// CHECK-SAME: %[[I:[^:]*]]: i16, %[[F:[^:]*]]: f16, %[[N:[^:]*]]: i32, %[[X:[^:]*]]: index
// CHECK: %[[NARROW:.*]] = arith.index_cast %[[X]] : index to i32
// CHECK: %[[BACK:.*]] = arith.index_cast %[[NARROW]] : i32 to index
// CHECK: return %[[I]], %[[I]], %[[F]], %[[N]], %[[BACK]]
func.func @cast_pairs(%i: i16, %f: f16, %n: i32, %x: index) -> (i16, i16, f16, i32, index) {
  %0 = arith.extsi %i : i16 to i64
  %1 = arith.trunci %0 : i64 to i16
  %2 = arith.extui %i : i16 to i32
  %3 = arith.trunci %2 : i32 to i16
  %4 = arith.extf %f : f16 to f32
  %5 = arith.truncf %4 : f32 to f16
  %6 = arith.index_cast %n : i32 to index
  %7 = arith.index_cast %6 : index to i32
  // Narrowing first loses bits: kept.
  %8 = arith.index_cast %x : index to i32
  %9 = arith.index_cast %8 : i32 to index
  return %1, %3, %5, %7, %9 : i16, i16, f16, i32, index
}

// CHECK-LABEL: func.func @tensor_casts(
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x8xf32>
// CHECK-NOT: tensor.cast
// CHECK-NOT: tensor.collapse_shape
// CHECK: return %[[T]], %[[T]], %[[T]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
func.func @tensor_casts(%t: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tensor.cast %t : tensor<4x8xf32> to tensor<4x8xf32>
  %1 = tensor.cast %t : tensor<4x8xf32> to tensor<?x?xf32>
  %2 = tensor.cast %1 : tensor<?x?xf32> to tensor<4x8xf32>
  %3 = tensor.collapse_shape %t [[0, 1]] : tensor<4x8xf32> into tensor<32xf32>
  %4 = tensor.expand_shape %3 [[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
  return %0, %2, %4 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// CHECK-LABEL: func.func @dims(
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x?xf32>, %[[N:[^:]*]]: index, %[[M:[^:]*]]: index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[D:.*]] = tensor.dim %[[T]]
// CHECK-NOT: tensor.dim
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NOT: tensor.dim
// CHECK: return %[[C4]], %[[D]], %[[M]], %[[C3]] : index, index, index, index
func.func @dims(%t: tensor<4x?xf32>, %n: index, %m: index) -> (index, index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %0 = tensor.dim %t, %c0 : tensor<4x?xf32>
  %1 = tensor.dim %t, %c1 : tensor<4x?xf32>
  %e = tensor.empty(%n, %m) : tensor<?x3x?xf32>
  %2 = tensor.dim %e, %c2 : tensor<?x3x?xf32>
  %3 = tensor.dim %e, %c1 : tensor<?x3x?xf32>
  return %0, %1, %2, %3 : index, index, index, index
}

// CHECK-LABEL: func.func @extract_through_producers(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32
// CHECK-NOT: tensor.extract
// CHECK: return %[[B]], %[[A]] : f32, f32
func.func @extract_through_producers(%a: f32, %b: f32) -> (f32, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = tensor.from_elements %a, %b, %b, %a : tensor<2x2xf32>
  %0 = tensor.extract %t[%c0, %c1] : tensor<2x2xf32>
  %s = tensor.splat %a : tensor<3xf32>
  %1 = tensor.extract %s[%c1] : tensor<3xf32>
  return %0, %1 : f32, f32
}

// CHECK-LABEL: func.func @if_constant(
// CHECK-SAME: %[[A:[^:]*]]: f32, %[[B:[^:]*]]: f32
// CHECK-NOT: scf.if
// CHECK: %[[S:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT: return %[[S]] : f32
func.func @if_constant(%a: f32, %b: f32) -> f32 {
  %false = arith.constant false
  %r = scf.if %false -> (f32) {
    %s = arith.addf %a, %b : f32
    scf.yield %s : f32
  } else {
    %d = arith.subf %a, %b : f32
    scf.yield %d : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @if_false_without_else(
// CHECK-NOT: scf.if
// CHECK: return
func.func @if_false_without_else(%n: index) {
  %false = arith.constant false
  scf.if %false {
    %x = arith.addi %n, %n : index
  }
  return
}

// CHECK-LABEL: func.func @for_zero_trips(
// CHECK-SAME: %[[INIT:[^:]*]]: f32
// CHECK-NOT: scf.for
// CHECK: return %[[INIT]] : f32
func.func @for_zero_trips(%init: f32) -> f32 {
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c4 to %c2 step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// CHECK-LABEL: func.func @for_kept(
// CHECK: scf.for
func.func @for_kept(%init: f32, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// Constant sizes of tensor.empty become static dimensions behind a
// tensor.cast; tensor.dim then reads sizes through the cast.
// CHECK-LABEL: func.func @empty_constant_sizes(
// CHECK-SAME: %[[N:[^:]*]]: index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<4x?x2xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[E]] : tensor<4x?x2xf32> to tensor<?x?x2xf32>
// CHECK-NOT: tensor.dim
// CHECK: return %[[C]], %[[C4]], %[[N]] : tensor<?x?x2xf32>, index, index
func.func @empty_constant_sizes(%n: index) -> (tensor<?x?x2xf32>, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty(%c4, %n) : tensor<?x?x2xf32>
  %d0 = tensor.dim %e, %c0 : tensor<?x?x2xf32>
  %d1 = tensor.dim %e, %c1 : tensor<?x?x2xf32>
  return %e, %d0, %d1 : tensor<?x?x2xf32>, index, index
}

// Slices that cover the whole tensor are the tensor itself; partial,
// strided or dynamic ones stay.
// CHECK-LABEL: func.func @whole_slices(
// CHECK-SAME: %[[T:[^:]*]]: tensor<4x8xf32>, %[[U:[^:]*]]: tensor<4x8xf32>, %[[I:[^:]*]]: index
// CHECK: %[[P:.*]] = tensor.extract_slice %[[T]][0, 0] [4, 4] [1, 1]
// CHECK: %[[S:.*]] = tensor.extract_slice %[[T]][0, 0] [4, 8] [1, %[[I]]]
// CHECK-NOT: tensor.insert_slice
// CHECK: return %[[T]], %[[P]], %[[S]], %[[U]]
func.func @whole_slices(%t: tensor<4x8xf32>, %u: tensor<4x8xf32>, %i: index) -> (tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %0 = tensor.extract_slice %t[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> to tensor<4x8xf32>
  %1 = tensor.extract_slice %t[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %2 = tensor.extract_slice %t[0, 0] [4, 8] [1, %i] : tensor<4x8xf32> to tensor<4x8xf32>
  %3 = tensor.insert_slice %u into %t[0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xf32>, tensor<4x4xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// A linalg op that allows mixed static/dynamic operands reads through casts
// from more static types; the result follows its init and a cast back
// serves the return.
// CHECK-LABEL: func.func @absorb_casts(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<8x16xf32>, %[[C:[^:]*]]: tensor<4x16xf32>
// CHECK-NEXT: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[C]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.cast %[[M]] : tensor<4x16xf32> to tensor<?x?xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x?xf32>
func.func @absorb_casts(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>) -> tensor<?x?xf32> {
  %ad = tensor.cast %a : tensor<4x8xf32> to tensor<?x8xf32>
  %cd = tensor.cast %c : tensor<4x16xf32> to tensor<?x?xf32>
  %r = linalg.matmul ins(%ad, %b : tensor<?x8xf32>, tensor<8x16xf32>) outs(%cd : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Casts stay where exposing the source would contradict (a run-time error
// then) or where the op needs operands of matching dynamism (transpose).
// CHECK-LABEL: func.func @keeps_casts(
// CHECK: %[[AD:.*]] = tensor.cast %{{.*}} : tensor<4x8xf32> to tensor<?x?xf32>
// CHECK: linalg.matmul ins(%[[AD]], %{{.*}} : tensor<?x?xf32>, tensor<7x16xf32>)
// CHECK: %[[TD:.*]] = tensor.cast %{{.*}} : tensor<2x3xf32> to tensor<?x3xf32>
// CHECK: linalg.transpose ins(%[[TD]] : tensor<?x3xf32>)
func.func @keeps_casts(%a: tensor<4x8xf32>, %b: tensor<7x16xf32>, %c: tensor<?x?xf32>, %t: tensor<2x3xf32>, %n: index) -> (tensor<?x?xf32>, tensor<3x?xf32>) {
  %ad = tensor.cast %a : tensor<4x8xf32> to tensor<?x?xf32>
  %r = linalg.matmul ins(%ad, %b : tensor<?x?xf32>, tensor<7x16xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %td = tensor.cast %t : tensor<2x3xf32> to tensor<?x3xf32>
  %e = tensor.empty(%n) : tensor<3x?xf32>
  %tr = linalg.transpose ins(%td : tensor<?x3xf32>) outs(%e : tensor<3x?xf32>) permutation = [1, 0]
  return %r, %tr : tensor<?x?xf32>, tensor<3x?xf32>
}
