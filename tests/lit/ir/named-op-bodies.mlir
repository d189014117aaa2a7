// Named linalg ops carry the body mlir-opt-19 gives them (mul/add with
// sign-extending or float-extending casts, max/add for pooling, a yield of
// the input for fill/transpose/broadcast). The custom form elides it; the
// generic form shows it and mlir-opt-19 reads it back.
// RUN: kiln-opt --mlir-print-op-generic %s | FileCheck %s
// RUN: kiln-opt %s > %t.custom
// REQUIRES: mlir-opt
// RUN: mlir-opt %s | diff - %t.custom
// RUN: kiln-opt --mlir-print-op-generic %s | mlir-opt | diff - %t.custom
// CHECK: "linalg.matmul"(%arg0, %arg1, %arg2) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[C:.*]]: i32):
// CHECK-NEXT: %[[X:.*]] = "arith.extsi"(%[[A]]) : (i8) -> i32
// CHECK-NEXT: %[[Y:.*]] = "arith.extsi"(%[[B]]) : (i8) -> i32
// CHECK-NEXT: %[[M:.*]] = "arith.muli"(%[[X]], %[[Y]]) : (i32, i32) -> i32
// CHECK-NEXT: %[[S:.*]] = "arith.addi"(%[[C]], %[[M]]) : (i32, i32) -> i32
// CHECK-NEXT: "linalg.yield"(%[[S]]) : (i32) -> ()
// CHECK: "linalg.pooling_nhwc_max"
// CHECK-NEXT: ^bb0(%[[I:.*]]: f32, %{{.*}}: f32, %[[O:.*]]: f32):
// CHECK-NEXT: "arith.maximumf"(%[[O]], %[[I]])
// CHECK: "linalg.fill"
// CHECK-NEXT: ^bb0(%[[F:.*]]: i8, %{{.*}}: i32):
// CHECK-NEXT: "arith.extsi"(%[[F]]) : (i8) -> i32

func.func @f(%a: tensor<2x3xi8>, %b: tensor<3x4xi8>, %c: tensor<2x4xi32>, %h: tensor<2x3xf16>, %g: tensor<3x4xf16>, %o: tensor<2x4xf32>, %i: tensor<1x8x8x3xf32>, %win: tensor<3x3xf32>, %po: tensor<1x6x6x3xf32>, %dw: tensor<3x3x3xf32>, %ii: tensor<1x8x8x3xi32>, %wi: tensor<3x3xi32>, %poi: tensor<1x6x6x3xi32>, %n: tensor<1x3x8x8xf32>, %pn: tensor<1x3x6x6xf32>, %v: tensor<4xi8>, %vo: tensor<3xi32>, %v3: tensor<3xi8>, %bm: tensor<2x2x3xf32>, %bn: tensor<2x3x4xf32>, %bo: tensor<2x2x4xf32>, %cs: i8, %bt: tensor<3x2xi8>) {
  %r0 = linalg.matmul ins(%a, %b : tensor<2x3xi8>, tensor<3x4xi8>) outs(%c : tensor<2x4xi32>) -> tensor<2x4xi32>
  %r1 = linalg.matmul ins(%h, %g : tensor<2x3xf16>, tensor<3x4xf16>) outs(%o : tensor<2x4xf32>) -> tensor<2x4xf32>
  %r2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %win : tensor<1x8x8x3xf32>, tensor<3x3xf32>) outs(%po : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %r3 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %win : tensor<1x8x8x3xf32>, tensor<3x3xf32>) outs(%po : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %r4 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%ii, %wi : tensor<1x8x8x3xi32>, tensor<3x3xi32>) outs(%poi : tensor<1x6x6x3xi32>) -> tensor<1x6x6x3xi32>
  %r5 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %dw : tensor<1x8x8x3xf32>, tensor<3x3x3xf32>) outs(%po : tensor<1x6x6x3xf32>) -> tensor<1x6x6x3xf32>
  %r6 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%n, %win : tensor<1x3x8x8xf32>, tensor<3x3xf32>) outs(%pn : tensor<1x3x6x6xf32>) -> tensor<1x3x6x6xf32>
  %r7 = linalg.matvec ins(%b, %v : tensor<3x4xi8>, tensor<4xi8>) outs(%vo : tensor<3xi32>) -> tensor<3xi32>
  %r8 = linalg.fill ins(%cs : i8) outs(%c : tensor<2x4xi32>) -> tensor<2x4xi32>
  %r9 = linalg.batch_matmul ins(%bm, %bn : tensor<2x2x3xf32>, tensor<2x3x4xf32>) outs(%bo : tensor<2x2x4xf32>) -> tensor<2x2x4xf32>
  %r10 = linalg.transpose ins(%a : tensor<2x3xi8>) outs(%bt : tensor<3x2xi8>) permutation = [1, 0]
  %r11 = linalg.broadcast ins(%v3 : tensor<3xi8>) outs(%b : tensor<3x4xi8>) dimensions = [1]
  return
}
