// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops with run-time sizes (vector width 8, avx2): the vector
// loop covers n - n % 8 columns, a scalar loop from there to n finishes the
// row; the rows' own count (dynamic) does not matter.
// - elementwise over ?x?: vector.load/store up to the whole-vector part;
// - row sums over ?x?: 8 partial sums up to the whole-vector part, folded by
//   vector.reduction, then the scalar tail continues from the folded sum;
// - a full 64x64 tile of a batch_matmul whose reduction length K is a
//   run-time value (attention's probabilities x V): the matmul microkernel
//   on the tile's 2-D views, its K loop bounded by the view's run-time dim
//   and carrying the register tile (4 rows x 2 vectors of 8 here).
// - a depthwise convolution over a run-time channel count with its fill
//   and its bias + clamp epilogue fused: the fill and the epilogue run only
//   in the vector loops, so the channels past n - n % 8 take 1-lane vectors
//   (fill value, bias, clamp, one store), not the scalar nest.
// - softmax along a run-time last dim (attention's scores over a dynamic
//   sequence): each pass (max, exp + sum, scale) on vectors up to
//   n - n % 8, then a scalar loop from there to n carrying the folded value.
// - a matmul tile of run-time M (the partial row tile of a dynamic batch or
//   sequence) with its fill and bias epilogue: the microkernel over blocks
//   of 4 rows (the register tile) up to M - M % 4, then blocks of 2 and 1
//   rows, each a loop from where the last stopped; no generic loops.

// CHECK-LABEL: func.func @ew()
// CHECK: memref.dim
// CHECK: %[[N:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x?xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[REM:.*]] = arith.remui %[[N]], %[[C8:.*]] : index
// CHECK: %[[MAIN:.*]] = arith.subi %[[N]], %[[REM]] : index
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[MAIN]] step %{{.*}} {
// CHECK-NEXT: vector.load %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: vector.store
// CHECK: scf.for %[[K:.*]] = %[[MAIN]] to %[[N]] step %{{.*}} {
// CHECK-NEXT: memref.load %{{.*}}[%[[I]], %[[K]]] : memref<?x?xf32>

// CHECK-LABEL: func.func @rowsum()
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[MAIN:.*]] = arith.subi %[[N:.*]], %{{.*}} : index
// CHECK: %[[PART:.*]] = scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: %[[FOLD:.*]] = vector.reduction <add>, %[[PART]], %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[FOLD]]) -> (f32) {

// CHECK-LABEL: func.func @pv()
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[K:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<64x?xf32
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[K]] step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>,
// CHECK: vector.fma
// CHECK-NOT: linalg.batch_matmul
// CHECK: return

// CHECK-LABEL: func.func @dw_dyn()
// CHECK-NOT: linalg.fill
// CHECK: %[[REM:.*]] = arith.remui %[[N:.*]], %{{.*}} : index
// CHECK: %[[MAIN:.*]] = arith.subi %[[N]], %[[REM]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} {
// CHECK: vector.fma %{{.*}} : vector<8xf32>
// CHECK: arith.minimumf %{{.*}} : vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<1x2x6x?xf32>, vector<8xf32>
// CHECK: scf.for %[[C:.*]] = %[[MAIN]] to %[[N]] step %{{.*}} {
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<1xf32>
// CHECK: vector.fma %{{.*}} : vector<1xf32>
// CHECK: vector.load %{{.*}}[%[[C]]] : memref<?xf32>, vector<1xf32>
// CHECK: arith.minimumf %{{.*}} : vector<1xf32>
// CHECK: vector.store %{{.*}} : memref<1x2x6x?xf32>, vector<1xf32>
// CHECK-NOT: linalg.
// CHECK: return

// CHECK-LABEL: func.func @softmax_dyn()
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[REM:.*]] = arith.remui %[[N:.*]], %{{.*}} : index
// CHECK: %[[MAIN:.*]] = arith.subi %[[N]], %[[REM]] : index
// CHECK: %[[MX:.*]] = scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: arith.maximumf %{{.*}} : vector<8xf32>
// CHECK: %[[M:.*]] = vector.reduction <maximumf>, %[[MX]]
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %[[M]]) -> (f32) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<8xf32>) {
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: vector.reduction <add>
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (f32) {
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[MAIN]] step %{{.*}} {
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: scf.for %{{.*}} = %[[MAIN]] to %[[N]] step %{{.*}} {
// CHECK-NOT: linalg.
// CHECK: return

// CHECK-LABEL: func.func @mm_dyn_m()
// CHECK-NOT: linalg.
// CHECK: %[[M:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<?x32xf32>
// CHECK: %[[N4:.*]] = arith.divui %{{.*}}, %[[C4:.*]] : index
// CHECK: %[[H4:.*]] = arith.muli %[[N4]], %[[C4]] : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[H4]] step %[[C4]] {
// CHECK: vector.fma
// CHECK: %[[R2:.*]] = arith.subi %[[M]], %[[H4]] : index
// CHECK: %[[H2:.*]] = arith.addi %[[H4]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[H4]] to %[[H2]] step %{{.*}} {
// CHECK: vector.fma
// CHECK: %[[R1:.*]] = arith.subi %[[M]], %[[H2]] : index
// CHECK: %[[H1:.*]] = arith.addi %[[H2]], %{{.*}} : index
// CHECK: scf.for %{{.*}} = %[[H2]] to %[[H1]] step %{{.*}} {
// CHECK: vector.fma
// CHECK-NOT: linalg.
// CHECK: return

module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @ew() {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %p1 = hal.interface.constant {index = 1 : i32} : i32
    %m = arith.index_castui %p0 : i32 to index
    %n = arith.index_castui %p1 : i32 to index
    %a = hal.interface.binding(%m, %n) {binding = 0 : i32} : memref<?x?xf32>
    %o = hal.interface.binding(%m, %n) {binding = 1 : i32} : memref<?x?xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<?x?xf32>) outs(%o : memref<?x?xf32>) {
    ^bb0(%x: f32, %out: f32):
      %r = arith.mulf %x, %x : f32
      linalg.yield %r : f32
    }
    return
  }
  func.func @rowsum() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %p1 = hal.interface.constant {index = 1 : i32} : i32
    %m = arith.index_castui %p0 : i32 to index
    %n = arith.index_castui %p1 : i32 to index
    %a = hal.interface.binding(%m, %n) {binding = 0 : i32} : memref<?x?xf32>
    %o = hal.interface.binding(%m) {binding = 1 : i32} : memref<?xf32>
    linalg.reduce ins(%a : memref<?x?xf32>) outs(%o : memref<?xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return
  }
  func.func @pv() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %k = arith.index_castui %p0 : i32 to index
    %a = hal.interface.binding(%k) {binding = 0 : i32} : memref<1x64x?xf32>
    %b = hal.interface.binding(%k) {binding = 1 : i32} : memref<1x?x64xf32>
    %c = hal.interface.binding() {binding = 2 : i32} : memref<1x64x64xf32>
    linalg.batch_matmul ins(%a, %b : memref<1x64x?xf32>, memref<1x?x64xf32>) outs(%c : memref<1x64x64xf32>)
    return
  }
  func.func @dw_dyn() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %n = arith.index_castui %p0 : i32 to index
    %in = hal.interface.binding(%n) {binding = 0 : i32} : memref<1x4x8x?xf32>
    %f = hal.interface.binding(%n) {binding = 1 : i32} : memref<3x3x?xf32>
    %bias = hal.interface.binding(%n) {binding = 2 : i32} : memref<?xf32>
    %o = hal.interface.binding(%n) {binding = 3 : i32} : memref<1x2x6x?xf32>
    %zero = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x2x6x?xf32>)
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x4x8x?xf32>, memref<3x3x?xf32>) outs(%o : memref<1x2x6x?xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %bias : memref<1x2x6x?xf32>, memref<?xf32>) outs(%o : memref<1x2x6x?xf32>) {
    ^bb0(%x: f32, %b: f32, %out: f32):
      %s = arith.addf %x, %b : f32
      %r = arith.maximumf %s, %zero : f32
      %c = arith.minimumf %r, %six : f32
      linalg.yield %c : f32
    }
    return
  }
  func.func @softmax_dyn() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %p1 = hal.interface.constant {index = 1 : i32} : i32
    %b = arith.index_castui %p0 : i32 to index
    %n = arith.index_castui %p1 : i32 to index
    %a = hal.interface.binding(%b, %n, %n) {binding = 0 : i32} : memref<?x?x?xf32>
    %o = hal.interface.binding(%b, %n, %n) {binding = 1 : i32} : memref<?x?x?xf32>
    linalg.softmax dimension(2) ins(%a : memref<?x?x?xf32>) outs(%o : memref<?x?x?xf32>)
    return
  }
  func.func @mm_dyn_m() {
    %p0 = hal.interface.constant {index = 0 : i32} : i32
    %m = arith.index_castui %p0 : i32 to index
    %a = hal.interface.binding(%m) {binding = 0 : i32} : memref<?x48xf32>
    %b = hal.interface.binding() {binding = 1 : i32} : memref<48x32xf32>
    %bias = hal.interface.binding() {binding = 2 : i32} : memref<32xf32>
    %c = hal.interface.binding(%m) {binding = 3 : i32} : memref<?x32xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%c : memref<?x32xf32>)
    linalg.matmul ins(%a, %b : memref<?x48xf32>, memref<48x32xf32>) outs(%c : memref<?x32xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c, %bias : memref<?x32xf32>, memref<32xf32>) outs(%c : memref<?x32xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %s = arith.addf %x, %y : f32
      linalg.yield %s : f32
    }
    return
  }
}
