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
}
