#map = affine_map<(d0, d1, d2) -> (d0, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#map2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#map3 = affine_map<(d0, d1) -> (d0, d1)>
#map4 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 + d4, d2 + d5, d6)>
#map5 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
#map6 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
#map7 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>
#map8 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#map9 = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
#map10 = affine_map<(d0, d1) -> (d0)>
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<4x8xf32>, tensor<8x16xf32>, index) -> tensor<4x16xf32>, sym_name = "f"}> ({
  ^bb0(%arg30: tensor<4x8xf32>, %arg31: tensor<8x16xf32>, %arg32: index):
    %46 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %47 = "arith.constant"() <{value = 1.000000e-01 : f32}> : () -> f32
    %48 = "arith.constant"() <{value = 0.123456789 : f64}> : () -> f64
    %49 = "arith.constant"() <{value = 3.400000e+38 : f32}> : () -> f32
    %50 = "arith.constant"() <{value = 1 : index}> : () -> index
    %51 = "arith.constant"() <{value = -1 : i32}> : () -> i32
    %52 = "arith.constant"() <{value = true}> : () -> i1
    %53 = "tensor.empty"() : () -> tensor<4x16xf32>
    %54 = "linalg.fill"(%46, %53) <{operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg40: f32, %arg41: f32):
      "linalg.yield"(%arg40) : (f32) -> ()
    }) : (f32, tensor<4x16xf32>) -> tensor<4x16xf32>
    %55 = "linalg.matmul"(%arg30, %arg31, %54) <{operandSegmentSizes = array<i32: 2, 1>}> ({
    ^bb0(%arg37: f32, %arg38: f32, %arg39: f32):
      %69 = "arith.mulf"(%arg37, %arg38) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %70 = "arith.addf"(%arg39, %69) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%70) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map, #map1, #map2]} : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %56 = "linalg.generic"(%55, %55) <{indexing_maps = [#map3, #map3], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<parallel>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg35: f32, %arg36: f32):
      %67 = "arith.addf"(%arg35, %arg36) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %68 = "arith.addf"(%67, %46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%68) : (f32) -> ()
    }) : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    %57 = "tensor.dim"(%56, %50) : (tensor<4x16xf32>, index) -> index
    %58 = "arith.constant"() <{value = dense<[1.000000e+00, 2.500000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
    %59 = "arith.constant"() <{value = dense<1.000000e+00> : tensor<2xf32>}> : () -> tensor<2xf32>
    %60 = "arith.constant"() <{value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>}> : () -> tensor<2x2xi32>
    %61 = "scf.for"(%50, %arg32, %50, %46) ({
    ^bb0(%arg33: index, %arg34: f32):
      %66 = "arith.addf"(%arg34, %46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"(%66) : (f32) -> ()
    }) : (index, index, index, f32) -> f32
    %62 = "scf.if"(%52) ({
      %65 = "arith.addf"(%61, %46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"(%65) : (f32) -> ()
    }, {
      %64 = "arith.mulf"(%61, %46) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "scf.yield"(%64) : (f32) -> ()
    }) : (i1) -> f32
    %63 = "func.call"(%62) <{callee = @g}> : (f32) -> f32
    "func.return"(%56) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
  "func.func"() <{function_type = (f32) -> f32, sym_name = "g", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = (tensor<2x3xf32>, tensor<3x2xf32>, tensor<2xf32>, tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<1x6x6x4xf32>, tensor<3x3xf32>, tensor<1x6x6x3xf32>, tensor<?x4xf32>) -> tensor<3x2xf32>, sym_name = "g2"}> ({
  ^bb0(%arg0: tensor<2x3xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<1x8x8x3xf32>, %arg4: tensor<3x3x3x4xf32>, %arg5: tensor<1x6x6x4xf32>, %arg6: tensor<3x3xf32>, %arg7: tensor<1x6x6x3xf32>, %arg8: tensor<?x4xf32>):
    %0 = "linalg.transpose"(%arg0, %arg1) <{permutation = array<i64: 1, 0>}> ({
    ^bb0(%arg28: f32, %arg29: f32):
      "linalg.yield"(%arg28) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    %1 = "tensor.empty"() : () -> tensor<2x3xf32>
    %2 = "linalg.broadcast"(%arg2, %1) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg26: f32, %arg27: f32):
      "linalg.yield"(%arg26) : (f32) -> ()
    }) : (tensor<2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %3 = "linalg.reduce"(%arg0, %arg2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg24: f32, %arg25: f32):
      %45 = "arith.addf"(%arg24, %arg25) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%45) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
    %4 = "linalg.reduce"(%arg0, %arg2) <{dimensions = array<i64: 1>}> ({
    ^bb0(%arg22: f32, %arg23: f32):
      %44 = "arith.addf"(%arg23, %arg22) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%44) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
    %5 = "linalg.map"(%arg0, %1) ({
    ^bb0(%arg21: f32):
      %43 = "math.exp"(%arg21) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      "linalg.yield"(%43) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %6 = "linalg.map"(%arg0, %arg0, %1) ({
    ^bb0(%arg19: f32, %arg20: f32):
      %42 = "arith.mulf"(%arg19, %arg20) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%42) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %7 = "linalg.softmax"(%arg0, %1) <{dimension = 1 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %8 = "linalg.conv_2d_nhwc_hwcf"(%arg3, %arg4, %arg5) <{dilations = dense<1> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<2xi64>}> ({
    ^bb0(%arg16: f32, %arg17: f32, %arg18: f32):
      %40 = "arith.mulf"(%arg16, %arg17) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %41 = "arith.addf"(%arg18, %40) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%41) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map4, #map5, #map6]} : (tensor<1x8x8x3xf32>, tensor<3x3x3x4xf32>, tensor<1x6x6x4xf32>) -> tensor<1x6x6x4xf32>
    %9 = "linalg.pooling_nhwc_max"(%arg3, %arg6, %arg7) <{dilations = dense<1> : tensor<2xi64>, operandSegmentSizes = array<i32: 2, 1>, strides = dense<1> : tensor<2xi64>}> ({
    ^bb0(%arg13: f32, %arg14: f32, %arg15: f32):
      %39 = "arith.maximumf"(%arg15, %arg13) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      "linalg.yield"(%39) : (f32) -> ()
    }) {linalg.memoized_indexing_maps = [#map7, #map8, #map9]} : (tensor<1x8x8x3xf32>, tensor<3x3xf32>, tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
    %10 = "arith.constant"() <{value = 0 : index}> : () -> index
    %11 = "arith.constant"() <{value = 1 : index}> : () -> index
    %12 = "tensor.extract"(%arg0, %10, %11) : (tensor<2x3xf32>, index, index) -> f32
    %13 = "tensor.insert"(%12, %arg0, %10, %11) : (f32, tensor<2x3xf32>, index, index) -> tensor<2x3xf32>
    %14 = "tensor.extract_slice"(%arg0, %11) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: 0, -9223372036854775808>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}> : (tensor<2x3xf32>, index) -> tensor<2x2xf32>
    %15 = "tensor.insert_slice"(%14, %arg0) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>, static_offsets = array<i64: 0, 0>, static_sizes = array<i64: 2, 2>, static_strides = array<i64: 1, 1>}> : (tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %16 = "tensor.expand_shape"(%arg0) <{reassociation = [[0], [1, 2]], static_output_shape = array<i64: 2, 3, 1>}> : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
    %17 = "tensor.collapse_shape"(%arg0) <{reassociation = [[0, 1]]}> : (tensor<2x3xf32>) -> tensor<6xf32>
    %18 = "tensor.concat"(%arg0, %arg0) <{dim = 0 : i64}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %19 = "arith.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
    %20 = "tensor.pad"(%arg0) <{operandSegmentSizes = array<i32: 1, 0, 0>, static_high = array<i64: 1, 1>, static_low = array<i64: 1, 1>}> ({
    ^bb0(%arg11: index, %arg12: index):
      "tensor.yield"(%19) : (f32) -> ()
    }) : (tensor<2x3xf32>) -> tensor<4x5xf32>
    %21 = "tensor.dim"(%arg8, %10) : (tensor<?x4xf32>, index) -> index
    %22 = "tensor.cast"(%arg8) : (tensor<?x4xf32>) -> tensor<2x4xf32>
    %23 = "tensor.from_elements"(%19, %19) : (f32, f32) -> tensor<2xf32>
    %24 = "tensor.splat"(%19) : (f32) -> tensor<2x2xf32>
    %25 = "tensor.empty"(%21) : (index) -> tensor<?x4xf32>
    %26 = "linalg.generic"(%arg0, %arg2) <{indexing_maps = [#map3, #map10], iterator_types = [#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>], operandSegmentSizes = array<i32: 1, 1>}> ({
    ^bb0(%arg9: f32, %arg10: f32):
      %28 = "linalg.index"() <{dim = 1 : i64}> : () -> index
      %29 = "arith.addf"(%arg9, %arg10) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
      %30 = "arith.cmpf"(%arg9, %arg10) <{fastmath = #arith.fastmath<none>, predicate = 4 : i64}> : (f32, f32) -> i1
      %31 = "arith.cmpi"(%10, %11) <{predicate = 2 : i64}> : (index, index) -> i1
      %32 = "arith.select"(%30, %arg9, %29) : (i1, f32, f32) -> f32
      %33 = "arith.index_cast"(%28) : (index) -> i32
      %34 = "arith.sitofp"(%33) : (i32) -> f32
      %35 = "arith.addi"(%33, %33) <{overflowFlags = #arith.overflow<nsw>}> : (i32, i32) -> i32
      %36 = "arith.maximumf"(%34, %32) <{fastmath = #arith.fastmath<none>}> : (f32, f32) -> f32
      %37 = "math.exp"(%36) <{fastmath = #arith.fastmath<none>}> : (f32) -> f32
      %38 = "math.powf"(%37, %36) <{fastmath = #arith.fastmath<fast>}> : (f32, f32) -> f32
      "linalg.yield"(%38) : (f32) -> ()
    }) {foo = 1 : i32} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2xf32>
    %27 = "arith.mulf"(%arg0, %arg0) <{fastmath = #arith.fastmath<none>}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    "func.return"(%0) : (tensor<3x2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

