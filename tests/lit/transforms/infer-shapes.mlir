// infer-shapes: dynamic result dimensions of linalg ops that their inputs
// determine become static. The init operand is refined (a new tensor.empty,
// a refined linalg.fill, or a tensor.cast), users that need the declared
// type read a tensor.cast back, and ins operands of later linalg ops take
// the refined value so refinement flows down a chain.
// RUN: kiln-opt --pass-pipeline=infer-shapes %s | FileCheck %s

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<8x16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[M:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[F]] : tensor<4x16xf32>) -> tensor<4x16xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[M]] : tensor<4x16xf32> to tensor<?x?xf32>
// CHECK: return %[[C]] : tensor<?x?xf32>
func.func @matmul(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Only the dimensions the inputs fix become static; the others keep their
// size operand.
// CHECK-LABEL: func.func @partially_dynamic(
// CHECK-SAME: %[[A:[^:]*]]: tensor<?x8xf32>, %[[B:[^:]*]]: tensor<8x16xf32>, %[[M:[^:]*]]: index
// CHECK: %[[E:.*]] = tensor.empty(%[[M]]) : tensor<?x16xf32>
// CHECK: linalg.matmul ins(%[[A]], %[[B]] : tensor<?x8xf32>, tensor<8x16xf32>) outs(%[[E]] : tensor<?x16xf32>) -> tensor<?x16xf32>
func.func @partially_dynamic(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>, %m: index, %n: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%m, %n) : tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x16xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// An init that is a function argument gets a tensor.cast.
// CHECK-LABEL: func.func @init_argument(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x4x8xf32>, %[[B:[^:]*]]: tensor<2x8x3xf32>, %[[C:[^:]*]]: tensor<?x?x?xf32>
// CHECK: %[[CI:.*]] = tensor.cast %[[C]] : tensor<?x?x?xf32> to tensor<2x4x3xf32>
// CHECK: %[[R:.*]] = linalg.batch_matmul ins(%[[A]], %[[B]] : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%[[CI]] : tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
// CHECK: %[[BACK:.*]] = tensor.cast %[[R]] : tensor<2x4x3xf32> to tensor<?x?x?xf32>
// CHECK: return %[[BACK]]
func.func @init_argument(%a: tensor<2x4x8xf32>, %b: tensor<2x8x3xf32>, %c: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x4x8xf32>, tensor<2x8x3xf32>) outs(%c : tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

// Refinement flows: the matvec result feeds linalg.map as an input, and the
// map's own result is refined in turn.
// CHECK-LABEL: func.func @chain(
// CHECK: %[[V:.*]] = linalg.matvec {{.*}} -> tensor<16xf32>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<16xf32>
// CHECK: %[[M:.*]] = linalg.map { math.tanh } ins(%[[V]] : tensor<16xf32>) outs(%[[E]] : tensor<16xf32>)
// CHECK: %[[C:.*]] = tensor.cast %[[M]] : tensor<16xf32> to tensor<?xf32>
// CHECK: return %[[C]] : tensor<?xf32>
func.func @chain(%a: tensor<16x32xf32>, %x: tensor<32xf32>, %n: index) -> tensor<?xf32> {
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %v = linalg.matvec ins(%a, %x : tensor<16x32xf32>, tensor<32xf32>) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %m = linalg.map { math.tanh } ins(%v : tensor<?xf32>) outs(%e1 : tensor<?xf32>)
  return %m : tensor<?xf32>
}

// CHECK-LABEL: func.func @conv_nhwc_strided(
// CHECK: linalg.conv_2d_nhwc_hwcf {{.*}} -> tensor<1x16x16x4xf32>
func.func @conv_nhwc_strided(%in: tensor<1x33x33x8xf32>, %w: tensor<3x3x8x4xf32>, %d: index) -> tensor<?x?x?x?xf32> {
  %e = tensor.empty(%d, %d, %d, %d) : tensor<?x?x?x?xf32>
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%in, %w : tensor<1x33x33x8xf32>, tensor<3x3x8x4xf32>) outs(%e : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %r : tensor<?x?x?x?xf32>
}

// 224 - (7-1)*2 - 1 = 211, 211/1 + 1 = 212 rows; 224 - (3-1)*3 - 1 = 217,
// 217/2 + 1 = 109 columns.
// CHECK-LABEL: func.func @conv_nchw_dilated(
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} -> tensor<2x6x212x109xf32>
func.func @conv_nchw_dilated(%in: tensor<2x3x224x224xf32>, %w: tensor<6x3x7x3xf32>, %d: index) -> tensor<?x6x?x?xf32> {
  %e = tensor.empty(%d, %d, %d) : tensor<?x6x?x?xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<[2, 3]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
         ins(%in, %w : tensor<2x3x224x224xf32>, tensor<6x3x7x3xf32>) outs(%e : tensor<?x6x?x?xf32>) -> tensor<?x6x?x?xf32>
  return %r : tensor<?x6x?x?xf32>
}

// Without strides/dilations attributes both default to 1.
// CHECK-LABEL: func.func @depthwise_and_pooling(
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} -> tensor<1x14x14x8xf32>
// CHECK: linalg.pooling_nhwc_max {{.*}} -> tensor<1x7x7x8xf32>
// CHECK: linalg.pooling_nchw_sum {{.*}} -> tensor<1x8x13x13xf32>
func.func @depthwise_and_pooling(%in: tensor<1x16x16x8xf32>, %w: tensor<3x3x8xf32>, %win: tensor<2x2xf32>, %nchw: tensor<1x8x15x15xf32>, %win3: tensor<3x3xf32>, %d: index)
    -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>) {
  %e0 = tensor.empty(%d, %d, %d, %d) : tensor<?x?x?x?xf32>
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%in, %w : tensor<1x16x16x8xf32>, tensor<3x3x8xf32>) outs(%e0 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %e1 = tensor.empty(%d, %d, %d, %d) : tensor<?x?x?x?xf32>
  %1 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%0, %win : tensor<?x?x?x?xf32>, tensor<2x2xf32>) outs(%e1 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %e2 = tensor.empty(%d, %d, %d, %d) : tensor<?x?x?x?xf32>
  %2 = linalg.pooling_nchw_sum ins(%nchw, %win3 : tensor<1x8x15x15xf32>, tensor<3x3xf32>) outs(%e2 : tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  return %0, %1, %2 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>
}

// linalg.transpose, broadcast and reduce need ins and outs of matching
// dynamism, so what they learn comes through a tensor.cast that hid a
// static shape; the refined ops read the cast's source.
// CHECK-LABEL: func.func @transpose_broadcast_reduce(
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x4xf32>
// CHECK: linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: linalg.broadcast ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x5x3x4xf32>) dimensions = [1]
// CHECK: linalg.reduce ins(%[[X]] : tensor<2x3x4xf32>) outs(%{{.*}} : tensor<2x4xf32>) dimensions = [1]
func.func @transpose_broadcast_reduce(%x: tensor<2x3x4xf32>, %d: index) -> (tensor<4x?x3xf32>, tensor<?x5x3x4xf32>, tensor<?x4xf32>) {
  %xd = tensor.cast %x : tensor<2x3x4xf32> to tensor<?x3x4xf32>
  %e0 = tensor.empty(%d) : tensor<4x?x3xf32>
  %0 = linalg.transpose ins(%xd : tensor<?x3x4xf32>) outs(%e0 : tensor<4x?x3xf32>) permutation = [2, 0, 1]
  %e1 = tensor.empty(%d) : tensor<?x5x3x4xf32>
  %1 = linalg.broadcast ins(%xd : tensor<?x3x4xf32>) outs(%e1 : tensor<?x5x3x4xf32>) dimensions = [1]
  %e2 = tensor.empty(%d) : tensor<?x4xf32>
  %2 = linalg.reduce ins(%xd : tensor<?x3x4xf32>) outs(%e2 : tensor<?x4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %0, %1, %2 : tensor<4x?x3xf32>, tensor<?x5x3x4xf32>, tensor<?x4xf32>
}

// linalg.generic: loop sizes come from the inputs' indexing maps.
// CHECK-LABEL: func.func @generic(
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<5x3xf32>)
// CHECK: } -> tensor<5x3xf32>
func.func @generic(%x: tensor<3x5xf32>, %d: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%d, %d) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x5xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// Already static, or nothing to learn: unchanged.
// CHECK-LABEL: func.func @unchanged(
// CHECK-NOT: tensor.cast
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x?xf32>) outs(%{{.*}} : tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK-NOT: tensor.cast
// CHECK: return
func.func @unchanged(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>, %c: tensor<?x?xf32>, %s: tensor<4x4xf32>, %t: tensor<4x4xf32>) -> (tensor<?x?xf32>, tensor<4x4xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = linalg.matmul ins(%s, %s : tensor<4x4xf32>, tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<4x4xf32>
}

// Elementwise ops on tensors take the shape their operands agree on, down
// a chain; the dynamic operand gets a cast to the static type.
// CHECK-LABEL: func.func @elementwise_chain(
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x4xf32>, %[[B:[^:]*]]: tensor<?x4xf32>
// CHECK: %[[BS:.*]] = tensor.cast %[[B]] : tensor<?x4xf32> to tensor<2x4xf32>
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[BS]] : tensor<2x4xf32>
// CHECK: %[[E:.*]] = math.exp %[[S]] : tensor<2x4xf32>
// CHECK: %[[C:.*]] = arith.cmpf olt, %[[E]], %[[S]] : tensor<2x4xf32>
// CHECK: %[[R:.*]] = tensor.cast %[[C]] : tensor<2x4xi1> to tensor<?x4xi1>
// CHECK: return %[[R]] : tensor<?x4xi1>
func.func @elementwise_chain(%a: tensor<2x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xi1> {
  %ad = tensor.cast %a : tensor<2x4xf32> to tensor<?x4xf32>
  %s = arith.addf %ad, %b : tensor<?x4xf32>
  %e = math.exp %s : tensor<?x4xf32>
  %c = arith.cmpf olt, %e, %s : tensor<?x4xf32>
  return %c : tensor<?x4xi1>
}

// A user whose own type contradicts the refined shape (a run-time error
// the dynamic type hid) keeps reading the declared type.
// CHECK-LABEL: func.func @contradicting_user(
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<4x16xf32>
// CHECK: %[[BACK:.*]] = tensor.cast %[[M]] : tensor<4x16xf32> to tensor<?x?xf32>
// CHECK: %[[C:.*]] = tensor.cast %[[BACK]] : tensor<?x?xf32> to tensor<5x16xf32>
// CHECK: return %[[C]] : tensor<5x16xf32>
func.func @contradicting_user(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %m: index) -> tensor<5x16xf32> {
  %e = tensor.empty(%m, %m) : tensor<?x?xf32>
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %c = tensor.cast %r : tensor<?x?xf32> to tensor<5x16xf32>
  return %c : tensor<5x16xf32>
}
