// RUN: kiln-opt %s --split-into-bands | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=split-into-bands,resolve-dims,form-dispatch-regions,outline-dispatches,place-concats | FileCheck %s --check-prefix=PLACED
// split-into-bands: a padded value of 2 MiB or more that a 1x1
// convolution (and its elementwise chain) makes and a depthwise
// convolution or pool reads is computed in bands of output rows (each
// band's padded value about 1.5 MiB), each from a slice of the input
// rows its window needs, padded with its share of the padding, the
// bands joined by a concat along H.
//
// 64x64x128 f32 padded to 66x66 (2.1 MiB): 2 bands of 32 output rows,
// reading input rows [0, 33) and [31, 64) (two halo rows at the
// boundary); the top pad only in the first band, the bottom pad only in
// the last; the epilogue (bias) runs per band.
// CHECK-LABEL: func.func @expand_s1(
// CHECK: %[[S0:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 33, 64, 16] [1, 1, 1, 1]
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S0]], %arg1 : tensor<1x33x64x16xf32>, tensor<1x1x16x128xf32>)
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 0, 1, 0]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %arg3 : tensor<1x34x66x128xf32>, tensor<3x3x128xf32>) {{.*}} -> tensor<1x32x64x128xf32>
// CHECK: %[[B0:.*]] = linalg.generic
// CHECK: } -> tensor<1x32x64x128xf32>
// CHECK: %[[S1:.*]] = tensor.extract_slice %arg0[0, 31, 0, 0] [1, 33, 64, 16] [1, 1, 1, 1]
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S1]], %arg1
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[B1:.*]] = linalg.generic
// CHECK: } -> tensor<1x32x64x128xf32>
// CHECK: %[[C:.*]] = tensor.concat dim(1) %[[B0]], %[[B1]] : {{.*}} -> tensor<1x64x64x128xf32>
// CHECK-NOT: tensor<1x66x66x128xf32>
// CHECK: return %[[C]]
//
// MobileNetV2's stride-2 expansion: 112x112x96 padded low 1 (4.9 MB), 4
// bands of 14 output rows from 28 + the top pad row, then 29 input rows
// each (one halo row a boundary: window 3, stride 2).
// CHECK-LABEL: func.func @expand_s2(
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 28, 112, 16]
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 0, 0, 0]
// CHECK: } : {{.*}} to tensor<1x29x113x96xf32>
// CHECK: tensor.extract_slice %arg0[0, 27, 0, 0] [1, 29, 112, 16]
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 0, 0]
// CHECK: } : {{.*}} to tensor<1x29x113x96xf32>
// CHECK: tensor.extract_slice %arg0[0, 55, 0, 0] [1, 29, 112, 16]
// CHECK: tensor.extract_slice %arg0[0, 83, 0, 0] [1, 29, 112, 16]
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 0] high[0, 0, 0, 0]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} -> tensor<1x14x56x96xf32>
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<1x56x56x96xf32>
//
// A named max pool (3x3, stride 2) padded with -inf: the bands' pads
// keep the pad value.
// CHECK-LABEL: func.func @pool_max(
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 0, 1, 0]
// CHECK-NEXT: ^bb0
// CHECK-NEXT: tensor.yield %[[NINF]]
// CHECK: linalg.pooling_nhwc_max {{.*}} -> tensor<1x16x32x128xf32>
// CHECK: tensor.concat dim(1) {{.*}} -> tensor<1x32x32x128xf32>
//
// Refused, left whole: a run-time H, a value under 2 MiB, a chain value
// with a second reader, a window smaller than its stride.
// CHECK-LABEL: func.func @dynamic_h(
// CHECK-NOT: tensor.concat
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %arg3 : tensor<1x?x66x128xf32>
// CHECK-LABEL: func.func @small(
// CHECK-NOT: tensor.concat
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %arg3 : tensor<1x34x34x64xf32>
// CHECK-LABEL: func.func @two_users(
// CHECK-NOT: tensor.concat
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%{{.*}}, %arg3 : tensor<1x66x66x128xf32>
// CHECK-LABEL: func.func @window_below_stride(
// CHECK-NOT: tensor.concat
// CHECK: linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x64x64x128xf32>, tensor<1x1xf32>)
// CHECK: return
//
// In dispatches: each band's slice is read in place by its producer's
// dispatch (no slice copy), each band's pad joins that dispatch, and
// place-concats has each band's last dispatch write its rows of the
// concat (the second tied to the first's), so no concat dispatch is left.
// PLACED-LABEL: func.func @expand_s1(
// PLACED-NOT: tensor.concat
// PLACED: %[[P0:.*]] = "flow.dispatch"(%arg0, %arg1, %arg2)
// PLACED: %[[D0:.*]] = "flow.dispatch"(%[[P0]], %arg3, %arg2)
// PLACED: %[[P1:.*]] = "flow.dispatch"(%arg0, %arg1, %arg2)
// PLACED: %[[D1:.*]] = "flow.dispatch"(%[[P1]], %arg3, %arg2, %[[D0]]) {{.*}}tied_operands = array<i64: 3>
// PLACED-NOT: "flow.dispatch"
// PLACED: return %[[D1]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @expand_s1(%x: tensor<1x64x64x16xf32>, %w: tensor<1x1x16x128xf32>, %b: tensor<128xf32>, %k: tensor<3x3x128xf32>) -> (tensor<1x64x64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x64x64x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x64x16xf32>, tensor<1x1x16x128xf32>) outs(%f0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x64x64x128xf32>
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x64x64x128xf32> to tensor<1x66x66x128xf32>
  %e2 = tensor.empty() : tensor<1x64x64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %k : tensor<1x66x66x128xf32>, tensor<3x3x128xf32>) outs(%f2 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e3 = tensor.empty() : tensor<1x64x64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e3 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x64x64x128xf32>
  return %y : tensor<1x64x64x128xf32>
}
func.func @expand_s2(%x: tensor<1x112x112x16xf32>, %w: tensor<1x1x16x96xf32>, %b: tensor<96xf32>, %k: tensor<3x3x96xf32>) -> (tensor<1x56x56x96xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x112x112x96xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x112x112x16xf32>, tensor<1x1x16x96xf32>) outs(%f0 : tensor<1x112x112x96xf32>) -> tensor<1x112x112x96xf32>
  %e1 = tensor.empty() : tensor<1x112x112x96xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x112x112x96xf32>, tensor<96xf32>) outs(%e1 : tensor<1x112x112x96xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x112x112x96xf32>
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 0, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x112x112x96xf32> to tensor<1x113x113x96xf32>
  %e2 = tensor.empty() : tensor<1x56x56x96xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %k : tensor<1x113x113x96xf32>, tensor<3x3x96xf32>) outs(%f2 : tensor<1x56x56x96xf32>) -> tensor<1x56x56x96xf32>
  %e3 = tensor.empty() : tensor<1x56x56x96xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x56x56x96xf32>, tensor<96xf32>) outs(%e3 : tensor<1x56x56x96xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x56x56x96xf32>
  return %y : tensor<1x56x56x96xf32>
}
func.func @pool_max(%x: tensor<1x64x64x16xf32>, %w: tensor<1x1x16x128xf32>, %b: tensor<128xf32>) -> (tensor<1x32x32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x64x64x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x64x16xf32>, tensor<1x1x16x128xf32>) outs(%f0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x64x64x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x64x64x128xf32> to tensor<1x66x66x128xf32>
  %e2 = tensor.empty() : tensor<1x32x32x128xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x32x32x128xf32>) -> tensor<1x32x32x128xf32>
  %win = tensor.empty() : tensor<3x3xf32>
  %d = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x66x66x128xf32>, tensor<3x3xf32>) outs(%f2 : tensor<1x32x32x128xf32>) -> tensor<1x32x32x128xf32>
  %e3 = tensor.empty() : tensor<1x32x32x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x32x32x128xf32>, tensor<128xf32>) outs(%e3 : tensor<1x32x32x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x32x32x128xf32>
  return %y : tensor<1x32x32x128xf32>
}
func.func @dynamic_h(%x: tensor<1x?x64x16xf32>, %w: tensor<1x1x16x128xf32>, %b: tensor<128xf32>, %k: tensor<3x3x128xf32>) -> (tensor<1x?x64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %c1 = arith.constant 1 : index
  %h = tensor.dim %x, %c1 : tensor<1x?x64x16xf32>
  %e0 = tensor.empty(%h) : tensor<1x?x64x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x?x64x128xf32>) -> tensor<1x?x64x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x?x64x16xf32>, tensor<1x1x16x128xf32>) outs(%f0 : tensor<1x?x64x128xf32>) -> tensor<1x?x64x128xf32>
  %e1 = tensor.empty(%h) : tensor<1x?x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x?x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x?x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x?x64x128xf32>
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x?x64x128xf32> to tensor<1x?x66x128xf32>
  %e2 = tensor.empty(%h) : tensor<1x?x64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x?x64x128xf32>) -> tensor<1x?x64x128xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %k : tensor<1x?x66x128xf32>, tensor<3x3x128xf32>) outs(%f2 : tensor<1x?x64x128xf32>) -> tensor<1x?x64x128xf32>
  %e3 = tensor.empty(%h) : tensor<1x?x64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x?x64x128xf32>, tensor<128xf32>) outs(%e3 : tensor<1x?x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x?x64x128xf32>
  return %y : tensor<1x?x64x128xf32>
}
func.func @small(%x: tensor<1x32x32x16xf32>, %w: tensor<1x1x16x64xf32>, %b: tensor<64xf32>, %k: tensor<3x3x64xf32>) -> (tensor<1x32x32x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x32x32x64xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x32x32x16xf32>, tensor<1x1x16x64xf32>) outs(%f0 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %e1 = tensor.empty() : tensor<1x32x32x64xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x32x32x64xf32>, tensor<64xf32>) outs(%e1 : tensor<1x32x32x64xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x32x32x64xf32>
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x32x32x64xf32> to tensor<1x34x34x64xf32>
  %e2 = tensor.empty() : tensor<1x32x32x64xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %k : tensor<1x34x34x64xf32>, tensor<3x3x64xf32>) outs(%f2 : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  %e3 = tensor.empty() : tensor<1x32x32x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x32x32x64xf32>, tensor<64xf32>) outs(%e3 : tensor<1x32x32x64xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x32x32x64xf32>
  return %y : tensor<1x32x32x64xf32>
}
func.func @two_users(%x: tensor<1x64x64x16xf32>, %w: tensor<1x1x16x128xf32>, %b: tensor<128xf32>, %k: tensor<3x3x128xf32>) -> (tensor<1x64x64x128xf32>, tensor<1x64x64x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x64x64x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x64x16xf32>, tensor<1x1x16x128xf32>) outs(%f0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x64x64x128xf32>
  %p = tensor.pad %v low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x64x64x128xf32> to tensor<1x66x66x128xf32>
  %e2 = tensor.empty() : tensor<1x64x64x128xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %k : tensor<1x66x66x128xf32>, tensor<3x3x128xf32>) outs(%f2 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e3 = tensor.empty() : tensor<1x64x64x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e3 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x64x64x128xf32>
  return %y, %v : tensor<1x64x64x128xf32>, tensor<1x64x64x128xf32>
}
func.func @window_below_stride(%x: tensor<1x64x64x16xf32>, %w: tensor<1x1x16x128xf32>, %b: tensor<128xf32>) -> (tensor<1x32x32x128xf32>) {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e0 = tensor.empty() : tensor<1x64x64x128xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x64x64x16xf32>, tensor<1x1x16x128xf32>) outs(%f0 : tensor<1x64x64x128xf32>) -> tensor<1x64x64x128xf32>
  %e1 = tensor.empty() : tensor<1x64x64x128xf32>
  %v = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x64x64x128xf32>, tensor<128xf32>) outs(%e1 : tensor<1x64x64x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    %r = arith.maximumf %a, %zero : f32
    %q = arith.minimumf %r, %six : f32
    linalg.yield %q : f32
  } -> tensor<1x64x64x128xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %v low[0, 0, 0, 0] high[0, 0, 0, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %ninf : f32
  } : tensor<1x64x64x128xf32> to tensor<1x64x64x128xf32>
  %e2 = tensor.empty() : tensor<1x32x32x128xf32>
  %f2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<1x32x32x128xf32>) -> tensor<1x32x32x128xf32>
  %win = tensor.empty() : tensor<1x1xf32>
  %d = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %win : tensor<1x64x64x128xf32>, tensor<1x1xf32>) outs(%f2 : tensor<1x32x32x128xf32>) -> tensor<1x32x32x128xf32>
  %e3 = tensor.empty() : tensor<1x32x32x128xf32>
  %y = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%d, %b : tensor<1x32x32x128xf32>, tensor<128xf32>) outs(%e3 : tensor<1x32x32x128xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %a = arith.addf %i, %j : f32
    linalg.yield %a : f32
  } -> tensor<1x32x32x128xf32>
  return %y : tensor<1x32x32x128xf32>
}
