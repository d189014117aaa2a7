func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2xf32>, %i: tensor<1x8x8x3xf32>, %w: tensor<3x3x3x4xf32>, %o: tensor<1x6x6x4xf32>, %win: tensor<3x3xf32>, %po: tensor<1x6x6x3xf32>, %x: tensor<?x4xf32>) -> tensor<3x2xf32> {
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<2x3xf32>
  %br = linalg.broadcast ins(%c : tensor<2xf32>) outs(%e : tensor<2x3xf32>) dimensions = [1]
  %r = linalg.reduce ins(%a : tensor<2x3xf32>) outs(%c : tensor<2xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  %r2 = linalg.reduce { arith.addf } ins(%a : tensor<2x3xf32>) outs(%c : tensor<2xf32>) dimensions = [1]
  %m = linalg.map { math.exp } ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>)
  %m2 = linalg.map ins(%a, %a : tensor<2x3xf32>, tensor<2x3xf32>) outs(%e : tensor<2x3xf32>)
    (%p: f32, %q: f32) {
      %s = arith.mulf %p, %q : f32
      linalg.yield %s : f32
    }
  %sm = linalg.softmax dimension(1) ins(%a : tensor<2x3xf32>) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %cv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>) outs(%o : tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
  %pl = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %win : tensor<1x8x8x3xf32>, tensor<3x3xf32>) outs(%po : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ex = tensor.extract %a[%c0, %c1] : tensor<2x3xf32>
  %in = tensor.insert %ex into %a[%c0, %c1] : tensor<2x3xf32>
  %sl = tensor.extract_slice %a[0, %c1] [2, 2] [1, 1] : tensor<2x3xf32> to tensor<2x2xf32>
  %is = tensor.insert_slice %sl into %a[0, 0] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x3xf32>
  %exs = tensor.expand_shape %a [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %col = tensor.collapse_shape %a [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  %cc = tensor.concat dim(0) %a, %a : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  %cst = arith.constant 0.0 : f32
  %pd = tensor.pad %a low[1, 1] high[1, 1] {
  ^bb0(%q: index, %r3: index):
    tensor.yield %cst : f32
  } : tensor<2x3xf32> to tensor<4x5xf32>
  %d = tensor.dim %x, %c0 : tensor<?x4xf32>
  %ca = tensor.cast %x : tensor<?x4xf32> to tensor<2x4xf32>
  %fe = tensor.from_elements %cst, %cst : tensor<2xf32>
  %sp = tensor.splat %cst : tensor<2x2xf32>
  %e2 = tensor.empty(%d) : tensor<?x4xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<2x3xf32>) outs(%c : tensor<2xf32>) attrs = {foo = 1 : i32} {
  ^bb0(%p: f32, %q: f32):
    %ii = linalg.index 1 : index
    %s = arith.addf %p, %q fastmath<fast> : f32
    %k = arith.cmpf olt, %p, %q : f32
    %k2 = arith.cmpi slt, %c0, %c1 : index
    %sel = arith.select %k, %p, %s : f32
    %ci = arith.index_cast %ii : index to i32
    %cf = arith.sitofp %ci : i32 to f32
    %ad = arith.addi %ci, %ci overflow<nsw> : i32
    %mx = arith.maximumf %cf, %sel : f32
    %ex2 = math.exp %mx : f32
    %pw = math.powf %ex2, %mx fastmath<fast> : f32
    linalg.yield %pw : f32
  } -> tensor<2xf32>
  %mv = arith.mulf %a, %a : tensor<2x3xf32>
  return %t : tensor<3x2xf32>
}
