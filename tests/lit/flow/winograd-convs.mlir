// RUN: kiln-opt %s --winograd-convs | cut -c1-400 | FileCheck %s
// winograd-convs: convert-convs-to-nhwc's blocked 3x3 convolutions, stride
// 1, with 64+ input and output channels and 48+ output tiles of 2x2,
// become Winograd F(2x2, 3x3): one input-transform generic (B^T d B), a
// batch_matmul of the 16 tile positions against U = G g G^T (a constant
// computed here), one output-transform generic (A^T m A) onto the
// convolution's fill, viewed as [N, 2*TH, 2*TW, M] and sliced when the
// output's sides are odd. Each transform is all-parallel, its nonzero
// taps of both axes unrolled: B^T row a = 2 a1 + a0 reads columns a and
// 2 - a1 of the tile (2 x 2 reads of the input, the loops (a1, a0, b1,
// b0, n, t, u, c)), A^T row p reads positions p .. p + 2 (3 x 3 reads of
// the product at 4 (p + i) + q + j); per-tap coefficients indexed by the
// row loops. The others stay direct (below).
//
// CHECK-DAG: #[[X00:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5 * 2 + d0 * 2 + d1, d6 * 2 + d2 * 2 + d3, d7)>
// CHECK-DAG: #[[X01:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5 * 2 + d0 * 2 + d1, d6 * 2 - d2 + 2, d7)>
// CHECK-DAG: #[[X10:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5 * 2 - d0 + 2, d6 * 2 + d2 * 2 + d3, d7)>
// CHECK-DAG: #[[X11:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d4, d5 * 2 - d0 + 2, d6 * 2 - d2 + 2, d7)>
// CHECK-DAG: #[[BR:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1)>
// CHECK-DAG: #[[BC:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d2, d3)>
// CHECK-DAG: #[[M00:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2 * 4 + d4, d0, d1, d3, d5)>
// CHECK-DAG: #[[M12:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2 * 4 + d4 + 6, d0, d1, d3, d5)>
// CHECK-DAG: #[[M22:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2 * 4 + d4 + 10, d0, d1, d3, d5)>
// CHECK-DAG: #[[AR:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2)>
// CHECK-DAG: #[[AC:map[0-9]*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4)>
//
// CHECK-LABEL: func.func @takes(
// CHECK-NOT: tensor.pad
// B^T's taps' coefficients by row (a1, a0): column a: 1, 1, 1, -1;
// column 2 - a1: -1, 1, -1, 1.
// CHECK: %[[B0:.*]] = arith.constant dense<{{\[}}[1.000000e+00, 1.000000e+00], [1.000000e+00, -1.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[B1:.*]] = arith.constant dense<{{\[}}[-1.000000e+00, 1.000000e+00], [-1.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK: %[[V:.*]] = linalg.generic {indexing_maps = [#[[X00]], #[[X01]], #[[X10]], #[[X11]], #[[BR]], #[[BR]], #[[BC]], #[[BC]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%arg0, %arg0, %arg0, %arg0, %[[B0]], %[[B1]], %[[B0]], %[[B1]] : tensor<1x16x16x128xf32>,
// Each row's column sum, times the row's coefficient; the empty init is
// not read.
// CHECK-NEXT: ^bb0(%[[I00:.*]]: f32, %[[I01:.*]]: f32, %[[I10:.*]]: f32, %[[I11:.*]]: f32, %[[R0:.*]]: f32, %[[R1:.*]]: f32, %[[C0:.*]]: f32, %[[C1:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[P00:.*]] = arith.mulf %[[I00]], %[[C0]]
// CHECK-NEXT: %[[P01:.*]] = arith.mulf %[[I01]], %[[C1]]
// CHECK-NEXT: %[[S0:.*]] = arith.addf %[[P00]], %[[P01]]
// CHECK-NEXT: %[[Q0:.*]] = arith.mulf %[[S0]], %[[R0]]
// CHECK-NEXT: %[[P10:.*]] = arith.mulf %[[I10]], %[[C0]]
// CHECK-NEXT: %[[P11:.*]] = arith.mulf %[[I11]], %[[C1]]
// CHECK-NEXT: %[[S1:.*]] = arith.addf %[[P10]], %[[P11]]
// CHECK-NEXT: %[[Q1:.*]] = arith.mulf %[[S1]], %[[R1]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[Q0]], %[[Q1]]
// CHECK-NEXT: linalg.yield %[[SUM]]
// CHECK-NEXT: } -> tensor<2x2x2x2x1x7x7x128xf32>
// CHECK: %[[U:.*]] = arith.constant dense<"0x0000803F0000803F
// CHECK: %[[V3:.*]] = "flow.tensor.reshape"(%[[V]]) : (tensor<2x2x2x2x1x7x7x128xf32>) -> tensor<16x49x128xf32>
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[V3]], %[[U]] : tensor<16x49x128xf32>, tensor<16x128x128xf32>){{.*}} outs(%{{.*}} : tensor<16x49x128xf32>)
// CHECK: %[[P5:.*]] = "flow.tensor.reshape"(%[[P]]) : (tensor<16x49x128xf32>) -> tensor<16x1x7x7x128xf32>
// A^T's taps' coefficients by row p: position p: 1, 1; p + 1: 1, -1;
// p + 2: 1, -1.
// CHECK: %[[A0:.*]] = arith.constant dense<1.000000e+00> : tensor<2xf32>
// CHECK: %[[A1:.*]] = arith.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: %[[A2:.*]] = arith.constant dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK: %[[Y2:.*]] = linalg.generic {indexing_maps = [#[[M00]], #{{.*}}, #{{.*}}, #{{.*}}, #{{.*}}, #[[M12]], #{{.*}}, #{{.*}}, #[[M22]], #[[AR]], #[[AR]], #[[AR]], #[[AC]], #[[AC]], #[[AC]], #{{.*}}], {{.*}} ins(%[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[P5]], %[[A0]], %[[A1]], %[[A2]], %[[A0]], %[[A1]], %[[A2]] :
// It adds onto the convolution's fill (it reads its out).
// CHECK-NEXT: ^bb0({{.*}}, %[[OUT:[a-z_0-9]*]]: f32):
// CHECK-NEXT: %[[Q0:.*]] = arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: %[[R:.*]] = arith.mulf
// CHECK-NEXT: %{{.*}} = arith.addf %[[OUT]], %[[R]]
// CHECK: } -> tensor<1x7x2x7x2x128xf32>
// CHECK: %[[Y:.*]] = "flow.tensor.reshape"(%[[Y2]]) : (tensor<1x7x2x7x2x128xf32>) -> tensor<1x14x14x128xf32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[Y]]
//
// Odd sides, batch 2 (2 x 7 x 6 = 84 tiles): the input is padded by one
// more row and column of zeros, the last partial tiles sliced off.
// CHECK-LABEL: func.func @odd(
// CHECK: %[[XP:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<2x15x13x144xf32> to tensor<2x16x14x144xf32>
// CHECK: linalg.generic {{.*}} ins(%[[XP]], %[[XP]], %[[XP]], %[[XP]], %{{.*}} : tensor<2x16x14x144xf32>, tensor<2x16x14x144xf32>, tensor<2x16x14x144xf32>, tensor<2x16x14x144xf32>,
// CHECK: linalg.batch_matmul {{.*}} : tensor<16x84x144xf32>, tensor<16x144x160xf32>)
// CHECK: %[[Y:.*]] = "flow.tensor.reshape"(%{{.*}}) : (tensor<2x7x2x6x2x160xf32>) -> tensor<2x14x12x160xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [2, 13, 11, 160] [1, 1, 1, 1]
// CHECK: return %[[S]]
//
// A run-time batch n, odd sides: n x 8 x 7 tiles, the products' rows
// n * 56 (a run-time size from the input's dim 0); the empties, views and
// the slice take n or n * 56 as their one size operand.
// CHECK-LABEL: func.func @run_time_batch(
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x17x15x144xf32>
// CHECK: %[[C56:.*]] = arith.constant 56 : index
// CHECK: %[[T:.*]] = arith.muli %[[N]], %[[C56]] : index
// CHECK: %[[XP:.*]] = tensor.pad %arg0 low[0, 0, 0, 0] high[0, 1, 1, 0]
// CHECK: } : tensor<?x17x15x144xf32> to tensor<?x18x16x144xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<2x2x2x2x?x8x7x144xf32>
// CHECK: linalg.generic {{.*}} ins(%[[XP]], %[[XP]], %[[XP]], %[[XP]], %{{.*}} : tensor<?x18x16x144xf32>, tensor<?x18x16x144xf32>,
// CHECK: tensor.empty(%[[T]]) : tensor<16x?x160xf32>
// CHECK: %[[V3:.*]] = "flow.tensor.reshape"(%{{.*}}, %[[T]]) : (tensor<2x2x2x2x?x8x7x144xf32>, index) -> tensor<16x?x144xf32>
// CHECK: %[[P:.*]] = linalg.batch_matmul ins(%[[V3]], %{{.*}} : tensor<16x?x144xf32>, tensor<16x144x160xf32>)
// CHECK: "flow.tensor.reshape"(%[[P]], %[[N]]) : (tensor<16x?x160xf32>, index) -> tensor<16x?x8x7x160xf32>
// CHECK: tensor.empty(%[[N]]) : tensor<?x8x2x7x2x160xf32>
// CHECK: %[[Y:.*]] = "flow.tensor.reshape"(%{{.*}}, %[[N]]) : (tensor<?x8x2x7x2x160xf32>, index) -> tensor<?x16x14x160xf32>
// CHECK: %[[S:.*]] = tensor.extract_slice %[[Y]][0, 0, 0, 0] [%[[N]], 15, 13, 160] [1, 1, 1, 1]
// CHECK: return %[[S]]
//
// A run-time batch counts as one image: 7 x 6 = 42 tiles, below the 48
// that pay, stays direct (a static batch of 2 would take Winograd: @odd).
// CHECK-LABEL: func.func @run_time_batch_few(
// CHECK-NOT: batch_matmul
// CHECK: return
//
// Stay direct: 7x7 (16 tiles), 48 input channels, 24 output channels, a
// strided window.
// CHECK-LABEL: func.func @few_tiles(
// CHECK-NOT: batch_matmul
// CHECK: return
// CHECK-LABEL: func.func @few_inputs(
// CHECK-NOT: batch_matmul
// CHECK: return
// CHECK-LABEL: func.func @few_outputs(
// CHECK-NOT: batch_matmul
// CHECK: return
// CHECK-LABEL: func.func @strided(
// CHECK-NOT: batch_matmul
// CHECK: return
//
// 32 output channels (DenseNet's growth rate) take the path: the products
// have 32 columns.
// CHECK-LABEL: func.func @narrow_outputs(
// CHECK: linalg.batch_matmul {{.*}} : tensor<16x49x128xf32>, tensor<16x128x32xf32>)
// CHECK: return
#bx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 + d5, d2 + d6, d7)>
#sx = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 2 + d5, d2 + d6, d7)>
#bw = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d3, d5, d6, d7, d4)>
#bo = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
func.func @takes(%x: tensor<1x16x16x128xf32>) -> tensor<1x14x14x128xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3x3x128x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x4x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x4x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x128xf32>, tensor<4x3x3x128x32xf32>) outs(%z : tensor<1x14x14x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x4x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x128xf32>
  return %y : tensor<1x14x14x128xf32>
}
func.func @odd(%x: tensor<2x15x13x144xf32>) -> tensor<2x13x11x160xf32> {
  %w = arith.constant dense<1.0> : tensor<5x3x3x144x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x13x11x5x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<2x13x11x5x32xf32>) -> tensor<2x13x11x5x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<2x15x13x144xf32>, tensor<5x3x3x144x32xf32>) outs(%z : tensor<2x13x11x5x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x13x11x5x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<2x13x11x5x32xf32>) -> tensor<2x13x11x160xf32>
  return %y : tensor<2x13x11x160xf32>
}
func.func @run_time_batch(%x: tensor<?x17x15x144xf32>) -> tensor<?x15x13x160xf32> {
  %w = arith.constant dense<1.0> : tensor<5x3x3x144x32xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x17x15x144xf32>
  %e = tensor.empty(%n) : tensor<?x15x13x5x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x15x13x5x32xf32>) -> tensor<?x15x13x5x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<?x17x15x144xf32>, tensor<5x3x3x144x32xf32>) outs(%z : tensor<?x15x13x5x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x15x13x5x32xf32>
  %y = "flow.tensor.reshape"(%c, %n) : (tensor<?x15x13x5x32xf32>, index) -> tensor<?x15x13x160xf32>
  return %y : tensor<?x15x13x160xf32>
}
func.func @run_time_batch_few(%x: tensor<?x15x13x144xf32>) -> tensor<?x13x11x160xf32> {
  %w = arith.constant dense<1.0> : tensor<5x3x3x144x32xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x15x13x144xf32>
  %e = tensor.empty(%n) : tensor<?x13x11x5x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?x13x11x5x32xf32>) -> tensor<?x13x11x5x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<?x15x13x144xf32>, tensor<5x3x3x144x32xf32>) outs(%z : tensor<?x13x11x5x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x13x11x5x32xf32>
  %y = "flow.tensor.reshape"(%c, %n) : (tensor<?x13x11x5x32xf32>, index) -> tensor<?x13x11x160xf32>
  return %y : tensor<?x13x11x160xf32>
}
func.func @few_tiles(%x: tensor<1x9x9x256xf32>) -> tensor<1x7x7x256xf32> {
  %w = arith.constant dense<1.0> : tensor<8x3x3x256x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x8x32xf32>) -> tensor<1x7x7x8x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x9x9x256xf32>, tensor<8x3x3x256x32xf32>) outs(%z : tensor<1x7x7x8x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x7x7x8x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x7x7x8x32xf32>) -> tensor<1x7x7x256xf32>
  return %y : tensor<1x7x7x256xf32>
}
func.func @few_inputs(%x: tensor<1x16x16x48xf32>) -> tensor<1x14x14x128xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3x3x48x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x4x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x4x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x48xf32>, tensor<4x3x3x48x32xf32>) outs(%z : tensor<1x14x14x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x4x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x128xf32>
  return %y : tensor<1x14x14x128xf32>
}
func.func @few_outputs(%x: tensor<1x16x16x128xf32>) -> tensor<1x14x14x24xf32> {
  %w = arith.constant dense<1.0> : tensor<1x3x3x128x24xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x1x24xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x1x24xf32>) -> tensor<1x14x14x1x24xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x128xf32>, tensor<1x3x3x128x24xf32>) outs(%z : tensor<1x14x14x1x24xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x1x24xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x14x14x1x24xf32>) -> tensor<1x14x14x24xf32>
  return %y : tensor<1x14x14x24xf32>
}
func.func @strided(%x: tensor<1x29x16x128xf32>) -> tensor<1x14x14x128xf32> {
  %w = arith.constant dense<1.0> : tensor<4x3x3x128x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x4x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x4x32xf32>
  %c = linalg.generic {indexing_maps = [#sx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x29x16x128xf32>, tensor<4x3x3x128x32xf32>) outs(%z : tensor<1x14x14x4x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x4x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x14x14x4x32xf32>) -> tensor<1x14x14x128xf32>
  return %y : tensor<1x14x14x128xf32>
}
func.func @narrow_outputs(%x: tensor<1x16x16x128xf32>) -> tensor<1x14x14x32xf32> {
  %w = arith.constant dense<1.0> : tensor<1x3x3x128x32xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x14x14x1x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x14x14x1x32xf32>) -> tensor<1x14x14x1x32xf32>
  %c = linalg.generic {indexing_maps = [#bx, #bw, #bo], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %w : tensor<1x16x16x128xf32>, tensor<1x3x3x128x32xf32>) outs(%z : tensor<1x14x14x1x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<1x14x14x1x32xf32>
  %y = "flow.tensor.reshape"(%c) : (tensor<1x14x14x1x32xf32>) -> tensor<1x14x14x32xf32>
  return %y : tensor<1x14x14x32xf32>
}
