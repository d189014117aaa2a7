// RUN: kiln-opt --select-launch-config %s | FileCheck %s
// A kernel whose root (a 1x1 convolution) writes the interior of a
// kernel-local buffer that another op then reads in windows (a
// depthwise 3x3 over the padded buffer: an expand convolution and the
// depthwise reading it in one kernel). A row tile would read the rows
// above and below it, which other workgroups compute into their own
// buffers: the rows and columns stay whole and the channels split.
// CHECK-LABEL: func.func @window_read()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 56, 56, 48, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
//
// The same depthwise reading a binding the kernel does not write: the
// root's rows split as usual.
// CHECK-LABEL: func.func @other_buffer()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 7, 56, 96, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// An op reading the interior through its own subview, at the same
// offsets as the root writes it (a residual add of the value a pad
// surrounds): each tile reads only what it writes, the rows split.
// CHECK-LABEL: func.func @same_positions()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 7, 56, 96, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 8, 1, 1>
//
// The same read one row lower: the rows stay whole, the channels split.
// CHECK-LABEL: func.func @shifted_rows()
// CHECK-SAME: pipeline = "cpu-conv", tile_sizes = array<i64: 1, 56, 56, 48, 0, 0, 0>, {{.*}}workgroup_count = array<i64: 2, 1, 1>
module attributes {kiln.target = "llvm-cpu:x86_64"} {
  func.func @window_read() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x56x56x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x16x96xf32>
    %dw = hal.interface.binding {binding = 2 : i32} : memref<3x3x96xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x56x56x96xf32>
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    %inner = memref.subview %buf[0, 1, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x56x56x16xf32>, memref<1x1x16x96xf32>) outs(%inner : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>)
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%buf, %dw : memref<1x58x58x96xf32>, memref<3x3x96xf32>) outs(%o : memref<1x56x56x96xf32>)
    return
  }
  func.func @other_buffer() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x56x56x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x16x96xf32>
    %dw = hal.interface.binding {binding = 2 : i32} : memref<3x3x96xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x56x56x96xf32>
    %o2 = hal.interface.binding {binding = 4 : i32} : memref<1x56x56x96xf32>
    %x = hal.interface.binding {binding = 5 : i32} : memref<1x58x58x96xf32>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x56x56x16xf32>, memref<1x1x16x96xf32>) outs(%o2 : memref<1x56x56x96xf32>)
    linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %dw : memref<1x58x58x96xf32>, memref<3x3x96xf32>) outs(%o : memref<1x56x56x96xf32>)
    return
  }
  func.func @same_positions() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x56x56x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x16x96xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x56x56x96xf32>
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    %inner = memref.subview %buf[0, 1, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x56x56x16xf32>, memref<1x1x16x96xf32>) outs(%inner : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>)
    %again = memref.subview %buf[0, 1, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%again : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>) outs(%o : memref<1x56x56x96xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    return
  }
  func.func @shifted_rows() {
    %in = hal.interface.binding {binding = 0 : i32} : memref<1x56x56x16xf32>
    %f = hal.interface.binding {binding = 1 : i32} : memref<1x1x16x96xf32>
    %o = hal.interface.binding {binding = 3 : i32} : memref<1x56x56x96xf32>
    %buf = memref.alloca() : memref<1x58x58x96xf32>
    %inner = memref.subview %buf[0, 1, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>
    linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%in, %f : memref<1x56x56x16xf32>, memref<1x1x16x96xf32>) outs(%inner : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 5664>>)
    %again = memref.subview %buf[0, 2, 1, 0] [1, 56, 56, 96] [1, 1, 1, 1] : memref<1x58x58x96xf32> to memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 11232>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%again : memref<1x56x56x96xf32, strided<[322944, 5568, 96, 1], offset: 11232>>) outs(%o : memref<1x56x56x96xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    return
  }
}
