// Vector ops: 1-D vectors are LLVM vectors, n-D vectors arrays of them;
// loads/stores move rows at linearized addresses; broadcast is
// insertelement + shufflevector; reductions use llvm.vector.reduce.*.
// RUN: kiln-translate --no-c-wrappers %s | FileCheck %s

// CHECK-LABEL: define <8 x float> @load_fma(
// CHECK: %[[P:[0-9]+]] = getelementptr float, ptr %{{[0-9]+}}, i64 %{{[0-9]+}}
// CHECK-NEXT: %[[V:[0-9]+]] = load <8 x float>, ptr %[[P]], align 4
// CHECK: %[[I:[0-9]+]] = insertelement <8 x float> undef, float %{{[0-9]+}}, i32 0
// CHECK-NEXT: %[[S:[0-9]+]] = shufflevector <8 x float> %[[I]], <8 x float> undef, <8 x i32> zeroinitializer
// CHECK-NEXT: call <8 x float> @llvm.fmuladd.v8f32(<8 x float> %[[V]], <8 x float> %[[S]], <8 x float> %[[V]])
func.func @load_fma(%m: memref<4x16xf32>, %i: index, %s: f32) -> vector<8xf32> {
  %c8 = arith.constant 8 : index
  %v = vector.load %m[%i, %c8] : memref<4x16xf32>, vector<8xf32>
  %b = vector.broadcast %s : f32 to vector<8xf32>
  %f = vector.fma %v, %b, %v : vector<8xf32>
  return %f : vector<8xf32>
}

// A 2-D vector store writes one row per leading index.
// CHECK-LABEL: define void @store2d(
// CHECK: %[[R0:[0-9]+]] = extractvalue [2 x <4 x float>] %{{[0-9]+}}, 0
// CHECK: store <4 x float> %[[R0]]
// CHECK: %[[R1:[0-9]+]] = extractvalue [2 x <4 x float>] %{{[0-9]+}}, 1
// CHECK: store <4 x float> %[[R1]]
func.func @store2d(%m: memref<4x16xf32>, %v: vector<2x4xf32>, %i: index) {
  vector.store %v, %m[%i, %i] : memref<4x16xf32>, vector<2x4xf32>
  return
}

// Ordered float add reduction from the accumulator; reassoc with fastmath.
// CHECK-LABEL: define { float, float, float, i32 } @reduce(
// CHECK: call float @llvm.vector.reduce.fadd.v4f32(float %1, <4 x float> %0)
// CHECK: call reassoc float @llvm.vector.reduce.fadd.v4f32(float -0.000000e+00, <4 x float> %0)
// CHECK: call float @llvm.vector.reduce.fmaximum.v4f32(<4 x float> %0)
// CHECK: call float @llvm.maximum.f32(
// CHECK: call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %2)
func.func @reduce(%v: vector<4xf32>, %acc: f32, %w: vector<4xi32>) -> (f32, f32, f32, i32) {
  %0 = vector.reduction <add>, %v, %acc : vector<4xf32> into f32
  %1 = vector.reduction <add>, %v fastmath<reassoc> : vector<4xf32> into f32
  %2 = vector.reduction <maximumf>, %v, %acc : vector<4xf32> into f32
  %3 = vector.reduction <maxsi>, %w : vector<4xi32> into i32
  return %0, %1, %2, %3 : f32, f32, f32, i32
}

// Extract/insert: arrays by extractvalue/insertvalue, the last dim by
// extractelement/insertelement (dynamic positions allowed there).
// CHECK-LABEL: define float @extract_insert(
// CHECK: %[[ROW:[0-9]+]] = extractvalue [2 x <4 x float>] %0, 1
// CHECK-NEXT: extractelement <4 x float> %[[ROW]], i64 %1
// CHECK: insertelement <4 x float> %{{[0-9]+}}, float %{{[0-9]+}}, i64 2
// CHECK: insertvalue [2 x <4 x float>] %0, <4 x float> %{{[0-9]+}}, 0
func.func @extract_insert(%v: vector<2x4xf32>, %i: index) -> f32 {
  %e = vector.extract %v[1, %i] : f32 from vector<2x4xf32>
  %w = vector.insert %e, %v [0, 2] : f32 into vector<2x4xf32>
  %r = vector.extract %w[0, 2] : f32 from vector<2x4xf32>
  return %r : f32
}

// Elementwise arith on n-D vectors applies per row.
// CHECK-LABEL: define [2 x <4 x float>] @nd_add(
// CHECK: fadd <4 x float>
// CHECK: fadd <4 x float>
func.func @nd_add(%a: vector<2x4xf32>) -> vector<2x4xf32> {
  %0 = arith.addf %a, %a : vector<2x4xf32>
  return %0 : vector<2x4xf32>
}

// Transfers: in bounds -> a plain load/store; otherwise masked with lane k
// live iff index + k < the innermost size, padding in the dead lanes.
// CHECK-LABEL: define void @transfers(
// CHECK: %[[POS:[0-9]+]] = add <4 x i64> %{{[0-9]+}}, <i64 0, i64 1, i64 2, i64 3>
// CHECK-NEXT: %[[M:[0-9]+]] = icmp slt <4 x i64> %[[POS]], <i64 10, i64 10, i64 10, i64 10>
// CHECK: %[[V:[0-9]+]] = call <4 x float> @llvm.masked.load.v4f32.p0(ptr %{{[0-9]+}}, i32 4, <4 x i1> %[[M]], <4 x float> %{{[0-9]+}})
// CHECK: load <4 x float>
// CHECK: call void @llvm.masked.store.v4f32.p0(<4 x float> %[[V]], ptr %{{[0-9]+}}, i32 4, <4 x i1>
// CHECK: store <4 x float>
func.func @transfers(%m: memref<3x10xf32>, %i: index, %j: index, %p: f32) {
  %a = vector.transfer_read %m[%i, %j], %p : memref<3x10xf32>, vector<4xf32>
  %b = vector.transfer_read %m[%i, %j], %p {in_bounds = [true]} : memref<3x10xf32>, vector<4xf32>
  vector.transfer_write %a, %m[%i, %j] : vector<4xf32>, memref<3x10xf32>
  vector.transfer_write %b, %m[%i, %j] {in_bounds = [true]} : vector<4xf32>, memref<3x10xf32>
  return
}

// i1 in memory is a byte per element: vectors of i1 load and store as
// <N x i8> (an LLVM <N x i1> in memory would be N packed bits), plain or
// masked, converted with icmp ne 0 / zext.
// CHECK-LABEL: define void @bools(
// CHECK: %[[B:[0-9]+]] = load <8 x i8>, ptr %{{[0-9]+}}, align 1
// CHECK-NEXT: %[[V:[0-9]+]] = icmp ne <8 x i8> %[[B]], zeroinitializer
// CHECK: %[[W:[0-9]+]] = zext <8 x i1> %[[V]] to <8 x i8>
// CHECK-NEXT: store <8 x i8> %[[W]], ptr
// CHECK: %[[MB:[0-9]+]] = call <8 x i8> @llvm.masked.load.v8i8.p0(ptr %{{[0-9]+}}, i32 1, <8 x i1> %{{[0-9]+}}, <8 x i8> %{{[0-9]+}})
// CHECK-NEXT: %[[MV:[0-9]+]] = icmp ne <8 x i8> %[[MB]], zeroinitializer
// CHECK: %[[MW:[0-9]+]] = zext <8 x i1> %[[MV]] to <8 x i8>
// CHECK-NEXT: call void @llvm.masked.store.v8i8.p0(<8 x i8> %[[MW]], ptr
func.func @bools(%m: memref<3x10xi1>, %i: index, %j: index, %p: i1) {
  %v = vector.load %m[%i, %j] : memref<3x10xi1>, vector<8xi1>
  vector.store %v, %m[%i, %j] : memref<3x10xi1>, vector<8xi1>
  %a = vector.transfer_read %m[%i, %j], %p : memref<3x10xi1>, vector<8xi1>
  vector.transfer_write %a, %m[%i, %j] : vector<8xi1>, memref<3x10xi1>
  return
}

// memref.prefetch: llvm.prefetch of the element's address (read/write,
// locality, data/instruction cache as its attributes say).
// CHECK-LABEL: define void @prefetch(
// CHECK: %[[P:[0-9]+]] = getelementptr float, ptr %{{[0-9]+}}, i64 %{{[0-9]+}}
// CHECK-NEXT: call void @llvm.prefetch.p0(ptr %[[P]], i32 0, i32 1, i32 1)
// CHECK: call void @llvm.prefetch.p0(ptr %{{[0-9]+}}, i32 1, i32 3, i32 0)
func.func @prefetch(%m: memref<4x16xf32>, %i: index) {
  memref.prefetch %m[%i, %i], read, locality<1>, data : memref<4x16xf32>
  memref.prefetch %m[%i, %i], write, locality<3>, instr : memref<4x16xf32>
  return
}

// fastmath flags: each flag between the brackets as a word of its own
// (fastmath<nsz> is no "fast"), on the min/max intrinsics too (a
// window's running max: nsz keeps the NaN propagation).
// CHECK-LABEL: define <4 x float> @fastmath_flags(
// CHECK: call nsz <4 x float> @llvm.maximum.v4f32(
// CHECK: fadd contract <4 x float>
// CHECK: fmul fast <4 x float>
// CHECK: call nnan nsz <4 x float> @llvm.minimum.v4f32(
// CHECK: fsub <4 x float>
func.func @fastmath_flags(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
  %0 = arith.maximumf %a, %b fastmath<nsz> : vector<4xf32>
  %1 = arith.addf %0, %b fastmath<contract> : vector<4xf32>
  %2 = arith.mulf %1, %a fastmath<fast> : vector<4xf32>
  %3 = arith.minimumf %2, %b fastmath<nnan,nsz> : vector<4xf32>
  %4 = arith.subf %3, %a fastmath<none> : vector<4xf32>
  return %4 : vector<4xf32>
}

// vector.shuffle is one shufflevector over its two operands, the mask
// as constant i32 lanes (an in-lane broadcast of element 1 of each block
// of 2 here; printed back as parsed by kiln-opt).
// CHECK-LABEL: define <4 x float> @shuffle(
// CHECK: shufflevector <4 x float> %{{[0-9]+}}, <4 x float> %{{[0-9]+}}, <4 x i32> <i32 1, i32 1, i32 3, i32 7>
func.func @shuffle(%a: vector<4xf32>, %b: vector<4xf32>) -> vector<4xf32> {
  %s = vector.shuffle %a, %b [1, 1, 3, 7] : vector<4xf32>, vector<4xf32>
  return %s : vector<4xf32>
}
