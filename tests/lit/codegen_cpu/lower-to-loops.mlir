// RUN: kiln-opt --lower-to-loops %s | FileCheck %s
// lower-to-loops, vector width 8 (avx2):
// - elementwise: the innermost loop steps by 8 with vector.load/store, a
//   value independent of it (the row scale) is loaded once and broadcast,
//   and one 4-lane vector finishes the 4 leftover columns;
// - reduction: the output is loaded before the reduction loop, carried in
//   iter_args and stored after it; the contiguous innermost reduction runs
//   on 8 partial sums folded by vector.reduction, then a scalar tail;
// - matmul: column blocks of 2 vectors, row blocks of 4, a 4 x 2-vector
//   register tile of accumulators over K, A broadcast, B rows loaded as
//   vectors, vector.fma; 20 columns leave 4 for a matmul tail on 4 lanes;
// - transpose: the input is not contiguous along the innermost loop, so
//   scalar loads and stores;
// - softmax: max, exp-and-sum, scale loops per row, on vectors with a
//   scalar tail (a row shorter than a vector: scalar only);
// - batch_matmul of one batch: the matmul of its 2-D views (rank-reducing
//   subviews), on the register-blocked microkernel.

// CHECK-LABEL: func.func @ew()
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[C16:.*]] step %[[C8:.*]] {
// CHECK-NEXT: %[[X:.*]] = vector.load %{{.*}}[%[[I]], %[[J]]] : memref<4x20xf32>, vector<8xf32>
// CHECK-NEXT: %[[S:.*]] = memref.load %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK-NEXT: %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[SV]] : vector<8xf32>
// CHECK-NEXT: vector.store %[[M]], %{{.*}}[%[[I]], %[[J]]] : memref<4x20xf32>, vector<8xf32>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: vector.load %{{.*}}[%[[I]], %[[K]]] : memref<4x20xf32>, vector<4xf32>
// CHECK-NEXT: memref.load %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK-NEXT: vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK-NEXT: arith.mulf %{{.*}}, %{{.*}} : vector<4xf32>
// CHECK-NEXT: vector.store %{{.*}} : memref<4x20xf32>, vector<4xf32>

// CHECK-LABEL: func.func @rowsum()
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[INIT:.*]] = memref.load %[[OUT:.*]][%[[R]]] : memref<4xf32>
// CHECK: %[[ZERO:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: %[[PART:.*]] = scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[VACC:.*]] = %[[ZERO]]) -> (vector<8xf32>) {
// CHECK-NEXT: %[[V:.*]] = vector.load %{{.*}}[%[[R]], %[[C]]] : memref<4x20xf32>, vector<8xf32>
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[V]], %[[VACC]] : vector<8xf32>
// CHECK-NEXT: scf.yield %[[N]] : vector<8xf32>
// CHECK: %[[FOLD:.*]] = vector.reduction <add>, %[[PART]], %[[INIT]] fastmath<reassoc> : vector<8xf32> into f32
// The 4 leftover columns continue from the folded sum.
// CHECK: %[[SUM:.*]] = scf.for %[[C2:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[FOLD]]) -> (f32) {
// CHECK-NEXT: %[[X:.*]] = memref.load %{{.*}}[%[[R]], %[[C2]]] : memref<4x20xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[ACC]] : f32
// CHECK-NEXT: scf.yield %[[S]] : f32
// CHECK: memref.store %[[SUM]], %[[OUT]][%[[R]]] : memref<4xf32>

// Every combiner of dialects/arith.def runs on vector partial results,
// maxnumf included (started at its identity, -inf).
// CHECK-LABEL: func.func @rowmax_num()
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: vector.broadcast %[[NEG]] : f32 to vector<8xf32>
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: vector.reduction <maxnumf>, %{{.*}}, %{{.*}} fastmath<reassoc> : vector<8xf32> into f32
// CHECK: arith.maxnumf %{{.*}}, %{{.*}} : f32

// CHECK-LABEL: func.func @mm()
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %[[C4:.*]] {
// CHECK-COUNT-8: vector.load %{{.*}} : memref<16x16xf32>, vector<8xf32>
// CHECK: %{{.*}}:8 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK-NEXT: %[[B0:.*]] = vector.load %{{.*}}[%[[K]], %[[J0]]] : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[B1:.*]] = vector.load %{{.*}}[%[[K]], %{{.*}}] : memref<8x16xf32>, vector<8xf32>
// CHECK-NEXT: %[[A0:.*]] = memref.load %{{.*}}[%[[I0]], %[[K]]] : memref<16x8xf32>
// CHECK-NEXT: %[[AV:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma %[[AV]], %[[B0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.fma %[[AV]], %[[B1]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-6: vector.fma
// CHECK: scf.yield
// CHECK-COUNT-8: vector.store

// CHECK-LABEL: func.func @mm_tail()
// CHECK-DAG: %[[BT:.*]] = memref.subview %{{.*}}[0, 16] [8, 4] [1, 1] : memref<8x20xf32> to memref<8x4xf32, strided<[20, 1], offset: 16>>
// CHECK-DAG: %[[CT:.*]] = memref.subview %{{.*}}[0, 16] [6, 4] [1, 1] : memref<6x20xf32> to memref<6x4xf32, strided<[20, 1], offset: 16>>
// Rows 0..3 in the row loop (4 x 2 vectors), rows 4..5 as one 2-row block.
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %{{.*}}:8 = scf.for
// CHECK-COUNT-8: vector.store
// CHECK: %{{.*}}:4 = scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-COUNT-4: vector.store
// The 4 leftover columns: 4-lane vectors over the subviews, the
// reduction carrying them.
// CHECK: vector.load %[[CT]]{{.*}} vector<4xf32>
// CHECK: vector.load %[[BT]]{{.*}} vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[CT]]{{.*}} vector<4xf32>

// Convolution (NHWC): the microkernel of lower_conv.c over 2x2 output
// pixels x 1 vector of 8 output channels (rows of 2 pixels, shorter than
// half the register rows: one tile spans both output rows, span_loop);
// the filter (HWCF) is read in place, contiguous along F; the window and
// input-channel loops carry the four accumulators; the input is
// broadcast per pixel.
// CHECK-LABEL: func.func @conv()
// CHECK: %[[ACC0:.*]] = vector.load %[[OUT:.*]][%{{.*}}, %{{.*}}, %{{.*}}, %[[F:.*]]] : memref<1x2x2x8xf32>, vector<8xf32>
// CHECK-COUNT-3: vector.load %[[OUT]]
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ACC0]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: scf.for {{.*}} iter_args(%[[A0:.*]] = %{{.*}}, %[[A1:.*]] = %{{.*}}, %[[A2:.*]] = %{{.*}}, %[[A3:.*]] = %{{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK-NEXT: %[[W:.*]] = vector.load %{{.*}}[{{.*}}, %[[F]]] : memref<3x3x2x8xf32>, vector<8xf32>
// CHECK: %[[X0:.*]] = memref.load %{{.*}} : memref<1x4x4x2xf32>
// CHECK-NEXT: %[[XV0:.*]] = vector.broadcast %[[X0]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[S0:.*]] = vector.fma %[[XV0]], %[[W]], %[[A0]] : vector<8xf32>
// CHECK: %[[X1:.*]] = memref.load %{{.*}} : memref<1x4x4x2xf32>
// CHECK-NEXT: %[[XV1:.*]] = vector.broadcast %[[X1]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[S1:.*]] = vector.fma %[[XV1]], %[[W]], %[[A1]] : vector<8xf32>
// CHECK: %[[X2:.*]] = memref.load %{{.*}} : memref<1x4x4x2xf32>
// CHECK-NEXT: %[[XV2:.*]] = vector.broadcast %[[X2]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[S2:.*]] = vector.fma %[[XV2]], %[[W]], %[[A2]] : vector<8xf32>
// CHECK: %[[X3:.*]] = memref.load %{{.*}} : memref<1x4x4x2xf32>
// CHECK-NEXT: %[[XV3:.*]] = vector.broadcast %[[X3]] : f32 to vector<8xf32>
// CHECK-NEXT: %[[S3:.*]] = vector.fma %[[XV3]], %[[W]], %[[A3]] : vector<8xf32>
// CHECK-NEXT: scf.yield %[[S0]], %[[S1]], %[[S2]], %[[S3]] : vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>
// CHECK-COUNT-4: vector.store %{{.*}}, %[[OUT]][{{.*}}, %[[F]]] : memref<1x2x2x8xf32>, vector<8xf32>

// A convolution (NHWC) with the fill before it and bias + ReLU after it,
// 13 output channels on 8 lanes: column segments of 8, 4 and 1 lanes;
// 2 output rows of 3 pixels, one register tile of 6 accumulators over
// both rows (span_loop).
// The accumulators start at the fill value (no fill loop, no load of the
// output), the bias is loaded along the channels and ReLU applied before
// the one store of each vector; no linalg op is left for them.
// CHECK-LABEL: func.func @conv_fused()
// CHECK-NOT: linalg.fill
// CHECK: %[[Z8:.*]] = vector.broadcast %[[ZERO:.*]] : f32 to vector<8xf32>
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[Z8]], {{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: vector.fma
// CHECK: %[[B8:.*]] = vector.load %[[BIAS:.*]][%{{.*}}] : memref<13xf32>, vector<8xf32>
// CHECK-NEXT: %[[S8:.*]] = arith.addf %{{.*}}, %[[B8]] : vector<8xf32>
// CHECK: %[[R8:.*]] = arith.maximumf %[[S8]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.store %[[R8]], %[[OUT:.*]][{{.*}}] : memref<1x2x3x13xf32>, vector<8xf32>
// CHECK: vector.broadcast %[[ZERO]] : f32 to vector<4xf32>
// CHECK: vector.load %[[BIAS]][%{{.*}}] : memref<13xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][{{.*}}] : memref<1x2x3x13xf32>, vector<4xf32>
// CHECK: vector.broadcast %[[ZERO]] : f32 to vector<1xf32>
// CHECK: vector.fma %{{.*}} : vector<1xf32>
// CHECK: vector.load %[[BIAS]][%{{.*}}] : memref<13xf32>, vector<1xf32>
// CHECK: vector.store %{{.*}}, %[[OUT]][{{.*}}] : memref<1x2x3x13xf32>, vector<1xf32>
// CHECK-NOT: linalg.
// CHECK: return

// A depthwise convolution (NHWC, 12 channels on 8 lanes) between its fill
// and bias + ReLU6: the vector path over channels (8 then 4 lanes) with
// the 6 output columns register-blocked (up to 8), their 6 accumulators
// starting at the fill value and carried through the window loops, one
// filter load per tap for the 6 columns, multiply-adds contracted to
// vector.fma, the bias and clamps applied before each of the 6 stores;
// no linalg left.
// CHECK-LABEL: func.func @dw()
// CHECK-NOT: linalg.fill
// CHECK: scf.for %[[OW:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %c6{{[_0-9]*}} {
// CHECK: scf.for %[[CH:[a-z0-9_]+]] = %{{.*}} to %{{.*}} step %c8{{[_0-9]*}} {
// CHECK-COUNT-6: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// CHECK: %[[X0:.*]] = vector.load %[[IN:.*]][{{.*}}] : memref<1x4x8x12xf32>, vector<8xf32>
// CHECK-NEXT: %[[W0:.*]] = vector.load %[[FILT:.*]][{{.*}}, %[[CH]]] : memref<3x3x12xf32>, vector<8xf32>
// CHECK-NEXT: vector.fma %[[X0]], %[[W0]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-5: vector.fma
// CHECK: scf.yield
// CHECK: vector.load %{{.*}}[%[[CH]]] : memref<12xf32>, vector<8xf32>
// CHECK: arith.maximumf
// CHECK: arith.minimumf
// CHECK: vector.store %{{.*}}, %[[OUT:.*]][{{.*}}, %[[OW]], %[[CH]]] : memref<1x2x6x12xf32>, vector<8xf32>
// CHECK-COUNT-5: vector.store %{{.*}}, %[[OUT]]
// CHECK: vector<4xf32>
// CHECK-NOT: linalg.
// CHECK: return

// Convolution as the ONNX importer emits it (NCHW generic, W [G,M,C,kh,kw]):
// W is packed into a 27 x 16 panel (k = (c, kh, kw) flat, 2 vectors of
// output channels) at the kernel's entry; the NCHW output tile is staged
// through an 8 x 16 buffer by scalar loops around the 4 x 2 accumulators.
// CHECK-LABEL: func.func @conv_onnx()
// CHECK: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<8x16xf32>
// CHECK: %[[P:.*]] = memref.alloca() {alignment = 64 : i64} : memref<27x16xf32>
// CHECK: %[[WB:.*]] = hal.interface.binding {binding = 1 : i32} : memref<1x16x3x3x3xf32>
// CHECK: %[[OB:.*]] = hal.interface.binding {binding = 2 : i32} : memref<1x1x16x4x8xf32>
// CHECK: %[[WV:.*]] = memref.load %[[WB]]
// CHECK-NEXT: memref.store %[[WV]], %[[P]][%{{.*}}, %{{.*}}] : memref<27x16xf32>
// CHECK: %[[G:.*]] = memref.load %[[OB]]
// CHECK-NEXT: memref.store %[[G]], %[[T]]
// CHECK-COUNT-8: vector.load %[[T]]
// CHECK: %{{.*}}:8 = scf.for
// CHECK: %[[B0:.*]] = vector.load %[[P]][%[[K:.*]], %{{.*}}] : memref<27x16xf32>, vector<8xf32>
// CHECK: %[[B1:.*]] = vector.load %[[P]][%[[K]], %{{.*}}] : memref<27x16xf32>, vector<8xf32>
// CHECK: memref.load %{{.*}} : memref<1x1x3x6x10xf32>
// CHECK-NEXT: vector.broadcast
// CHECK-NEXT: vector.fma %{{.*}}, %[[B0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.fma %{{.*}}, %[[B1]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-6: vector.fma
// CHECK-COUNT-8: vector.store %{{.*}}, %[[T]]
// CHECK: %[[S:.*]] = memref.load %[[T]]
// CHECK-NEXT: memref.store %[[S]], %[[OB]]

// CHECK-LABEL: func.func @tr()
// CHECK: scf.for %[[P:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[Q:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[T:.*]] = memref.load %{{.*}}[%[[Q]], %[[P]]] : memref<8x4xf32>
// CHECK-NEXT: memref.store %[[T]], %{{.*}}[%[[P]], %[[Q]]] : memref<4x8xf32>

// CHECK-LABEL: func.func @sm()
// CHECK: %[[VMAX:.*]] = scf.for {{.*}} -> (vector<8xf32>) {
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: %[[M0:.*]] = vector.reduction <maximumf>, %[[VMAX]]
// CHECK: %[[MAX:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[M0]]) -> (f32) {
// CHECK: %[[VMAXB:.*]] = vector.broadcast %[[MAX]] : f32 to vector<8xf32>
// CHECK: %[[VSUM:.*]] = scf.for {{.*}} -> (vector<8xf32>) {
// CHECK: %[[VD:.*]] = arith.subf %{{.*}}, %[[VMAXB]] : vector<8xf32>
// CHECK-NEXT: %[[VE:.*]] = math.exp %[[VD]] : vector<8xf32>
// CHECK-NEXT: vector.store %[[VE]]
// CHECK: %[[S0:.*]] = vector.reduction <add>, %[[VSUM]]
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[S0]]) -> (f32) {
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[MAX]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]] : f32
// CHECK-NEXT: memref.store %[[E]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[SUM]] : f32
// CHECK: %[[VINV:.*]] = vector.broadcast %[[INV]]
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}}, %[[VINV]] : vector<8xf32>
// CHECK: scf.for
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32

// CHECK-LABEL: func.func @sm_short()
// CHECK: scf.for {{.*}} -> (f32) {
// CHECK-NOT: vector
// CHECK: return

// CHECK-LABEL: func.func @bmm()
// CHECK-COUNT-3: memref.subview %{{.*}}[0, 0, 0] [1, {{[0-9]+}}, {{[0-9]+}}] [1, 1, 1] : memref<1x
// CHECK: vector.fma
// CHECK-NOT: linalg.
// CHECK-NOT: linalg.

// Blocked filters of one vector each (convert-convs-to-nhwc's
// [M/NB, kh, kw, C, NB] with the output [N, H, W, M/NB, NB]; 3 blocks of
// 8 on 8 lanes): the blocks go in pairs, register tiles of two vectors,
// one per block, sharing each broadcast of the input; the odd last block
// alone, one vector.
// CHECK-LABEL: func.func @conv_blocks()
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[B1:.*]] = arith.addi %[[B]], %[[ONE]] : index
// CHECK: %[[W0:.*]] = vector.load %[[W:.*]][%[[B]], {{.*}}] : memref<3x1x1x5x8xf32>, vector<8xf32>
// CHECK-NEXT: %[[W1:.*]] = vector.load %[[W]][%[[B1]], {{.*}}] : memref<3x1x1x5x8xf32>, vector<8xf32>
// CHECK: %[[XV:.*]] = vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-NEXT: vector.fma %[[XV]], %[[W0]], %{{.*}} : vector<8xf32>
// CHECK-NEXT: vector.fma %[[XV]], %[[W1]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-8: vector.store %{{.*}} : memref<1x2x2x3x8xf32>, vector<8xf32>
// CHECK: %[[LAST:.*]] = arith.constant 2 : index
// CHECK: vector.load %[[W]][%[[LAST]], {{.*}}] : memref<3x1x1x5x8xf32>, vector<8xf32>
// CHECK-NOT: vector.load %[[W]]
// CHECK: vector.fma
// CHECK-COUNT-4: vector.store %{{.*}}, %{{.*}}[{{.*}}, %[[LAST]], {{.*}}] : memref<1x2x2x3x8xf32>, vector<8xf32>

module attributes {kiln.target = "llvm-cpu:x86_64+avx2"} {
  func.func @ew() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x20xf32>
    %s = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<4x20xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %s : memref<4x20xf32>, memref<4xf32>) outs(%o : memref<4x20xf32>) {
    ^bb0(%x: f32, %y: f32, %out: f32):
      %m = arith.mulf %x, %y : f32
      linalg.yield %m : f32
    }
    return
  }
  func.func @rowsum() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x20xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
    linalg.reduce ins(%a : memref<4x20xf32>) outs(%o : memref<4xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.addf %x, %acc : f32
        linalg.yield %s : f32
      }
    return
  }
  func.func @rowmax_num() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<4x20xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<4xf32>
    linalg.reduce ins(%a : memref<4x20xf32>) outs(%o : memref<4xf32>) dimensions = [1]
      (%x: f32, %acc: f32) {
        %s = arith.maxnumf %x, %acc : f32
        linalg.yield %s : f32
      }
    return
  }
  func.func @mm() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<16x8xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<8x16xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<16x16xf32>
    linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x16xf32>) outs(%c : memref<16x16xf32>)
    return
  }
  func.func @mm_tail() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<6x8xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<8x20xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<6x20xf32>
    linalg.matmul ins(%a, %b : memref<6x8xf32>, memref<8x20xf32>) outs(%c : memref<6x20xf32>)
    return
  }
  func.func @conv() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x4x2xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x2x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x2x8xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x4x4x2xf32>, memref<3x3x2x8xf32>) outs(%o : memref<1x2x2x8xf32>)
    return
  }
  func.func @conv_fused() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x5x3xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x3x13xf32>
    %bias = hal.interface.binding {binding = 2 : i32} : memref<13xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x2x3x13xf32>
    %zero = arith.constant 0.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x2x3x13xf32>)
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x4x5x3xf32>, memref<3x3x3x13xf32>) outs(%o : memref<1x2x3x13xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %bias : memref<1x2x3x13xf32>, memref<13xf32>) outs(%o : memref<1x2x3x13xf32>) {
    ^bb0(%x: f32, %b: f32, %out: f32):
      %s = arith.addf %x, %b : f32
      %r = arith.maximumf %s, %zero : f32
      linalg.yield %r : f32
    }
    return
  }
  func.func @dw() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x4x8x12xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x3x12xf32>
    %bias = hal.interface.binding {binding = 2 : i32} : memref<12xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x2x6x12xf32>
    %zero = arith.constant 0.0 : f32
    %six = arith.constant 6.0 : f32
    linalg.fill ins(%zero : f32) outs(%o : memref<1x2x6x12xf32>)
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x4x8x12xf32>, memref<3x3x12xf32>) outs(%o : memref<1x2x6x12xf32>)
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%o, %bias : memref<1x2x6x12xf32>, memref<12xf32>) outs(%o : memref<1x2x6x12xf32>) {
    ^bb0(%x: f32, %b: f32, %out: f32):
      %s = arith.addf %x, %b : f32
      %r = arith.maximumf %s, %zero : f32
      %c = arith.minimumf %r, %six : f32
      linalg.yield %c : f32
    }
    return
  }
  func.func @conv_onnx() {
    %x = hal.interface.binding {binding = 0 : i32} : memref<1x1x3x6x10xf32>
    %w = hal.interface.binding {binding = 1 : i32} : memref<1x16x3x3x3xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x1x16x4x8xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d5, d3 + d6, d4 + d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d2, d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : memref<1x1x3x6x10xf32>, memref<1x16x3x3x3xf32>) outs(%o : memref<1x1x16x4x8xf32>) {
    ^bb0(%a: f32, %b: f32, %acc: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @tr() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<8x4xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<4x8xf32>
    linalg.transpose ins(%a : memref<8x4xf32>) outs(%o : memref<4x8xf32>) permutation = [1, 0]
    return
  }
  func.func @sm() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x10xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<3x10xf32>
    linalg.softmax dimension(1) ins(%a : memref<3x10xf32>) outs(%o : memref<3x10xf32>)
    return
  }
  func.func @sm_short() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<3x5xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<3x5xf32>
    linalg.softmax dimension(1) ins(%a : memref<3x5xf32>) outs(%o : memref<3x5xf32>)
    return
  }
  func.func @bmm() {
    %a = hal.interface.binding {binding = 0 : i32} : memref<1x8x12xf32>
    %b = hal.interface.binding {binding = 1 : i32} : memref<1x12x16xf32>
    %c = hal.interface.binding {binding = 2 : i32} : memref<1x8x16xf32>
    linalg.batch_matmul ins(%a, %b : memref<1x8x12xf32>, memref<1x12x16xf32>) outs(%c : memref<1x8x16xf32>)
    return
  }
  func.func @conv_blocks() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x2x2x5xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<3x1x1x5x8xf32>
    %o = hal.interface.binding {binding = 2 : i32} : memref<1x2x2x3x8xf32>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%in, %f : memref<1x2x2x5xf32>, memref<3x1x1x5x8xf32>) outs(%o : memref<1x2x2x3x8xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}
