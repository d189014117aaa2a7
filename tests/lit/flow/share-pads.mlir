// RUN: kiln-opt %s --share-pads | FileCheck %s
// RUN: kiln-opt %s --pass-pipeline=share-pads,resolve-dims,form-dispatch-regions,outline-dispatches | FileCheck %s --check-prefix=DISPATCH
// share-pads: a computed value padded for a convolution and also read by
// an all-parallel generic (a residual add): the generic reads the pad's
// interior, through its map plus the low amounts, so the pad is the
// value's only reader.
// CHECK-DAG: #[[SHIFT:map[0-9]*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1 + 2, d2 + 1, d3)>
// CHECK-LABEL: func.func @residual(
// CHECK: %[[X:.*]] = linalg.generic
// CHECK: %[[P:.*]] = tensor.pad %[[X]] low[0, 2, 1, 0] high[0, 1, 3, 0]
// CHECK: linalg.generic {indexing_maps = [#[[SHIFT]], #{{map[0-9]*}}, #{{map[0-9]*}}], {{.*}} ins(%[[P]], %arg1 : tensor<2x8x11x5xf32>, tensor<2x5x7x5xf32>)
// A reader whose loops the other operands do not size (a global pool)
// reads a static slice of the pad's interior instead (form-dispatch-regions
// puts the slice in its dispatch, a view of the padded buffer).
// CHECK-LABEL: func.func @pooled(
// CHECK: %[[X2:.*]] = linalg.generic
// CHECK: %[[P2:.*]] = tensor.pad %[[X2]]
// CHECK: %[[S2:.*]] = tensor.extract_slice %[[P2]][0, 2, 1, 0] [2, 5, 7, 5] [1, 1, 1, 1] : tensor<2x8x11x5xf32> to tensor<2x5x7x5xf32>
// CHECK: linalg.generic {{.*}} ins(%[[S2]] : tensor<2x5x7x5xf32>)
// A pad of the innermost dim never joins its producer: left alone.
// CHECK-LABEL: func.func @inner(
// CHECK: %[[X3:.*]] = linalg.generic
// CHECK: tensor.pad %[[X3]]
// CHECK: linalg.generic {{.*}} ins(%[[X3]], %arg1 : tensor<2x5x7x5xf32>, tensor<2x5x7x5xf32>)
// A named convolution before the pad (SqueezeNet's expand 1x1 beside the
// padded 3x3): the pad moves up to it, the convolution reads the slice.
// CHECK-LABEL: func.func @named_before(
// CHECK: %[[X4:.*]] = linalg.generic
// CHECK: %[[P4:.*]] = tensor.pad %[[X4]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[S4:.*]] = tensor.extract_slice %[[P4]][0, 1, 1, 0] [2, 5, 7, 5] [1, 1, 1, 1]
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S4]], %arg1 :
// CHECK-NOT: tensor.pad
// CHECK: return %[[P4]]
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#gp = affine_map<(d0, d1, d2, d3) -> (d0, d3)>
func.func @residual(%a: tensor<2x5x7x5xf32>, %b: tensor<2x5x7x5xf32>) -> (tensor<2x8x11x5xf32>, tensor<2x5x7x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  %p = tensor.pad %x low[0, 2, 1, 0] high[0, 1, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x5xf32> to tensor<2x8x11x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<2x5x7x5xf32>, tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.addf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  return %p, %s : tensor<2x8x11x5xf32>, tensor<2x5x7x5xf32>
}
func.func @pooled(%a: tensor<2x5x7x5xf32>) -> (tensor<2x8x11x5xf32>, tensor<2x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  %p = tensor.pad %x low[0, 2, 1, 0] high[0, 1, 3, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x5xf32> to tensor<2x8x11x5xf32>
  %g0 = tensor.empty() : tensor<2x5xf32>
  %g = linalg.fill ins(%zero : f32) outs(%g0 : tensor<2x5xf32>) -> tensor<2x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #gp], iterator_types = ["parallel", "reduction", "reduction", "parallel"]} ins(%x : tensor<2x5x7x5xf32>) outs(%g : tensor<2x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.addf %i, %o : f32
    linalg.yield %r : f32
  } -> tensor<2x5xf32>
  return %p, %s : tensor<2x8x11x5xf32>, tensor<2x5xf32>
}
func.func @inner(%a: tensor<2x5x7x5xf32>, %b: tensor<2x5x7x5xf32>) -> (tensor<2x5x7x8xf32>, tensor<2x5x7x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  %p = tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 2] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x5xf32> to tensor<2x5x7x8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<2x5x7x5xf32>, tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.addf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  return %p, %s : tensor<2x5x7x8xf32>, tensor<2x5x7x5xf32>
}
func.func @named_before(%a: tensor<2x5x7x5xf32>, %w: tensor<1x1x5x3xf32>) -> (tensor<2x7x9x5xf32>, tensor<2x5x7x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<2x5x7x5xf32>) outs(%e : tensor<2x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x5x7x5xf32>
  %c0 = tensor.empty() : tensor<2x5x7x3xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%c0 : tensor<2x5x7x3xf32>) -> tensor<2x5x7x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<2x5x7x5xf32>, tensor<1x1x5x3xf32>) outs(%cf : tensor<2x5x7x3xf32>) -> tensor<2x5x7x3xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<2x5x7x5xf32> to tensor<2x7x9x5xf32>
  return %p, %c : tensor<2x7x9x5xf32>, tensor<2x5x7x3xf32>
}
// A run-time batch (issue 17), unpadded: the residual add reads the pad
// shifted as in @residual, and the named 1x1 convolution reads the
// interior slice, its run-time size the function argument's batch.
// CHECK-LABEL: func.func @batch(
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c0
// CHECK: %[[X5:.*]] = linalg.generic
// CHECK: %[[P5:.*]] = tensor.pad %[[X5]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: %[[S5:.*]] = tensor.extract_slice %[[P5]][0, 1, 1, 0] [%[[N]], 5, 7, 5] [1, 1, 1, 1] : tensor<?x7x9x5xf32> to tensor<?x5x7x5xf32>
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[S5]], %arg2 :
// CHECK: linalg.generic {indexing_maps = [#{{map[0-9]*}}, #{{map[0-9]*}}, #{{map[0-9]*}}], {{.*}} ins(%[[P5]], %arg1 : tensor<?x7x9x5xf32>, tensor<?x5x7x5xf32>)
// Then (DISPATCH) the pad joins the generic's dispatch and the slice the
// convolution's, its size a dispatch operand: three dispatches, no copy.
// DISPATCH-LABEL: func.func @batch_dispatch_0(
// DISPATCH-SAME: writeonly:tensor<?x7x9x5xf32>>, %arg2: index)
// DISPATCH: linalg.generic
// DISPATCH: tensor.pad
// DISPATCH-LABEL: func.func @batch_dispatch_1(%arg0: !flow.dispatch.tensor<readonly:tensor<?x7x9x5xf32>>
// DISPATCH: %[[L:.*]] = "flow.dispatch.tensor.load"(%arg0, %arg3)
// DISPATCH: %[[SL:.*]] = tensor.extract_slice %[[L]][0, 1, 1, 0] [%arg3, 5, 7, 5] [1, 1, 1, 1]
// DISPATCH: linalg.conv_2d_nhwc_hwcf {{.*}} ins(%[[SL]],
// DISPATCH-LABEL: func.func @batch(
// DISPATCH-COUNT-3: "flow.dispatch"(
// DISPATCH-NOT: "flow.dispatch"(
// DISPATCH: return
// A pad of the run-time dim itself is left alone (the shifted maps and
// the slice need static amounts there).
// CHECK-LABEL: func.func @batch_padded(
// CHECK: %[[X6:.*]] = linalg.generic
// CHECK: tensor.pad %[[X6]] low[1, 1, 1, 0]
// CHECK: linalg.generic {{.*}} ins(%[[X6]], %arg1 : tensor<?x5x7x5xf32>, tensor<?x5x7x5xf32>)
func.func @batch(%a: tensor<?x5x7x5xf32>, %b: tensor<?x5x7x5xf32>, %w: tensor<1x1x5x3xf32>) -> (tensor<?x7x9x5xf32>, tensor<?x5x7x5xf32>, tensor<?x5x7x3xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x5x7x5xf32>
  %e = tensor.empty(%n) : tensor<?x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<?x5x7x5xf32>) outs(%e : tensor<?x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x5x7x5xf32>
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x5x7x5xf32> to tensor<?x7x9x5xf32>
  %c0e = tensor.empty(%n) : tensor<?x5x7x3xf32>
  %cf = linalg.fill ins(%zero : f32) outs(%c0e : tensor<?x5x7x3xf32>) -> tensor<?x5x7x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<?x5x7x5xf32>, tensor<1x1x5x3xf32>) outs(%cf : tensor<?x5x7x3xf32>) -> tensor<?x5x7x3xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<?x5x7x5xf32>, tensor<?x5x7x5xf32>) outs(%e : tensor<?x5x7x5xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.addf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<?x5x7x5xf32>
  return %p, %s, %c : tensor<?x7x9x5xf32>, tensor<?x5x7x5xf32>, tensor<?x5x7x3xf32>
}
func.func @batch_padded(%a: tensor<?x5x7x5xf32>, %b: tensor<?x5x7x5xf32>) -> (tensor<?x7x9x5xf32>, tensor<?x5x7x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x5x7x5xf32>
  %e = tensor.empty(%n) : tensor<?x5x7x5xf32>
  %x = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%a : tensor<?x5x7x5xf32>) outs(%e : tensor<?x5x7x5xf32>) {
  ^bb0(%i: f32, %o: f32):
    %r = arith.maximumf %i, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x5x7x5xf32>
  %p = tensor.pad %x low[1, 1, 1, 0] high[1, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<?x5x7x5xf32> to tensor<?x7x9x5xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %b : tensor<?x5x7x5xf32>, tensor<?x5x7x5xf32>) outs(%e : tensor<?x5x7x5xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %r = arith.addf %i, %j : f32
    linalg.yield %r : f32
  } -> tensor<?x5x7x5xf32>
  return %p, %s : tensor<?x7x9x5xf32>, tensor<?x5x7x5xf32>
}
