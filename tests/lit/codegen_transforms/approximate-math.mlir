// approximate-math leaves no transcendental math op and no libm call:
// only arith, the instruction-like math.absf/math.sqrt, and in LLVM IR
// only intrinsics that are single instructions.
// RUN: kiln-translate --approximate-math --print-ir %s | FileCheck %s --check-prefix=IR
// RUN: kiln-opt --approximate-math %s | FileCheck %s --check-prefix=IR
// RUN: kiln-translate --approximate-math --no-c-wrappers %s | FileCheck %s --check-prefix=LL
// RUN: kiln-translate --approximate-math --print-ir %s | mlir-opt | FileCheck %s --check-prefix=OPT
// REQUIRES: mlir-opt

// IR-LABEL: func.func @all
// IR-NOT: math.exp
// IR-NOT: math.log
// IR-NOT: math.tanh
// IR-NOT: math.erf
// IR-NOT: math.sin
// IR-NOT: math.cos
// IR-NOT: math.powf
// IR-NOT: math.floor
// IR-NOT: math.rsqrt
// IR: math.sqrt
// IR: return
// OPT-LABEL: func.func @all

// LL-LABEL: define
// LL-NOT: call {{.*}}@{{exp|log|tanh|erf|sin|cos|pow|floor|ceil|round}}
// LL-NOT: call {{.*}}@llvm.{{exp|log|pow|sin|cos|floor|ceil|round}}
// LL: ret
// Horner steps are math.fma, llvm.fmuladd in LLVM IR.
// LL: declare {{.*}} @llvm.fmuladd.f32(
func.func @all(%x: f32, %y: f32, %v: vector<4xf64>) -> (f32, vector<4xf64>) {
  %0 = math.exp %x : f32
  %1 = math.exp2 %0 : f32
  %2 = math.log %1 : f32
  %3 = math.log2 %2 : f32
  %4 = math.tanh %3 : f32
  %5 = math.erf %4 : f32
  %6 = math.sin %5 : f32
  %7 = math.cos %6 : f32
  %8 = math.powf %7, %y : f32
  %9 = math.rsqrt %8 : f32
  %10 = math.floor %9 : f32
  %11 = math.ceil %10 : f32
  %12 = math.round %11 : f32
  %a = math.exp %v : vector<4xf64>
  %b = math.log %a : vector<4xf64>
  %c = math.tanh %b : vector<4xf64>
  return %12, %c : f32, vector<4xf64>
}

// sigmoid as its arith/math pattern: only the exp is expanded, and as it
// only feeds the denominator 1 + exp, 2^k is one exponent-bits shift
// (no subnormal results needed), not two halves.
// IR-LABEL: func.func @sigmoid
// IR-NOT: math.exp
// IR: arith.shli
// IR-NOT: arith.shli
// IR: arith.divf
func.func @sigmoid(%x: vector<8xf32>) -> vector<8xf32> {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %n = arith.negf %x : vector<8xf32>
  %e = math.exp %n : vector<8xf32>
  %d = arith.addf %one, %e : vector<8xf32>
  %r = arith.divf %one, %d : vector<8xf32>
  return %r : vector<8xf32>
}

// An exp whose 1 + exp also reaches something other than a divisor (an
// add here) keeps the two-half scale.
// IR-LABEL: func.func @not_only_denominator
// IR: arith.shli
// IR: arith.shli
// IR: math.sqrt
func.func @not_only_denominator(%x: vector<8xf32>) -> vector<8xf32> {
  %one = arith.constant dense<1.0> : vector<8xf32>
  %e = math.exp %x : vector<8xf32>
  %d = arith.addf %e, %one : vector<8xf32>
  %r = arith.divf %one, %d : vector<8xf32>
  %l = arith.addf %r, %d : vector<8xf32>
  %q = math.sqrt %l : vector<8xf32>
  return %q : vector<8xf32>
}

// The polynomials' Horner steps: one math.fma each (one instruction where
// the target has FMA, a multiply and an add where it has not).
// IR-LABEL: func.func @horner
// IR-NOT: math.exp
// IR: math.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<4xf32>
// IR-NOT: math.exp
// IR: return
func.func @horner(%v: vector<4xf32>) -> vector<4xf32> {
  %0 = math.exp %v : vector<4xf32>
  return %0 : vector<4xf32>
}

// A constant exponent of 0, 1, 2 or -1 is 1, x, x*x or 1/x (no log/exp),
// also as a splat vector.
// IR-LABEL: func.func @pow_const
// IR-NOT: math.powf
// IR: arith.mulf %arg0, %arg0 : f32
// IR: arith.divf %{{.*}}, %arg1 : vector<4xf32>
// IR: return
func.func @pow_const(%x: f32, %v: vector<4xf32>) -> (f32, vector<4xf32>) {
  %two = arith.constant 2.0 : f32
  %m1 = arith.constant dense<-1.0> : vector<4xf32>
  %a = math.powf %x, %two : f32
  %b = math.powf %v, %m1 : vector<4xf32>
  return %a, %b : f32, vector<4xf32>
}

// f32 exp: three fmas reduce the argument, six evaluate the degree-6
// polynomial (degree 7 before: 10 fmas).
// IR-LABEL: func.func @exp_f32_fmas
// IR-COUNT-9: math.fma
// IR-NOT: math.fma
// IR: return
func.func @exp_f32_fmas(%v: vector<16xf32>) -> vector<16xf32> {
  %0 = math.exp %v : vector<16xf32>
  return %0 : vector<16xf32>
}

// exp(-x) is expanded from x itself (signs of the constants flipped,
// the same values): the negation goes with the exp. Another reader keeps
// it.
// IR-LABEL: func.func @exp_of_negation
// IR-NOT: arith.negf
// IR: arith.cmpf olt, %arg0
// IR-NOT: arith.negf
// IR: return
// IR-LABEL: func.func @negation_kept
// IR: arith.negf
// IR: return
func.func @exp_of_negation(%x: vector<16xf32>) -> vector<16xf32> {
  %n = arith.negf %x : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  return %e : vector<16xf32>
}
func.func @negation_kept(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %n = arith.negf %x : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  return %e, %n : vector<16xf32>, vector<16xf32>
}

// A sigmoid's denominator 1 + exp is one fma of the exp's last product
// (the polynomial times 2^k), and SiLU's x * (1 / d) is x / d: no mulf
// and no addf left after the expansion (the exp's own k - magic is a
// subf).
// IR-LABEL: func.func @silu
// IR-NOT: arith.mulf
// IR-NOT: arith.addf
// IR: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// IR-NEXT: %[[D:[0-9]+]] = math.fma
// IR-NEXT: %[[Q:[0-9]+]] = arith.divf %arg0, %[[D]] : vector<16xf32>
// IR-NEXT: return %[[Q]]
func.func @silu(%x: vector<16xf32>) -> vector<16xf32> {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %n = arith.negf %x : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  %d = arith.addf %one, %e : vector<16xf32>
  %s = arith.divf %one, %d : vector<16xf32>
  %r = arith.mulf %x, %s : vector<16xf32>
  return %r : vector<16xf32>
}

// The quotient read by something else too keeps its divide and product.
// IR-LABEL: func.func @sigmoid_twice
// IR: arith.bitcast %{{.*}} : vector<16xi32> to vector<16xf32>
// IR-NEXT: %[[D:[0-9]+]] = math.fma
// IR-NEXT: %[[S:[0-9]+]] = arith.divf %{{.*}}, %[[D]]
// IR-NEXT: arith.mulf %arg0, %[[S]]
func.func @sigmoid_twice(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %one = arith.constant dense<1.0> : vector<16xf32>
  %n = arith.negf %x : vector<16xf32>
  %e = math.exp %n : vector<16xf32>
  %d = arith.addf %one, %e : vector<16xf32>
  %s = arith.divf %one, %d : vector<16xf32>
  %r = arith.mulf %x, %s : vector<16xf32>
  return %r, %s : vector<16xf32>, vector<16xf32>
}
