// Round trip of the func dialect: definitions, private declarations,
// several results, calls (with and without results), and function
// attributes.
// RUN: kiln-opt %s | FileCheck --match-full-lines %s
// RUN: kiln-opt %s > %t.1 && kiln-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK: module {
// CHECK-LABEL: func.func private @decl_no_results(tensor<4xf32>)
func.func private @decl_no_results(tensor<4xf32>)
// CHECK-LABEL: func.func private @decl_two_results(i32, f32) -> (i32, tensor<?x4xf32>)
func.func private @decl_two_results(i32, f32) -> (i32, tensor<?x4xf32>)
// CHECK-LABEL: func.func private @decl_index(index) -> index
func.func private @decl_index(index) -> index

// CHECK-LABEL: func.func @empty() {
// CHECK-NEXT: return
// CHECK-NEXT: }
func.func @empty() {
  return
}

// CHECK-LABEL: func.func @identity(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
// CHECK-NEXT: return %arg0 : tensor<2x3xf32>
// CHECK-NEXT: }
func.func @identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  return %x : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @two_results(%arg0: i32, %arg1: f32) -> (i32, f32) {
// CHECK-NEXT: return %arg0, %arg1 : i32, f32
// CHECK-NEXT: }
func.func @two_results(%a: i32, %b: f32) -> (i32, f32) {
  func.return %a, %b : i32, f32
}

// CHECK-LABEL: func.func @swap(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT: %0:2 = call @two_tensors(%arg1, %arg0) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
// CHECK-NEXT: return %0#0, %0#1 : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT: }
func.func @swap(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0:2 = call @two_tensors(%b, %a) : (tensor<?xf32>, tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>)
  return %0#0, %0#1 : tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @two_tensors(%arg0: tensor<?xf32>, %arg1: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
// CHECK-NEXT: return %arg0, %arg1 : tensor<?xf32>, tensor<?xf32>
// CHECK-NEXT: }
func.func @two_tensors(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  return %a, %b : tensor<?xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func @calls(%arg0: i32, %arg1: f32, %arg2: tensor<4xf32>) -> (i32, tensor<?x4xf32>) {
// CHECK-NEXT: call @decl_no_results(%arg2) : (tensor<4xf32>) -> ()
// CHECK-NEXT: %0:2 = call @decl_two_results(%arg0, %arg1) : (i32, f32) -> (i32, tensor<?x4xf32>)
// CHECK-NEXT: %1 = call @identity_i32(%0#0) : (i32) -> i32
// CHECK-NEXT: return %1, %0#1 : i32, tensor<?x4xf32>
// CHECK-NEXT: }
func.func @calls(%arg0: i32, %arg1: f32, %t: tensor<4xf32>) -> (i32, tensor<?x4xf32>) {
  func.call @decl_no_results(%t) : (tensor<4xf32>) -> ()
  %r:2 = func.call @decl_two_results(%arg0, %arg1) : (i32, f32) -> (i32, tensor<?x4xf32>)
  %again = call @identity_i32(%r#0) : (i32) -> i32
  return %again, %r#1 : i32, tensor<?x4xf32>
}

// CHECK-LABEL: func.func @identity_i32(%arg0: i32) -> i32 {
// CHECK-NEXT: return %arg0 : i32
// CHECK-NEXT: }
func.func @identity_i32(%v: i32) -> i32 {
  return %v : i32
}

// CHECK-LABEL: func.func @many_types(%arg0: i1, %arg1: i8, %arg2: i16, %arg3: i64, %arg4: index, %arg5: f16, %arg6: bf16, %arg7: f64) -> (f64, i1) {
// CHECK-NEXT: return %arg7, %arg0 : f64, i1
// CHECK-NEXT: }
func.func @many_types(%a: i1, %b: i8, %c: i16, %d: i64, %e: index, %f: f16, %g: bf16, %h: f64) -> (f64, i1) {
  return %h, %a : f64, i1
}

// CHECK-LABEL: func.func @shaped_types(%arg0: tensor<f32>, %arg1: tensor<1x?x3x?xi8>, %arg2: vector<4xf32>, %arg3: vector<2x8xi32>) -> tensor<f32> {
// CHECK-NEXT: return %arg0 : tensor<f32>
// CHECK-NEXT: }
func.func @shaped_types(%a: tensor<f32>, %b: tensor<1x?x3x?xi8>, %c: vector<4xf32>, %d: vector<2x8xi32>) -> tensor<f32> {
  return %a : tensor<f32>
}

// CHECK-LABEL: func.func @with_attributes(%arg0: f32) -> f32 attributes {kiln.level = 3 : i64, kiln.note = "keep me"} {
// CHECK-NEXT: return %arg0 : f32
// CHECK-NEXT: }
func.func @with_attributes(%a: f32) -> f32 attributes {kiln.note = "keep me", kiln.level = 3 : i64} {
  return %a : f32
}

// CHECK-LABEL: func.func private @private_def(%arg0: index) -> index {
// CHECK-NEXT: return %arg0 : index
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func private @private_def(%a: index) -> index {
  return %a : index
}
