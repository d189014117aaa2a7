// More malformed inputs, one per "// -----" chunk, checked MLIR-style with
// expected-error comments (kiln-opt --split-input-file --verify-diagnostics
// exits 0 only when every chunk produced exactly the expected errors).
// RUN: kiln-opt --split-input-file --verify-diagnostics %s
// RUN: not kiln-opt --split-input-file %s 2>&1 | FileCheck %s
// RUN: sed 's/{{invalid integer width}}/{{wrong text}}/' %s > %t.mlir
// RUN: not kiln-opt --split-input-file --verify-diagnostics %t.mlir 2>&1 | FileCheck %s --check-prefix=MISMATCH
// MISMATCH: unexpected diagnostic: {{.*}}.mlir:[[@LINE+5]]:18: error: invalid integer width
// MISMATCH: .mlir:[[@LINE+3]]: error: expected error "wrong text" was not produced
// Without --verify-diagnostics every chunk's error is reported in place:
// CHECK: split-cases.mlir:[[@LINE+2]]:18: error: invalid integer width
// expected-error @+1 {{invalid integer width}}
func.func @f(%a: i0) {
  return
}

// -----

func.func @f() -> tensor<?xf32> {
  // expected-error @+1 {{elements literal type must be a statically shaped tensor or vector}}
  %0 = arith.constant dense<1.0> : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// expected-error @+1 {{dynamic dimensions are not allowed here}}
func.func @f(%a: vector<?xf32>) {
  return
}

// -----

func.func @f() -> tensor<2xi32> {
  // expected-error @+1 {{elements hex data size is invalid for provided type}}
  %0 = arith.constant dense<"0x0102"> : tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// expected-error @+1 {{duplicate key 'a' in dictionary attribute}}
func.func @f() attributes {a = 1 : i32, a = 2 : i32} {
  return
}

// -----

func.func @f(%a: f32) {
  // expected-error @+1 {{'scf.yield' op expects parent op to be one of 'scf.for, scf.if'}}
  scf.yield %a : f32
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%b : tensor<4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %i = arith.fptosi %x : f32 to i32
    // expected-error @+1 {{'linalg.yield' op type of yield operand 1 does not match the element type of the enclosing op's output}}
    linalg.yield %i : i32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x4xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'tensor.concat' op static concatenation size mismatch along non-concatenated dimension 1}}
  %0 = tensor.concat dim(0) %a, %b : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @f(%a: tensor<2x3x4xf32>) -> tensor<6x4xf32> {
  // expected-error @+1 {{'tensor.collapse_shape' op expected reassociation map #0 to be valid and contiguous}}
  %0 = tensor.collapse_shape %a [[0, 2], [1]] : tensor<2x3x4xf32> into tensor<6x4xf32>
  return %0 : tensor<6x4xf32>
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'linalg.transpose' op permutation is not valid}}
  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 1]
  return %0 : tensor<3x2xf32>
}

// -----

func.func @f(%c: i32, %a: f32) -> f32 {
  // expected-error @+1 {{use of value '%c' expects different type than prior uses: 'i1' vs 'i32'}}
  %0 = arith.select %c, %a, %a : f32
  return %0 : f32
}

// -----

func.func private @g(f32) -> f32
func.func @f(%a: i32) -> f32 {
  // expected-error @+1 {{'func.call' op operand type mismatch: expected operand type for operand number 0}}
  %0 = "func.call"(%a) {callee = @g} : (i32) -> f32
  return %0 : f32
}

// -----

func.func @f() {
  "func.return"() : () -> ()
^bb1:
  "func.return"() : () -> ()
// expected-error @+1 {{redefinition of block '^bb1'}}
^bb1:
  "func.return"() : () -> ()
}

// -----

func.func @f(%a: f32) -> f32 {
  // expected-error @+1 {{expected 2 operand types but had 1}}
  %0 = "arith.addf"(%a, %a) : (f32) -> f32
  return %0 : f32
}

// -----

func.func @f(%a: tensor<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'tensor.extract' op incorrect number of indices for extract_element}}
  %0 = tensor.extract %a[%c0, %c0] : tensor<4xf32>
  return %0 : f32
}
