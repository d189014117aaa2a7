// RUN: kiln-opt --confine-local-buffers %s | FileCheck %s
// A kernel-local buffer (the padded value of a window pair, 58x58x96)
// that each workgroup reaches only through views at its channel tile
// (offset %t, 48 channels, through subview chains: the interior, the
// border rows) keeps 48 channels; each view is rebuilt on it at channel
// 0 with its other offsets composed.
// CHECK-LABEL: func.func @tile()
// CHECK: %[[B:.*]] = memref.alloca() : memref<1x58x58x48xf32>
// CHECK-NOT: memref.alloca
// CHECK: %[[I:.*]] = memref.subview %[[B]][0, 1, 1, 0] [1, 56, 56, 48] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[I]] :
// CHECK: %[[R:.*]] = memref.subview %[[B]][0, 57, 0, 0] [1, 1, 58, 48] [1, 1, 1, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[R]] :
// CHECK: %[[W:.*]] = memref.subview %[[B]][0, 0, 0, 0] [1, 58, 58, 48] [1, 1, 1, 1]
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc {{.*}} ins(%[[W]], %{{.*}} :
//
// An edge tile's size min(48, rest) is bounded by 48: confined the same.
// CHECK-LABEL: func.func @edge()
// CHECK: memref.alloca() : memref<1x58x58x48xf32>
//
// Left alone: a view at a constant channel offset beside the tile's
// (not one tile: the whole buffer stays), and a buffer read whole.
// CHECK-LABEL: func.func @other_offset()
// CHECK: memref.alloca() : memref<1x58x58x96xf32>
// CHECK-LABEL: func.func @whole()
// CHECK: memref.alloca() : memref<1x58x58x96xf32>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @tile() {
    %cst = arith.constant 0.0 : f32
    %id = hal.interface.workgroup.id {dim = 0 : i32} : index
    %c48 = arith.constant 48 : index
    %t = arith.muli %id, %c48 : index
    %dw = hal.interface.binding {binding = 0 : i32} : memref<3x3x96xf32>
    %o = hal.interface.binding {binding = 1 : i32} : memref<1x56x56x96xf32>
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    %in = memref.subview %buf[0, 1, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>
    %int = memref.subview %in[0, 0, 0, %t] [1, 56, 56, 48] [1, 1, 1, 1] : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>> to memref<1x56x56x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%int : memref<1x56x56x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>)
    %row = memref.subview %buf[0, 57, 0, 0] [1, 1, 58, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x1x58x96xf32, strided<[322944, 5568, 96, 1], offset: 317376>>
    %rowt = memref.subview %row[0, 0, 0, %t] [1, 1, 58, 48] [1, 1, 1, 1] : memref<1x1x58x96xf32, strided<[322944, 5568, 96, 1], offset: 317376>> to memref<1x1x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%rowt : memref<1x1x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>)
    %win = memref.subview %buf[0, 0, 0, %t] [1, 58, 58, 48] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>
    %f = memref.subview %dw[0, 0, %t] [3, 3, 48] [1, 1, 1] : memref<3x3x96xf32> to memref<3x3x48xf32, strided<[288, 96, 1], offset: ?>>
    %ot = memref.subview %o[0, 0, 0, %t] [1, 56, 56, 48] [1, 1, 1, 1] : memref<1x56x56x96xf32> to memref<1x56x56x48xf32, strided<[301056, 5376, 96, 1], offset: ?>>
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%win, %f : memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>, memref<3x3x48xf32, strided<[288, 96, 1], offset: ?>>) outs(%ot : memref<1x56x56x48xf32, strided<[301056, 5376, 96, 1], offset: ?>>)
    return
  }
  func.func @edge() {
    %cst = arith.constant 0.0 : f32
    %id = hal.interface.workgroup.id {dim = 0 : i32} : index
    %c48 = arith.constant 48 : index
    %c76 = arith.constant 76 : index
    %t = arith.muli %id, %c48 : index
    %rest = arith.subi %c76, %t : index
    %n = arith.minsi %c48, %rest : index
    %buf = memref.alloca() : memref<1x58x58x76xf32>
    %win = memref.subview %buf[0, 0, 0, %t] [1, 58, 58, %n] [1, 1, 1, 1] : memref<1x58x58x76xf32> to memref<1x58x58x?xf32, strided<[255664, 4408, 76, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%win : memref<1x58x58x?xf32, strided<[255664, 4408, 76, 1], offset: ?>>)
    return
  }
  func.func @other_offset() {
    %cst = arith.constant 0.0 : f32
    %id = hal.interface.workgroup.id {dim = 0 : i32} : index
    %c48 = arith.constant 48 : index
    %t = arith.muli %id, %c48 : index
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    %win = memref.subview %buf[0, 0, 0, %t] [1, 58, 58, 48] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>
    linalg.fill ins(%cst : f32) outs(%win : memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1], offset: ?>>)
    %fix = memref.subview %buf[0, 0, 0, 0] [1, 58, 58, 48] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1]>>
    linalg.fill ins(%cst : f32) outs(%fix : memref<1x58x58x48xf32, strided<[322944, 5568, 96, 1]>>)
    return
  }
  func.func @whole() {
    %cst = arith.constant 0.0 : f32
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    linalg.fill ins(%cst : f32) outs(%buf : memref<1x58x58x96xf32>)
    return
  }
}
